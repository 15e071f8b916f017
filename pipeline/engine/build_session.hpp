// A process that builds the same loaded pipeline again and again (`watch`):
// what it keeps between builds so that a rebuild after a save costs what the
// save changed, not what the tree holds.
//
// - The records stay loaded (a no-op's largest serial part in a big tree);
//   before each build the store is asked whether another process wrote the
//   database since (StateStore::stale) and is loaded again if so.
// - Each job's globbed inputs of the last full build are kept, so a rebuild
//   of files whose content changed (same names: the glob would find the same
//   list) takes them from there instead of walking the tree, and runs only
//   the actions on those files and what their outputs feed. The other
//   actions are neither checked nor touched: their records are not stale.
//
// Not narrowed, a full build (as `build`) runs: the first time, when a file
// is new, deleted or unknown, when the last full build did not plan, and for
// pipelines a narrowed build could get wrong or report short: `needs` jobs
// (their globs see other jobs' outputs), --shard, --report (the page lists
// every action). A gather, and every job whose outputs flow into one, always
// gets its whole input list.
#pragma once

#include "base/build_options.hpp"
#include "base/build_result.hpp"
#include "load/config.hpp"
#include "steps/step.hpp"

#include <memory>
#include <set>
#include <string>

namespace af::engine {

class BuildSession {
  public:
    // `p` and `steps` outlive the session (a reloaded pipeline is a new session).
    BuildSession(const load::Pipeline& p, const steps::StepTable& steps);
    ~BuildSession();
    BuildSession(const BuildSession&) = delete;
    BuildSession& operator=(const BuildSession&) = delete;

    // Every job's inputs globbed and checked, as `build` does.
    base::BuildSummary build(const base::BuildOptions& opt);
    // Only the actions on these files (absolute, normal) and what follows from
    // them, when a narrowed build can decide them (see above); otherwise a full build.
    base::BuildSummary build_changed(const base::BuildOptions& opt, const std::set<std::string>& changed);
    // Whether build_changed would narrow for these files and options.
    bool can_narrow(const base::BuildOptions& opt, const std::set<std::string>& changed) const;
    // Whether the last build was narrowed (saw only some inputs).
    bool narrowed() const { return narrowed_; }

  private:
    struct Kept;
    base::BuildSummary run(const base::BuildOptions& opt, const std::set<std::string>* only);

    const load::Pipeline& p_;
    const steps::StepTable& steps_;
    std::unique_ptr<Kept> kept_;
    bool narrowed_ = false;
};

} // namespace af::engine
