// The plan: before any action runs, what each job reads and writes, checked
// against the promises of a build (docs/promises.md): no output over an
// input, no glob reading outputs it did not declare, no two jobs writing one
// path, no pattern that matches nothing.
#pragma once

#include "base/glob.hpp"
#include "base/output_template.hpp"
#include "engine/state_store.hpp"
#include "load/config.hpp"

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace af::engine {

// A job whose steps start on a texture builds the pictures of a multi-surface
// texture (base/surface_names.hpp) it globs as one action on the texture's name.
bool assembles_surfaces(const load::Job& j);

struct PlanJob {
    const load::Job* job = nullptr;
    base::OutputTemplate tpl;
    std::string out_base;                 // absolute fixed directory of the template
    bool keeps_names = false;             // every step passes items on 1 → 1 under their own names
    bool late = false;                    // `needs`: its globs are expanded again when those jobs finish
    bool selected = true;                 // runs in this build (false: left out by --job; its outputs still count)
    std::vector<base::GlobMatch> matches; // in: as globbed; out: the job's inputs
    std::vector<size_t> per_pattern;      // files each pattern matched, before the plan filtered them
    // out: the job's outputs, known before it runs (its templates use only
    // the input's name); `predictable` false when steps or placeholders decide
    // names only at run time.
    bool predictable = false;
    std::vector<std::pair<std::string, std::string>> predicted; // (absolute output, input relative to the root)
};

// What the state recorded at each output path.
struct Recorded {
    enum class Kind : uint8_t {
        Own,
        Foreign,
        Gone
    } kind = Kind::Own; // this configuration's, another's, a vanished job's
    std::string job;
    Hash128 hash; // what the build wrote there, and the file's stat then
    FileStat st;
};
struct PlanState {
    std::unordered_map<std::string, Recorded> recorded; // absolute output path → who recorded it
};

struct Plan {
    int exit_code = 0; // 2: the pipeline breaks a promise; 1: an input pattern matched nothing
    std::vector<std::string> errors;
    std::vector<std::string> notes;
    // Every predicted output (absolute) → (index in the jobs, index in its `predicted`).
    std::unordered_map<std::string, std::pair<uint32_t, uint32_t>> writer;
    // Outputs of jobs no longer in the pipeline that a job now reads: sources
    // from now on, never removed as stale (absolute).
    std::unordered_set<std::string> adopted;
    // "job: input" of the action that writes `path`, or "" if none is predicted to.
    std::string claimant(const std::vector<PlanJob>& jobs, const std::string& path) const;
    // Whether the plan gives `path` to an action other than `who` ("job: input"), without building its name.
    bool claimed_by_other(const std::vector<PlanJob>& jobs, const std::string& path, std::string_view who) const;
};

// Filters each job's matches (its own outputs, outputs of other
// configurations and of vanished jobs, outputs delivered by `from`) and
// checks the rest. `jobs` in dependency order.
// `reserved`: paths no output may have (reserved_paths.hpp).
struct ReservedPaths;
// `cancelled`: polled job by job (Ctrl-C takes effect within the plan).
Plan make_plan(std::vector<PlanJob>& jobs, const PlanState& state, const std::filesystem::path& root,
               const ReservedPaths* reserved = nullptr, const std::function<bool()>& cancelled = {});

// Why the job's inputs are refused: one message per pattern that matched
// nothing (per_pattern from expand_globs), unless the job allows that.
std::vector<std::string> empty_patterns(const load::Job& job, const std::vector<size_t>& per_pattern);

// Drops from a late job's fresh matches what make_plan drops (used when a
// `needs` job expands its globs after the jobs it waits for); `claimed`
// holds outputs actions of this build wrote ("job: input" by path).
void filter_matches(PlanJob& job, const PlanState& state, const std::unordered_map<std::string, std::string>& claimed);

} // namespace af::engine
