# assetforge_add_plugin(NAME SOURCES file... [LIBRARIES lib...])
# Builds a plugin shared library named af_NAME that the host can load.
# Only the entry symbol is exported; everything else stays hidden, so two
# plugins that link the same static code never clash.
function(assetforge_add_plugin name)
  cmake_parse_arguments(P "" "" "SOURCES;LIBRARIES" ${ARGN})
  add_library(af_${name} MODULE ${P_SOURCES})
  if(TARGET AssetForge::sdk)
    target_link_libraries(af_${name} PRIVATE AssetForge::sdk)
  endif()
  target_link_libraries(af_${name} PRIVATE ${P_LIBRARIES})
  set_target_properties(af_${name} PROPERTIES
    PREFIX ""
    CXX_VISIBILITY_PRESET hidden
    C_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
    target_link_options(af_${name} PRIVATE -Wl,--no-undefined)
  endif()
  if(DEFINED AF_PLUGIN_OUTPUT_DIR)
    set_target_properties(af_${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${AF_PLUGIN_OUTPUT_DIR})
  endif()
  if(DEFINED AF_PLUGIN_INSTALL_DIR)
    install(TARGETS af_${name} LIBRARY DESTINATION ${AF_PLUGIN_INSTALL_DIR})
  endif()
endfunction()
