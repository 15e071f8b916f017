// An action's outputs from the shared cache, or its outputs into it: the
// build asks whether the cache holds an action, takes an entry only when its
// paths are this action's (cached_entry_paths.hpp) and its bytes check out,
// and offers what it built. A miss or anything wrong is simply a miss: the
// action is then built here.
#pragma once

#include "engine/action_runner.hpp"
#include "engine/job_run.hpp"
#include "engine/memory_budget.hpp"
#include "engine/project_paths.hpp"
#include "engine/state_store.hpp"
#include "report/trace.hpp"

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace af::remote {
class RemoteClient;
}

namespace af::engine {

// One action as the cache sees it.
struct RemoteAction {
    const JobRun& j;
    std::string key;                        // remote_action_key
    std::string label;                      // its input ("*" for a gather), for the trace
    std::string input_name;                 // its input's item name ("" for a gather)
    std::string who;                        // "job: input", as the commit claims paths
    const ActionRecord* previous = nullptr; // what it wrote last time: its own paths to take again
};

// Paths no entry may make an action write, whatever its template allows.
struct RemoteStepRules {
    // The state folder, the pipeline file, another action's claim.
    std::function<bool(const std::string& abs, const std::string& who)> never;
    // Another action's record, or a file the build did not write (a source, a user's).
    std::function<bool(const std::string& abs)> occupied;
};

class RemoteStep {
  public:
    // `warn`: a line of text (already printable) for the build's error stream.
    RemoteStep(remote::RemoteClient& cache, std::string plugin_identities, ProjectPaths paths, report::TraceLog& trace,
               MemoryBudget& budget, std::function<void(const std::string&)> warn, RemoteStepRules rules);

    std::string key(const JobRun& j, const Hash128& input_hash) const;
    // Dry run: whether a build would fetch the action.
    bool holds(const std::string& key);

    struct Fetched {
        std::vector<ActionOutput> outputs;
        std::vector<std::string> warnings; // what the action discarded where the entry was made
    };
    // The entry's outputs, hash-checked, or nullopt. `lease`: the entry's
    // bytes count against the memory budget from here to the commit.
    std::optional<Fetched> fetch(const RemoteAction& a, std::optional<BudgetLease>& lease);
    // Offers what the action built (when uploads are on).
    void upload(const RemoteAction& a, const std::vector<ActionOutput>& outputs,
                const std::vector<std::string>& warnings);

  private:
    bool taken(const RemoteAction& a, const std::string& abs) const;

    remote::RemoteClient& cache_;
    std::string plugin_identities_;
    ProjectPaths paths_;
    report::TraceLog& trace_;
    MemoryBudget& budget_;
    std::function<void(const std::string&)> warn_;
    RemoteStepRules rules_;
    std::atomic<bool> foreign_entry_warned_{false};
};

} // namespace af::engine
