# Echo VR package sets (plugins/evr): manifest reader, set checks, every
# frame decompressed, extraction, on arbitrary bytes.
if(TARGET evr_impl)
  af_fuzzer(fuzz_evr SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_evr.cpp LIBRARIES evr_impl)
endif()
