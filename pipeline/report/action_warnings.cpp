#include "report/action_warnings.hpp"

namespace af::engine {

std::vector<std::string> warnings_in(const nlohmann::json& metrics) {
    std::vector<std::string> out;
    if (metrics.is_object() && metrics.contains("warnings") && metrics["warnings"].is_array())
        for (const auto& w : metrics["warnings"]) out.push_back(w.is_string() ? w.get<std::string>() : w.dump());
    return out;
}

void put_kept_warnings(nlohmann::json& metrics, const std::vector<std::string>& warnings, const std::string& from) {
    if (warnings.empty()) return;
    metrics["warnings"] = warnings;
    metrics["warnings_from"] = from;
}

std::vector<std::string> warning_lines(const ActionResult& a) {
    std::vector<std::string> out = warnings_in(a.metrics);
    if (out.empty() || !a.metrics.contains("warnings_from") || !a.metrics["warnings_from"].is_string()) return out;
    const std::string mark = " (from " + a.metrics["warnings_from"].get<std::string>() + ")";
    for (auto& w : out) w += mark;
    return out;
}

std::vector<std::string> plugin_log_lines(const ActionResult& a) {
    std::vector<std::string> out;
    if (a.metrics.is_object() && a.metrics.contains("plugin_log") && a.metrics["plugin_log"].is_array())
        for (const auto& l : a.metrics["plugin_log"]) out.push_back(l.is_string() ? l.get<std::string>() : l.dump());
    return out;
}

} // namespace af::engine
