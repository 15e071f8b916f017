// Steps that read, convert and write textures through the plugin host:
// read, decode, encode, mips, resize, channels, write, extract; plus the
// implicit reader/writer and every stage plugins provide.
#pragma once

#include "host/plugin_identity.hpp"
#include "host/plugin_registry.hpp"
#include "steps/step.hpp"

#include <string>

namespace af::steps {

void add_texture_steps(StepTable& table, const host::PluginRegistry& reg);
void add_plugin_stages(StepTable& table, const host::PluginRegistry& reg);
// One plugin stage as a step (what add_plugin_stages adds for each).
StepDef plugin_stage_step(const af_stage& st, const host::LoadedPlugin& plugin);

// A plugin's identity is the host's (host/plugin_registry.hpp); the steps name it here too.
using host::plugin_identity;

} // namespace af::steps
