// A container's entry points as the rest of the host sees them: the same C
// signatures, answered by the plugin in a worker process or, in process,
// under the crash handler. The engine cannot tell the difference.
#pragma once

#include "assetforge/plugin_abi.h"

#include <cstdint>
#include <string>

namespace af::host {
struct LoadedPlugin;
}

namespace af::host::isolation {

// Replaces c's probe, read, write and info (container `index` of `plugin`)
// with routing trampolines. There is room for a fixed number of containers;
// past it a container keeps its direct entry points (and is not isolated).
void route_container(const LoadedPlugin& plugin, uint32_t index, af_container& c);

// c.read, bounded by c.dims when the container has that entry: the read may
// hold no more from host->alloc than read_allowance() of what dims declared;
// past it alloc returns NULL and the read fails with a message naming
// `plugin`. In process here, and the same in a plugin worker.
af_status read_within_dims(const af_container& c, const std::string& plugin, const af_host* host, const af_input* in,
                           const af_options* opts, af_texture* out, af_error* e);

} // namespace af::host::isolation
