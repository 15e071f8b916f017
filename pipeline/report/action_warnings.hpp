// An action's warnings: what a step discarded (alpha, a channel, bit depth).
// They belong to the outputs, not to the run that made them, so an action
// that did not run here (up to date, or a remote cache hit) carries those of
// the build that made its outputs, and every report marks where they came from.
#pragma once

#include "base/build_result.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace af::engine {

// metrics["warnings"] as text, unmarked: what is kept with the action's record and cache entry.
std::vector<std::string> warnings_in(const nlohmann::json& metrics);

// Gives an action that did not run the warnings its outputs were made with;
// `from` is "an earlier build" or "the remote cache". No warnings: no change.
void put_kept_warnings(nlohmann::json& metrics, const std::vector<std::string>& warnings, const std::string& from);

// Each warning as shown to the user: "alpha dropped … (from an earlier build)".
std::vector<std::string> warning_lines(const ActionResult& a);

// The plugin log lines below warning level the action's run printed
// (metrics["plugin_log"]), each naming the file and the plugin.
std::vector<std::string> plugin_log_lines(const ActionResult& a);

} // namespace af::engine
