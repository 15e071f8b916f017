// A plugin stage's `run` as the engine sees it: the same C signature, answered by the stage in its plugin's worker
// (third-party ones, and under --isolate all bundled ones that open no files) or, in process, under the crash handler.
// This is the one place a stage's run pointer is replaced, and the worker side knows the stage by (plugin, index in the
// plugin) alone: for a stage that runs in a worker the host never calls the plugin's own pointer, so the host's table
// may have none.
#pragma once

#include "assetforge/plugin_abi.h"

#include <cstdint>

namespace af::host {
struct LoadedPlugin;
}

namespace af::host::isolation {

// Replaces s.run (stage `index` of `plugin`) with a routing trampoline. There is room for a fixed number of
// stages; past it a stage keeps its direct entry point (in process, not isolated).
void route_stage(const LoadedPlugin& plugin, uint32_t index, af_stage& s);

} // namespace af::host::isolation
