# BC6H/BC7 (BPTC) kernels, included by plugins/bc/CMakeLists.txt.
set(BPTC_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/bc7_decode.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bc6h_decode.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bc7_endpoint_fit.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bc7_encode.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bc6h_encode.cpp)
set(BPTC_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/tests/bc7_decode_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tests/bc6h_decode_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tests/bptc_pillow_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tests/bc7_encode_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tests/bc6h_encode_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tests/pillow_reference.cpp)
# SSE4.1 is the project's baseline (issue 3); the kernels are written so the compiler can use it.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  set_source_files_properties(${BPTC_SOURCES} PROPERTIES COMPILE_OPTIONS "-msse4.1")
endif()
