#include "steps/pipeline_steps.hpp"

#include "steps/texture_steps.hpp"

namespace af::steps {

StepTable pipeline_steps(const host::PluginRegistry& reg) {
    StepTable steps;
    add_engine_steps(steps);
    add_texture_steps(steps, reg);
    add_plugin_stages(steps, reg);
    return steps;
}

} // namespace af::steps
