// One action, start to end, as the build's executor carries it out: decided
// (dirty_scan), its outputs taken from the shared cache (remote_step) or
// made (action_runner), put in place (output_commit) and recorded
// (action_record); or failed, or cancelled.
#pragma once

#include "engine/dirty_scan.hpp"
#include "engine/job_run.hpp"
#include "engine/memory_budget.hpp"
#include "steps/item.hpp"

#include <optional>
#include <vector>

namespace af::report {
class BuildStatus;
class ReportImages;
class TraceLog;
} // namespace af::report

namespace af::engine {

struct ActionRun;

class OutputCommit;
class RemoteStep;
struct Action;
struct ActionOutput;

// What actions are decided and carried out with, set up by the build once its plan is accepted.
struct ActionServices {
    const load::Pipeline& p;
    const steps::StepTable& steps;
    const base::BuildOptions& opt;
    const ProjectPaths& paths;
    Disk& disk;
    StateStore& store;
    OutputCommit& commit;
    report::BuildStatus& status;
    report::TraceLog& trace;
    MemoryBudget& budget;
    report::ReportImages* images = nullptr; // --report FILE.html: pictures of each action
    RemoteStep* remote = nullptr;           // the shared cache
};

class ActionExecution {
  public:
    explicit ActionExecution(ActionServices s);
    // As ActionExecutor::execute: never throws.
    ActionOutcome execute(JobRun& j, std::vector<Input> inputs, bool check_only);

  private:
    bool cancelled() const;
    Staleness decide(Action& a, std::optional<ActionRecord>& refreshed);
    ActionOutcome up_to_date(Action& a, std::optional<ActionRecord> refreshed);
    ActionOutcome would_run(Action& a);
    std::vector<ActionOutput> produce(Action& a, std::optional<BudgetLease>& lease, bool& from_cache);
    std::vector<ActionOutput> run_here(Action& a, std::optional<BudgetLease>& lease);
    std::vector<steps::Item> read_inputs(Action& a);
    steps::Item file_item(const Input& in);
    void gather_services(const Action& a, ActionRun& run);
    void commit_and_record(Action& a, const std::vector<ActionOutput>& outputs, bool from_cache);
    ActionOutcome not_run(Action& a);
    ActionOutcome failed(Action& a, const std::exception& e);
    Input output_input(const std::string& rel, const Hash128& hash, const std::string& origin,
                       bool will_change = false) const;

    ActionServices s_;
    DirtyScan scan_;
};

} // namespace af::engine
