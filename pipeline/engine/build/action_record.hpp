// The records a build keeps of its actions, made here alone: what a built
// action wrote and from what, or, for a failed one, every output it ever
// wrote (so a later removal of its input still cleans them up).
#pragma once

#include "engine/state_store.hpp"

#include <memory>
#include <string>
#include <vector>

namespace af::engine {

struct BuiltAction {
    std::string job, input;
    Hash128 key, input_hash, params_hash;
    std::vector<std::string> tools; // as the steps named them: sorted and joined here
    std::vector<OutputRecord> written;
    std::vector<std::string> warnings;
    double duration_ms = 0;
};
ActionRecord built_record(BuiltAction a);

// `previous`: the action's last record, whose outputs are kept besides `written`.
ActionRecord failed_record(const std::string& job, const std::string& input, const std::vector<OutputRecord>& written,
                           const std::shared_ptr<const ActionRecord>& previous, std::string error, double duration_ms);

// "a;b;c": the tools, sorted, each once (the form ActionRecord::tools keeps).
std::string join_tools(std::vector<std::string> tools);

} // namespace af::engine
