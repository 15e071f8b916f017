# XTF and VTF readers (plugins/xtf) on arbitrary bytes, with every surface
# decoded and small textures written back; BC surfaces decode through bc_impl.
if(TARGET xtf_impl AND TARGET bc_impl)
  af_fuzzer(fuzz_xtf SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_xtf.cpp LIBRARIES xtf_impl bc_impl assetforge_core)
endif()
