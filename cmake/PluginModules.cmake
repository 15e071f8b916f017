# The MODULE libraries (plugins) defined under plugins/, found from the
# directory properties, so a new plugin folder is picked up without an edit.
# Call after add_subdirectory(plugins).
function(af_plugin_modules out_var)
  set(modules "")
  get_property(dirs DIRECTORY ${PROJECT_SOURCE_DIR}/plugins PROPERTY SUBDIRECTORIES)
  foreach(dir IN LISTS dirs)
    get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
    foreach(t IN LISTS targets)
      get_target_property(type ${t} TYPE)
      if(type STREQUAL "MODULE_LIBRARY")
        list(APPEND modules ${t})
      endif()
    endforeach()
  endforeach()
  set(${out_var} ${modules} PARENT_SCOPE)
endfunction()
