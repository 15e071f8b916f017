// A container's entry points as the rest of the host sees them: the same C
// signatures, answered by the plugin in a worker process or, in process,
// under the crash handler. The engine cannot tell the difference.
#pragma once

#include "assetforge/plugin_abi.h"

#include <cstdint>

namespace af::host {
struct LoadedPlugin;
}

namespace af::host::isolation {

// Replaces c's probe, read, write and info (container `index` of `plugin`)
// with routing trampolines. There is room for a fixed number of containers;
// past it a container keeps its direct entry points (and is not isolated).
void route_container(const LoadedPlugin& plugin, uint32_t index, af_container& c);

} // namespace af::host::isolation
