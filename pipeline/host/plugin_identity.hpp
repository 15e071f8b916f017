// Who a loaded plugin is, as action keys record it: "name@version#binaryhash",
// so a new version or a rebuilt binary rebuilds what it made.
#pragma once

#include "host/plugin_registry.hpp"

#include <string>

namespace af::host {

inline std::string plugin_identity(const LoadedPlugin& p) {
    return p.name + "@" + p.version + "#" + p.binary_hash.hex().substr(0, 16);
}

} // namespace af::host
