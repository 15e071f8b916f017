# Every BC decoder (BC1–BC7, BC4/BC5 SNORM, BC6H UF16/SF16) on arbitrary blocks.
if(TARGET bc_impl)
  af_fuzzer(fuzz_bc SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_bc.cpp LIBRARIES bc_impl assetforge_core)
endif()
