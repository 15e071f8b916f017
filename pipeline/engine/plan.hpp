// The plan: before any action runs, what each job reads and writes, checked
// against the promises of a build (pipeline/engine/README.md, "What a build
// promises"): no output over an input, no glob reading outputs it did not
// declare, no two jobs writing one path, no pattern that matches nothing.
#pragma once

#include "engine/config.hpp"
#include "engine/glob.hpp"
#include "engine/output_template.hpp"

#include <filesystem>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace af::engine {

struct PlanJob {
    const Job* job = nullptr;
    OutputTemplate tpl;
    std::string out_base;              // absolute fixed directory of the template
    bool keeps_names = false;          // every step passes items on 1 → 1 under their own names
    bool late = false;                 // `needs`: its globs are expanded again when those jobs finish
    bool selected = true;              // runs in this build (false: left out by --job; its outputs still count)
    std::vector<GlobMatch> matches;    // in: as globbed; out: the job's inputs
    std::vector<size_t> per_pattern;   // files each pattern matched, before the plan filtered them
    // out: the job's outputs, known before it runs (its templates use only
    // the input's name); `predictable` false when steps or placeholders decide
    // names only at run time.
    bool predictable = false;
    std::vector<std::pair<std::string, std::string>> predicted; // (absolute output, input relative to the root)
};

struct PlanState {
    std::unordered_map<std::string, std::string> own_outputs; // absolute path → job, this configuration's records
    std::unordered_set<std::string> foreign_outputs;          // absolute paths other configurations recorded
    std::unordered_set<std::string> gone_outputs;             // outputs of jobs no longer in the pipeline
};

struct Plan {
    int exit_code = 0;                 // 2: the pipeline breaks a promise; 1: an input pattern matched nothing
    std::vector<std::string> errors;
    std::vector<std::string> notes;
    std::unordered_map<std::string, std::string> claimed; // absolute output → "job: input" of its action
    std::unordered_set<std::string> sources;               // inputs (absolute) that no job writes
};

// Filters each job's matches (its own outputs, outputs of other
// configurations, outputs delivered by `from`) and checks the rest.
// `jobs` in dependency order.
Plan make_plan(std::vector<PlanJob>& jobs, const PlanState& state, const std::filesystem::path& root);

// Drops from a late job's fresh matches what make_plan drops (used when a
// `needs` job expands its globs after the jobs it waits for).
void filter_matches(PlanJob& job, const std::vector<PlanJob>& all, const PlanState& state,
                    const std::unordered_map<std::string, std::string>& claimed);

} // namespace af::engine
