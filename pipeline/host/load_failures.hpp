// Plugins that failed to load, said where it matters: when a file no container
// recognises, or a step no stage provides, might have been theirs.
#pragma once

#include "host/plugin_registry.hpp"

#include <string>

namespace af::host {

// " (N plugin(s) failed to load: PATH: REASON; …; see `assetforge plugins`)" the
// first time in a process, "" afterwards and when every plugin loaded.
std::string failed_loads_note(const PluginRegistry& reg);

} // namespace af::host
