# `.pages` reader, selftest, page reports, DXT pixels and the writer's
# byte-exact re-emit (plugins/vtpages) on arbitrary bytes.
if(TARGET vtpages_impl AND TARGET bc_impl)
  af_fuzzer(fuzz_vtpages SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_vtpages.cpp LIBRARIES vtpages_impl bc_impl assetforge_core)
endif()
