#include "load/output_placeholders.hpp"

#include "base/output_template.hpp"

#include <algorithm>

namespace af::load {

std::optional<std::vector<std::string>> job_placeholders(const Job& job, const steps::StepTable& steps) {
    std::vector<std::string> known = {"dir", "stem", "ext", "name", "path", "job"};
    // The build sets these only where an item comes from one input file.
    if (!job.is_gather())
        for (const char* k : {"input_dir", "input_stem", "input_name", "input_ext"}) known.emplace_back(k);
    auto add = [&](const std::optional<std::vector<std::string>>& keys) {
        if (!keys) return false;
        for (const auto& k : *keys)
            if (std::find(known.begin(), known.end(), k) == known.end()) known.push_back(k);
        return true;
    };
    std::vector<const StepUse*> uses;
    for (const auto& s : job.steps) uses.push_back(&s);
    if (job.is_gather()) uses.push_back(&job.gather);
    for (const StepUse* u : uses) {
        // Metadata a step copies or drops is not tracked: a key counts once any step may set it.
        if (!u->def || !add(u->def->meta_keys)) return std::nullopt;
        if (u->def->takes_texture && !add(steps.reader_meta_keys)) return std::nullopt;
    }
    return known;
}

void check_output_placeholders(const Job& job, const steps::StepTable& steps) {
    auto known = job_placeholders(job, steps);
    if (!known) return;
    for (const auto& name : base::OutputTemplate::parse(job.output).placeholders())
        if (std::find(known->begin(), known->end(), name) == known->end())
            throw base::ConfigError(job.output_pos, base::not_one_of("output placeholder", name, *known) +
                                                        (job.is_gather() && name.rfind("input_", 0) == 0
                                                             ? " (a gather job's output is one item, with no "
                                                               "input file of its own)"
                                                             : ""));
}

} // namespace af::load
