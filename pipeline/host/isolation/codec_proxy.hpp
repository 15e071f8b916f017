// A sealed (third-party) plugin's codecs as the host sees them: the same C signatures, each call answered by the
// plugin in a worker. The surfaces cross as memory files: the source a copy, the destination one the host made at
// the size it allocated, which the worker writes in place and the host copies out of.
#pragma once

#include "assetforge/plugin_abi.h"

#include <cstdint>

namespace af::host {
struct LoadedPlugin;
}

namespace af::host::isolation {

// Replaces c's decode and encode (codec `index` of `plugin`) with trampolines to its workers. There is room for a
// fixed number of codecs; past it a codec keeps its placeholders, which fail naming why.
void route_codec(const LoadedPlugin& plugin, uint32_t index, af_codec& c);

} // namespace af::host::isolation
