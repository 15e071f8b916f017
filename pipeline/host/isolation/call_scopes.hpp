// Codecs run in process (they are not isolated yet): their entry points are
// wrapped so that the crash handler and log lines know which plugin call a
// thread is in. Stages are routed in stage_proxy.hpp.
#pragma once

#include "assetforge/plugin_abi.h"

namespace af::host {
struct LoadedPlugin;
}

namespace af::host::isolation {

void scope_codec(const LoadedPlugin& plugin, af_codec& c);

} // namespace af::host::isolation
