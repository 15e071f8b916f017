// The build's view of a job while it runs (its place in the job graph and
// the inputs waiting for it) and of one action's inputs and outcome. Shared
// by the scheduler, which moves inputs between jobs, and the build, which
// decides and runs each action.
#pragma once

#include "base/output_template.hpp"
#include "core/content_hash.hpp"
#include "engine/build.hpp"
#include "engine/param_inputs.hpp"

#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

namespace af::engine {

struct PlanJob;

struct Input {
    std::string rel;             // relative to the project root (or absolute outside it)
    std::string abs;             // a string, not fs::path: a no-op build makes 10,000s
    std::string name;            // item name: relative to the glob base / upstream output directory
    std::string origin;          // the source file its chain started from: what --shard assigns
    std::optional<Hash128> hash; // known for upstream outputs
    bool will_change = false;    // dry run: the upstream action would rebuild it
    std::string link_escape;     // a link out of the input root: the action fails with this
    bool counted = false;        // the progress total already expects an action to run on it
    uint64_t bytes = 0;          // its size, when the up-to-date check stat'ed it (0: not known): weighs the ETA
    std::optional<FileStat> st;  // taken as the inputs were globbed, while the state loaded: not taken again
    // A picture of one surface of a texture (base/surface_names.hpp) in a job that assembles them: the
    // texture's item name ("env/sky.png") and path, which name the one action of all its pictures.
    std::string set, set_rel;
};

// A decided (and perhaps run) action and the outputs it hands downstream.
struct ActionOutcome {
    base::ActionResult res;
    std::vector<Input> produced;
    bool failed = false;
    bool must_run = false;      // checked only: out of date, to run as a task of its own
    std::vector<Input> pending; // must_run: its inputs
};

struct JobRun {
    // What the build fixed for the job before it started.
    const load::Job* job = nullptr;
    PlanJob* plan = nullptr;
    std::vector<ParamRead> param_reads; // files and folders step parameters name: part of each action's key
    base::OutputTemplate tpl;
    std::string out_base; // absolute fixed directory of the output template, normal
    Hash128 signature;    // normalised steps, versions, template

    // The scheduler's state (under its lock).
    std::vector<JobRun*> from_down, dependents;
    int pending_from = 0, pending_needs = 0;
    bool expanded = false, sealed = false, complete = false;
    bool had_failure = false, upstream_failed = false, expand_failed = false;
    std::string failed_upstream; // the job upstream that failed, when upstream_failed (what messages name)
    int outstanding = 0;
    std::vector<Input> buffered, gathered, prefetched;
    bool has_prefetched = false;
    bool gather_counted = false;          // the progress total expects this gather to run
    std::unordered_set<std::string> seen; // inputs an action of this build looked at
};

} // namespace af::engine
