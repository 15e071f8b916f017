# Fails when a plugin's link line names the core library or TBB: plugins reach
# core functionality through af_host services and TBB through
# af_host.parallel_for, so a plugin built out of tree gets the same SDK.
#
#   cmake -DBUILD_DIR=… -DPLUGINS="af_bc=<binary dir>;…" -DEXCEPTIONS="af_xtf" -P plugin_link_check.cmake
#
# Reads the link step CMake generated for each plugin: build.ninja (Ninja) or
# the target's link.txt (Makefiles), i.e. the exact command the linker runs,
# transitive libraries included.
cmake_minimum_required(VERSION 3.20)
set(forbidden "assetforge_core|[Tt][Bb][Bb]")

if(EXISTS "${BUILD_DIR}/build.ninja")
  file(READ "${BUILD_DIR}/build.ninja" ninja)
endif()

set(failed "")
set(checked 0)
foreach(entry IN LISTS PLUGINS)
  string(REPLACE "=" ";" parts "${entry}")
  list(GET parts 0 target)
  list(GET parts 1 dir)
  set(line "")
  if(DEFINED ninja)
    # The build statement of the module and its indented variables, up to the blank line after them.
    string(REGEX MATCH "\nbuild [^\n]*: [A-Z_]*MODULE_LIBRARY_LINKER__${target}_[^\n]*(\n  [^\n]*)*" line "${ninja}")
  elseif(EXISTS "${dir}/CMakeFiles/${target}.dir/link.txt")
    file(READ "${dir}/CMakeFiles/${target}.dir/link.txt" line)
  endif()
  if(line STREQUAL "")
    message(SEND_ERROR "${target}: no link step found (generator not supported, or not configured)")
    continue()
  endif()
  math(EXPR checked "${checked} + 1")
  string(REGEX MATCHALL "[^ \n|]*(${forbidden})[^ \n|]*" hits "${line}")
  list(REMOVE_DUPLICATES hits)
  if(target IN_LIST EXCEPTIONS)
    if(hits)
      message(STATUS "${target}: known exception, still links ${hits}")
    else()
      message(STATUS "${target}: listed as an exception but its link line is clean: remove it from the list")
    endif()
  elseif(hits)
    list(APPEND failed "${target}")
    message(SEND_ERROR "${target} links ${hits}")
  else()
    message(STATUS "${target}: clean")
  endif()
endforeach()
if(checked EQUAL 0)
  message(FATAL_ERROR "no plugin link line checked")
endif()
