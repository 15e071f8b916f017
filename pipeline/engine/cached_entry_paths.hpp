// Which paths a remote cache entry may name for one action. Whoever can write to the cache decides what an
// entry says, so an entry is taken only when its paths are what this action would write here: exactly the
// outputs its template and steps predict, or, when steps name outputs at run time, paths the job's template can
// produce that no one else has (another action, a source, the build state). Anything else makes the entry a
// miss: the action is built locally, and a corrupt or hostile cache can never make a build fail or write
// where no template points.
#pragma once

#include "base/output_template.hpp"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace af::engine {

struct CachedOutputRule {
    std::string project_root; // absolute, normal
    std::string out_base;     // the template's fixed directory: absolute, normal
    const base::OutputTemplate* tpl = nullptr;
    // Absolute paths of the action's outputs when the template and steps decide them before it runs: an entry
    // must name exactly these, each once.
    std::optional<std::vector<std::string>> predicted;
    // Outputs named at run time: the values placeholders derived from the action's input name must take
    // ({input_stem}, {stem}, {dir}, ..., {job}), so that an entry cannot name another action's outputs.
    std::map<std::string, std::string> fixed;
    // Outputs named at run time: true for an absolute path this action may not take (another action's, a
    // source, the state folder, the pipeline...). Called only for paths that passed every other check.
    std::function<bool(const std::string& abs)> taken;
};

// The outputs an action writes, known before it runs: when the template uses only values from the input's
// name (or, for a gather, only {job}) and every step passes items on 1 → 1 under their own names. nullopt when
// steps decide names at run time (or a value is unsafe: the action then fails when it runs, naming it).
std::optional<std::vector<std::string>> predicted_outputs(const base::OutputTemplate& tpl, bool gather,
                                                          bool keeps_names, const std::string& input_name,
                                                          const std::string& job, const std::string& project_root);

// The values of the placeholders an action's input name decides (with {job}): for a gather only {job}.
std::map<std::string, std::string> input_name_values(bool gather, const std::string& input_name,
                                                     const std::string& job);

// Whether `abs` (absolute, normal) is a path `tpl` can produce under `project_root`: its literal text in place
// and in order, a placeholder in `fixed` standing for its value, any other for one or more characters ('/' only
// in {dir} {path} {input_dir}).
bool template_can_produce(const base::OutputTemplate& tpl, const std::string& project_root, const std::string& abs,
                          const std::map<std::string, std::string>& fixed = {});

// Why the entry's paths (relative, from the cache) are not this action's outputs; "" when they are.
std::string cached_paths_problem(const CachedOutputRule& rule, const std::vector<std::string>& rels);

} // namespace af::engine
