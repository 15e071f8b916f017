# assetforge_add_plugin(NAME SOURCES file... [LIBRARIES lib...])
# Builds a plugin shared library named af_NAME that the host can load.
# Only the entry symbol is exported; everything else stays hidden, so two
# plugins that link the same static code never clash.
#
# Hidden visibility alone leaves exported whatever the plugin's static
# libraries were compiled without it, template instances and typeinfo that
# libstdc++ headers mark default, and GNU unique objects: hundreds of symbols
# that another plugin's copy could interpose. The linker's version script
# decides at link time, whatever the objects say.
function(assetforge_add_plugin name)
  cmake_parse_arguments(P "" "" "SOURCES;LIBRARIES" ${ARGN})
  set(exports "${CMAKE_BINARY_DIR}/assetforge_plugin_exports.map")
  file(CONFIGURE OUTPUT "${exports}" CONTENT "{\n  global: assetforge_plugin_entry;\n  local: *;\n};\n")
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
    target_link_options(af_${name} PRIVATE -Wl,--no-undefined "-Wl,--version-script=${exports}")
    set_property(TARGET af_${name} APPEND PROPERTY LINK_DEPENDS "${exports}")
  endif()
  if(DEFINED AF_PLUGIN_OUTPUT_DIR)
    set_target_properties(af_${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${AF_PLUGIN_OUTPUT_DIR})
  endif()
  if(DEFINED AF_PLUGIN_INSTALL_DIR)
    install(TARGETS af_${name} LIBRARY DESTINATION ${AF_PLUGIN_INSTALL_DIR})
  endif()
endfunction()
