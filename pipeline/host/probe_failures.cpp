#include "host/probe_failures.hpp"

#include "assetforge/plugin_abi.h"
#include "host/host_services.hpp"
#include "host/plugin_registry.hpp"

#include <mutex>
#include <set>
#include <utility>

namespace af::host {
namespace {

thread_local ProbeFailures* t_collector = nullptr;

struct Said {
    std::mutex mutex;
    std::set<std::pair<std::string, int>> warned;           // plugin name, kind
    std::set<std::pair<std::string, std::string>> timeouts; // plugin name, what it was given
};

Said& said() {
    static Said s;
    return s;
}

void say(const LoadedPlugin& plugin, ProbeFailure kind, const std::string& text) {
    {
        std::lock_guard lock(said().mutex);
        if (!said().warned.emplace(plugin.name, int(kind)).second) return;
    }
    services()->log(AF_LOG_WARN, text.c_str());
}

} // namespace

void report_probe_failure(const LoadedPlugin& plugin, ProbeFailure kind, const std::string& probed,
                          const std::string& text) {
    if (kind == ProbeFailure::TimedOut) {
        std::lock_guard lock(said().mutex);
        said().timeouts.emplace(plugin.name, probed);
    }
    if (t_collector)
        t_collector->pending_.push_back({&plugin, kind, text});
    else
        say(plugin, kind, text);
}

bool probe_timed_out_before(const LoadedPlugin& plugin, const std::string& probed) {
    std::lock_guard lock(said().mutex);
    return said().timeouts.count({plugin.name, probed}) != 0;
}

ProbeFailures::ProbeFailures() : previous_(t_collector) { t_collector = this; }

ProbeFailures::~ProbeFailures() { t_collector = previous_; }

void ProbeFailures::settle(const LoadedPlugin* claimant) {
    std::vector<Pending> pending = std::move(pending_);
    pending_.clear();
    for (const Pending& p : pending)
        if (p.kind == ProbeFailure::TimedOut || !claimant) say(*p.plugin, p.kind, p.text);
}

void forget_probe_failures() {
    std::lock_guard lock(said().mutex);
    said().warned.clear();
    said().timeouts.clear();
}

} // namespace af::host
