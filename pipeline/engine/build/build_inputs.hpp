// A build's jobs before they run: each job's inputs (its globs, on the
// build's own terms: never the state folder or the report's pictures), the
// plan that checks them against the promises (plan.hpp), and, with --shard,
// which sources are this shard's.
#pragma once

#include "base/build_options.hpp"
#include "base/glob.hpp"
#include "engine/disk.hpp"
#include "engine/job_run.hpp"
#include "engine/plan.hpp"
#include "engine/project_paths.hpp"
#include "engine/reserved_paths.hpp"

#include <functional>
#include <iosfwd>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace af::report {
class BuildStatus;
}

namespace af::engine {

class Disk;
class OutputCommit;
class StateStore;

// A job's globs (per_pattern: files each pattern matched; may be null).
using InputGlob = std::function<std::vector<base::GlobMatch>(const load::Job&, std::vector<size_t>* per_pattern)>;
// The real file system's, below `root`; `witness` (may be null) is told what it lists.
InputGlob file_system_glob(std::filesystem::path root, base::GlobWitness* witness = nullptr);

class BuildInputs {
  public:
    // `report_dir`: the HTML report's pictures folder ("" without one).
    BuildInputs(const load::Pipeline& p, const base::BuildOptions& opt, ProjectPaths paths, InputGlob glob,
                std::string report_dir);

    // A --state-dir that holds a job's inputs, found before the lock and the
    // state are created there (the plan's own check comes too late for
    // that); says so on `err`.
    bool state_dir_holds_inputs(std::ostream& err);
    // The job graph, and every job's globs (`needs` jobs and jobs left out by
    // --job too: the plan checks what each reads against what every job writes).
    void expand_jobs(const Disk& disk);
    // Before anything runs: the plan, checked against the promises; the
    // commit is set up from it. False when the build must not start.
    bool plan(StateStore& store, Disk& disk, report::BuildStatus& status, std::optional<OutputCommit>& commit);

    // A `needs` job's inputs, once the jobs it needs are complete.
    std::vector<Input> late_inputs(JobRun& j, const OutputCommit& commit);
    // --shard: whether an action on this input is this shard's.
    bool in_shard(const Input& in) const;

    // The report's pictures folder could not be made: nothing there to skip.
    void forget_report_dir() { report_dir_.clear(); }

    std::vector<JobRun>& runs() { return runs_; }
    const PlanState& plan_state() const { return plan_state_; }

  private:
    void setup_jobs();
    std::vector<base::GlobMatch> expand(const load::Job& j, std::vector<size_t>* per_pattern);
    std::vector<Input> to_inputs(std::vector<base::GlobMatch> matches, const load::Job& j) const;
    std::vector<std::tuple<std::string, std::string, std::string, std::string>>
    load_recorded(const StateStore& store, const std::set<std::string>& names);
    void check_side_files();
    void assign_shards_by_size(const Disk& disk);
    std::string state_dir_refusal(const std::string& shown) const;

    const load::Pipeline& p_;
    const base::BuildOptions& opt_;
    ProjectPaths paths_;
    InputGlob glob_;
    std::string report_dir_;
    std::vector<JobRun> runs_;
    std::vector<PlanJob> plan_jobs_;
    PlanState plan_state_;
    ReservedPaths reserved_;
    Plan plan_;
    std::unordered_map<std::string, int> shards_;                       // --shard: source → shard
    std::mutex state_inputs_mu_;                                        // late globs run on worker threads
    std::vector<std::pair<std::string, std::string>> state_dir_inputs_; // (job, file) a glob found in the state folder
};

// `status`: outputs other configurations of this output folder recorded.
void report_orphans(const StateStore& store, report::BuildStatus& status);

} // namespace af::engine
