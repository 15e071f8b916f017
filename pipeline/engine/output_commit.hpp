// Putting an action's outputs in place and keeping the promises of a build
// about files (docs/promises.md): every output is checked before the first
// is written, so an action that may not replace one of them changes none;
// written atomically; never over an input or an edit; stale outputs removed
// only when they still hold what the build wrote; two actions never write one
// path. The state store records it all.
#pragma once

#include "engine/action_runner.hpp"
#include "engine/disk.hpp"
#include "engine/job_run.hpp"
#include "engine/param_inputs.hpp"
#include "engine/plan.hpp"
#include "engine/project_paths.hpp"
#include "engine/reserved_paths.hpp"
#include "engine/state_store.hpp"
#include "report/build_status.hpp"

#include <array>
#include <filesystem>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace af::engine {

// The rule for removing an output the state recorded, which stale-output
// removal and `clean` share: an edit is never discarded silently. True when
// the file at `abs` still holds what the build wrote (its stat is the one
// recorded, or else its bytes hash as recorded) or is gone.
bool holds_what_was_written(const Disk& disk, const OutputRecord& o, const std::string& abs);

class OutputCommit {
  public:
    struct Options {
        bool overwrite_edited = false;
        bool dry_run = false;
        const ReservedPaths* reserved = nullptr; // never written, whatever the flags
    };
    OutputCommit(Disk& disk, StateStore& store, ProjectPaths paths, std::filesystem::path output_root, const Plan& plan,
                 const std::vector<PlanJob>& plan_jobs, const PlanState& plan_state, report::BuildStatus& status,
                 Options opt);

    // An output another configuration recorded (relative path), and whose.
    void note_foreign(const std::string& rel, const std::string& owner, const std::string& job,
                      const std::string& input);

    // Two actions may not write the same file: throws when another action of
    // this build claimed `abs` or the plan predicts another writes it.
    void claim(const std::string& abs, const std::string& who);

    struct Committed {
        std::vector<OutputRecord> written; // as recorded: what is there now
        size_t kept_edits = 0;             // keep_edits: outputs left as the user edited them
    };
    // Claims, checks and writes an action's outputs. Throws, having written
    // nothing, when one of them may not be written.
    Committed commit(const load::Job& job, std::span<const ActionOutput> outputs, const std::string& who,
                     report::TraceLog& trace, const std::string& label);

    // Whether another action claimed `abs` in this build, or the plan predicts another writes it.
    bool claimed_by_other(const std::string& abs, const std::string& who) const;

    // What this build's actions claimed so far (absolute output → "job: input").
    std::unordered_map<std::string, std::string> claims() const;

    // Removes an output the state recorded, unless this build claims the
    // path (another action writes it now) or the file was edited since (an
    // edit is never discarded silently). True when the file is gone now.
    bool remove_output(const OutputRecord& o);
    // Records of jobs the pipeline no longer has (renamed, deleted): their
    // outputs go, unless a job of this build writes the same path.
    void remove_vanished_jobs(const std::set<std::string>& job_names);
    // Called when job `j` has finished: outputs of its inputs that are gone.
    void remove_stale(const JobRun& j);
    // The last build was killed: clear its temporaries from the folders this one wrote to.
    void sweep_temporaries(std::filesystem::file_time_type before);

  private:
    enum class Existing { Absent, Write, Same, Keep };
    Existing check_existing(const load::Job& job, const std::string& rel, const std::string& abs,
                            const Hash128& new_hash, OutputRecord& kept);
    bool is_source(const std::string& abs) const;
    void took_over(const OutputRecord& o);
    // The outputs of `rec` into `r`, removed (not in a dry run); returns those removed (or that would be).
    std::vector<std::string> remove_records(const ActionRecord& rec, base::ActionResult& r);

    Disk& disk_;
    StateStore& store_;
    ProjectPaths paths_;
    std::filesystem::path output_root_;
    const Plan& plan_;
    const std::vector<PlanJob>& plan_jobs_;
    const PlanState& plan_state_;
    report::BuildStatus& status_;
    Options opt_;

    // Absolute output → "job: input", in shards by path: every action of a
    // no-op build claims its outputs, from every thread at once, and one lock
    // for all of them was where those threads waited.
    struct ClaimShard {
        std::mutex mu; // also keeps a claim and a removal of the same path from interleaving
        std::unordered_map<std::string, std::string> claims;
    };
    static constexpr size_t kClaimShards = 64;
    ClaimShard& shard_of(const std::string& abs) const {
        return claim_shards_[std::hash<std::string>{}(abs) % kClaimShards];
    }
    mutable std::array<ClaimShard, kClaimShards> claim_shards_;
    // Outputs another configuration recorded: relative path → (owner, job, input).
    std::mutex foreign_mu_;
    std::unordered_map<std::string, std::tuple<std::string, std::string, std::string>> foreign_owner_;
    struct Known {
        Hash128 hash;
        FileStat st;
    };
    std::mutex known_mu_;
    // Relative output → what this build wrote there (before it: plan_state_.recorded).
    std::unordered_map<std::string, Known> known_;
    // Files and folders step parameters read (an original set, `like:`
    // originals, a replacements folder): inputs as much as the globbed ones.
    // With the index of the job whose step reads it.
    std::vector<std::pair<size_t, ParamRead>> param_reads_;
};

} // namespace af::engine
