#include "host/load_failures.hpp"

#include <atomic>

namespace af::host {

std::string failed_loads_note(const PluginRegistry& reg) {
    static std::atomic<bool> said{false};
    if (reg.failures().empty() || said.exchange(true)) return "";
    std::string note = " (" + std::to_string(reg.failures().size()) + " plugin" +
                       (reg.failures().size() == 1 ? "" : "s") + " failed to load: ";
    bool first = true;
    for (const auto& f : reg.failures()) {
        note += (first ? "" : "; ") + f.path.filename().string() + ": " + f.reason;
        first = false;
    }
    return note + "; see `assetforge plugins`)";
}

} // namespace af::host
