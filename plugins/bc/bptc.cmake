# BC6H/BC7 (BPTC) kernels, included by plugins/bc/CMakeLists.txt.
set(BPTC_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/bc7_decode.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bc6h_decode.cpp)
set(BPTC_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/tests/bc7_decode_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tests/bc6h_decode_test.cpp)
