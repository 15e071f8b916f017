// Remote cache entries come from a server we do not trust: arbitrary bytes must decode to nothing or to an
// entry that, once it passes check_entry, survives an encode/decode round trip unchanged; and the engine's
// acceptance rule (engine/cached_entry_paths.hpp) takes an entry for an action only when an independent,
// simpler statement of the rule does: exactly the predicted outputs, or, for names decided at run time, paths
// of the template's shape for this action's input that nothing else holds.
#include "engine/cached_entry_paths.hpp"
#include "remote/action_result.hpp"
#include "remote/entry_checks.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

namespace {

using af::base::OutputTemplate;
using af::engine::CachedOutputRule;

bool no_tool_names(const std::string& p) {
    for (size_t start = 0; start <= p.size();) {
        size_t end = p.find('/', start);
        if (end == std::string::npos) end = p.size();
        const std::string part = p.substr(start, end - start);
        if (part.rfind(".af-tmp", 0) == 0 || part == ".assetforge") return false;
        start = end + 1;
    }
    return true;
}

bool distinct(const std::vector<std::string>& paths) {
    return std::set(paths.begin(), paths.end()).size() == paths.size();
}

// out/{dir}/{stem}.dds for input sub/a.png: only out/sub/a.dds.
bool predicted_oracle(const std::vector<std::string>& paths) {
    return paths == std::vector<std::string>{"out/sub/a.dds"};
}

// out/{input_stem}/{stem}_{mip}.png for input a.png, out/a/a_9.png held by another action:
// out/a/a_<one or more characters, no '/'>.png, each once, not the one held, no '.'/'..' tricks.
bool run_time_oracle(const std::vector<std::string>& paths) {
    if (paths.empty() || !distinct(paths)) return false;
    const std::string head = "out/a/a_", tail = ".png";
    for (const auto& p : paths) {
        if (p.size() <= head.size() + tail.size() || p.compare(0, head.size(), head) != 0 ||
            p.compare(p.size() - tail.size(), tail.size(), tail) != 0)
            return false;
        const std::string mip = p.substr(head.size(), p.size() - head.size() - tail.size());
        if (mip.find('/') != std::string::npos || p == "out/a/a_9.png" || !no_tool_names(p)) return false;
    }
    return true;
}

void check_rule(const std::vector<std::string>& paths) {
    {
        const auto tpl = OutputTemplate::parse("out/{dir}/{stem}.dds");
        CachedOutputRule rule;
        rule.project_root = "/p";
        rule.out_base = "/p/out";
        rule.tpl = &tpl;
        rule.predicted = af::engine::predicted_outputs(tpl, false, true, "sub/a.png", "tex", "/p");
        rule.fixed = af::engine::input_name_values(false, "sub/a.png", "tex");
        rule.taken = [](const std::string&) { return true; }; // never asked: the outputs are predicted
        if (af::engine::cached_paths_problem(rule, paths).empty() != predicted_oracle(paths)) std::abort();
    }
    {
        const auto tpl = OutputTemplate::parse("out/{input_stem}/{stem}_{mip}.png");
        CachedOutputRule rule;
        rule.project_root = "/p";
        rule.out_base = "/p/out";
        rule.tpl = &tpl;
        rule.predicted = af::engine::predicted_outputs(tpl, false, false, "a.png", "tex", "/p");
        if (rule.predicted) std::abort(); // {mip} is named at run time
        rule.fixed = af::engine::input_name_values(false, "a.png", "tex");
        rule.taken = [](const std::string& abs) {
            if (abs.rfind("/p/out/", 0) != 0) std::abort(); // asked only about paths below the output folder
            return abs == "/p/out/a/a_9.png";
        };
        if (af::engine::cached_paths_problem(rule, paths).empty() != run_time_oracle(paths)) std::abort();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string why;
    const auto entry = af::remote::decode_action_result({reinterpret_cast<const char*>(data), size}, &why);
    if (!entry || af::remote::check_entry(*entry, int64_t{1} << 30)) return 0;
    const auto again = af::remote::decode_action_result(af::remote::encode_action_result(*entry), &why);
    if (!again || !(*again == *entry)) std::abort();
    std::vector<std::string> paths;
    for (const auto& f : entry->files) paths.push_back(f.path);
    check_rule(paths);
    return 0;
}
