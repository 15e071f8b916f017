// Steps that read, convert and write textures through the plugin host:
// read, decode, encode, mips, resize, channels, write, extract; plus the
// implicit reader/writer and every stage plugins provide.
#pragma once

#include "host/plugin_registry.hpp"
#include "steps/step.hpp"

#include <string>

namespace af::engine {

void add_texture_steps(StepTable& table, const host::PluginRegistry& reg);
void add_plugin_stages(StepTable& table, const host::PluginRegistry& reg);
// One plugin stage as a step (what add_plugin_stages adds for each).
StepDef plugin_stage_step(const af_stage& st, const host::LoadedPlugin& plugin);

// "name@version#binaryhash": what action keys record for a plugin.
std::string plugin_identity(const host::LoadedPlugin& p);

} // namespace af::engine
