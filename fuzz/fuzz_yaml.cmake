# The pipeline YAML loader (pipeline/load/config.*): includes among the
# harness's own temp files only, vars, presets, output templates.
if(TARGET assetforge_engine)
  af_fuzzer(fuzz_yaml SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_yaml.cpp LIBRARIES assetforge_engine)
endif()
