# assetforge_add_plugin(NAME name SOURCES file... [LIBRARIES lib...]
#                       [TESTS file... [TEST_LIBRARIES lib...]])
# Builds a plugin shared library named af_NAME that the host can load.
#
# plugin.cpp among SOURCES is the registration (descriptors and entry). The
# other sources become the static library NAME_impl (their folder on its
# include path, LIBRARIES linked publicly), which the module links and the
# tests link instead of the module. TESTS become one executable NAME_tests,
# compiled with NAME_TEST_DATA (upper case) naming tests/data and linked with
# NAME_impl, TEST_LIBRARIES and ${AF_PLUGIN_TEST_LIBRARIES}; its Catch2 cases
# run under ctest as "NAME:…" (one ctest entry when Catch is not loaded).
# A tests/CMakeLists.txt next to the TESTS adds anything else (more links,
# tests through the CLI). The older form assetforge_add_plugin(name SOURCES …)
# is still accepted.
#
# Only the entry symbol is exported; everything else stays hidden, so two
# plugins that link the same static code never clash.
#
# Hidden visibility alone leaves exported whatever the plugin's static
# libraries were compiled without it, template instances and typeinfo that
# libstdc++ headers mark default, and GNU unique objects: hundreds of symbols
# that another plugin's copy could interpose. The linker's version script
# decides at link time, whatever the objects say.
function(assetforge_add_plugin)
  set(lists SOURCES LIBRARIES TESTS TEST_LIBRARIES)
  if(ARGV0 STREQUAL "NAME")
    cmake_parse_arguments(P "" "NAME" "${lists}" ${ARGN})
  else()
    set(rest ${ARGN})
    list(POP_FRONT rest P_NAME)
    cmake_parse_arguments(P "" "" "${lists}" ${rest})
  endif()
  set(name ${P_NAME})
  set(exports "${CMAKE_BINARY_DIR}/assetforge_plugin_exports.map")
  file(CONFIGURE OUTPUT "${exports}" CONTENT "{\n  global: assetforge_plugin_entry;\n  local: *;\n};\n")

  set(entry ${P_SOURCES})
  list(FILTER entry INCLUDE REGEX "(^|/)plugin\\.cpp$")
  set(code ${P_SOURCES})
  list(FILTER code EXCLUDE REGEX "(^|/)plugin\\.cpp$")
  if(entry AND code)
    add_library(${name}_impl STATIC ${code})
    target_include_directories(${name}_impl PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
    target_link_libraries(${name}_impl PUBLIC ${P_LIBRARIES})
    if(TARGET AssetForge::sdk)
      target_link_libraries(${name}_impl PUBLIC AssetForge::sdk)
    endif()
    # Linked into a shared module: position-independent even in a project that does not ask for it.
    set_target_properties(${name}_impl PROPERTIES
      POSITION_INDEPENDENT_CODE ON
      CXX_VISIBILITY_PRESET hidden
      VISIBILITY_INLINES_HIDDEN ON)
    add_library(af_${name} MODULE ${entry})
    target_link_libraries(af_${name} PRIVATE ${name}_impl)
    set(code_target ${name}_impl)
  else()
    add_library(af_${name} MODULE ${P_SOURCES})
    target_link_libraries(af_${name} PRIVATE ${P_LIBRARIES})
  endif()
  if(TARGET AssetForge::sdk)
    target_link_libraries(af_${name} PRIVATE AssetForge::sdk)
  endif()
  set_target_properties(af_${name} PROPERTIES
    PREFIX ""
    CXX_VISIBILITY_PRESET hidden
    C_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
    # Every symbol resolved at link time, so a plugin missing one fails to build, not to load. Except in a clang
    # sanitizer build: clang puts its sanitizer runtimes in executables only, and the module takes them from the
    # executable that loads it.
    if(NOT (AF_SANITIZE AND CMAKE_CXX_COMPILER_ID STREQUAL "Clang"))
      target_link_options(af_${name} PRIVATE -Wl,--no-undefined)
    endif()
    target_link_options(af_${name} PRIVATE "-Wl,--version-script=${exports}")
    set_property(TARGET af_${name} APPEND PROPERTY LINK_DEPENDS "${exports}")
  endif()
  if(DEFINED AF_PLUGIN_OUTPUT_DIR)
    set_target_properties(af_${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${AF_PLUGIN_OUTPUT_DIR})
  endif()
  if(DEFINED AF_PLUGIN_INSTALL_DIR)
    install(TARGETS af_${name} LIBRARY DESTINATION ${AF_PLUGIN_INSTALL_DIR})
  endif()

  if(P_TESTS AND (NOT DEFINED AF_BUILD_TESTS OR AF_BUILD_TESTS))
    if(code_target)
      add_executable(${name}_tests ${P_TESTS})
      target_link_libraries(${name}_tests PRIVATE ${code_target})
    else()
      add_executable(${name}_tests ${P_TESTS} ${P_SOURCES})
      target_link_libraries(${name}_tests PRIVATE ${P_LIBRARIES})
      target_include_directories(${name}_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
    endif()
    if(TARGET AssetForge::sdk)
      target_link_libraries(${name}_tests PRIVATE AssetForge::sdk)
    endif()
    target_link_libraries(${name}_tests PRIVATE ${P_TEST_LIBRARIES} ${AF_PLUGIN_TEST_LIBRARIES})
    string(TOUPPER ${name} upper)
    target_compile_definitions(${name}_tests PRIVATE ${upper}_TEST_DATA="${CMAKE_CURRENT_SOURCE_DIR}/tests/data")
    if(COMMAND af_discover_tests)
      af_discover_tests(${name}_tests "${name}:")
    elseif(COMMAND catch_discover_tests)
      # A case that runs nothing (a name the test spec cannot match) fails instead of passing.
      catch_discover_tests(${name}_tests TEST_PREFIX "${name}:" EXTRA_ARGS --warn NoTests
        PROPERTIES FAIL_REGULAR_EXPRESSION "No tests ran")
    else()
      add_test(NAME ${name}_tests COMMAND ${name}_tests)
    endif()
    if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/tests/CMakeLists.txt)
      add_subdirectory(tests)
    endif()
  endif()
endfunction()
