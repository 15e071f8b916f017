# DDS reader, info report and writer on arbitrary bytes.
if(TARGET dds_impl)
  af_fuzzer(fuzz_dds SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_dds.cpp LIBRARIES dds_impl)
endif()
