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
# Compile definitions the tests need (the including CMakeLists applies them to its test target).
set(BPTC_TEST_DEFINITIONS
  PILLOW_DECODE_SCRIPT="${CMAKE_CURRENT_LIST_DIR}/tests/pillow_dds_decode.py"
  BPTC_TEST_DATA="${CMAKE_CURRENT_LIST_DIR}/tests/data/bptc")
# Set on the files themselves so they build the same whichever target compiles them.
set_source_files_properties(${BPTC_SOURCES} ${BPTC_TEST_SOURCES} PROPERTIES
  INCLUDE_DIRECTORIES "${CMAKE_CURRENT_LIST_DIR};${CMAKE_CURRENT_LIST_DIR}/tests;${PROJECT_SOURCE_DIR}/pipeline")
set_source_files_properties(${BPTC_TEST_SOURCES} PROPERTIES COMPILE_DEFINITIONS "${BPTC_TEST_DEFINITIONS}")
# SSE4.1 is the project's baseline (issue 3); the kernels are written so the compiler can use it.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  set_source_files_properties(${BPTC_SOURCES} PROPERTIES COMPILE_OPTIONS "-msse4.1")
endif()
