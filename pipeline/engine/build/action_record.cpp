#include "engine/build/action_record.hpp"

#include <algorithm>

namespace af::engine {

std::string join_tools(std::vector<std::string> tools) {
    std::sort(tools.begin(), tools.end());
    tools.erase(std::unique(tools.begin(), tools.end()), tools.end());
    std::string s;
    for (const auto& t : tools) s += (s.empty() ? "" : ";") + t;
    return s;
}

ActionRecord built_record(BuiltAction a) {
    ActionRecord r;
    r.job = std::move(a.job);
    r.input = std::move(a.input);
    r.key = a.key;
    r.input_hash = a.input_hash;
    r.params_hash = a.params_hash;
    r.tools = join_tools(std::move(a.tools));
    r.outputs = std::move(a.written);
    r.status = ActionRecord::Status::Built;
    r.warnings = std::move(a.warnings);
    r.duration_ms = a.duration_ms;
    return r;
}

ActionRecord failed_record(const std::string& job, const std::string& input, const std::vector<OutputRecord>& written,
                           const std::shared_ptr<const ActionRecord>& previous, std::string error, double duration_ms) {
    ActionRecord r;
    r.job = job;
    r.input = input;
    r.outputs = written;
    if (previous)
        for (const auto& o : previous->outputs)
            if (std::none_of(written.begin(), written.end(), [&](auto& w) { return w.path == o.path; }))
                r.outputs.push_back(o);
    r.status = ActionRecord::Status::Failed;
    r.error = std::move(error);
    r.duration_ms = duration_ms;
    return r;
}

} // namespace af::engine
