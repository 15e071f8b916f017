// The step table that `build`, `status`, `clean` and `steps` use: the
// engine's steps, the texture steps and every loaded plugin's stages.
#pragma once

#include "host/plugin_registry.hpp"
#include "steps/step.hpp"

namespace af::steps {

// Throws StepNameTaken when a plugin stage has the name of a built-in step or
// of another plugin's stage: skipping either would change what a pipeline
// runs depending on which plugins happen to be installed.
StepTable pipeline_steps(const host::PluginRegistry& reg);

} // namespace af::steps
