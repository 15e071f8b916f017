# af_unity_tests(DIR): compiles the test executables (NAME_tests) defined under DIR in unity batches.
# The test files each re-instantiate Catch2, nlohmann/json, fmt and yaml-cpp templates and re-parse what the
# precompiled header does not cover; in batches that work is done once per batch. This is most of the
# sanitizer stage's compile. A target that keeps its files apart on purpose (DISABLE_PRECOMPILE_HEADERS: headers
# that must compile on their own) keeps them apart here too; a file that cannot share a batch is marked
# SKIP_UNITY_BUILD_INCLUSION where it is listed.
function(af_unity_tests dir)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(t IN LISTS targets)
    get_target_property(type ${t} TYPE)
    get_target_property(no_pch ${t} DISABLE_PRECOMPILE_HEADERS)
    if(type STREQUAL "EXECUTABLE" AND t MATCHES "_tests$" AND NOT no_pch)
      set_target_properties(${t} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${AF_UNITY_TESTS_BATCH})
    endif()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    af_unity_tests(${sub})
  endforeach()
endfunction()
