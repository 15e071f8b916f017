// The job graph at run time: which actions start when (ninja's Plan and
// Builder loop). Jobs without upstream start at once; an action's outputs flow
// file by file into the jobs that take them `from` it; a `needs` job expands
// its globs once the jobs it needs are complete; a gather runs once when all
// its inputs are in. Deciding and running one action is the executor's: the
// scheduler only moves inputs and counts, so its tests need no disk.
#pragma once

#include "engine/job_run.hpp"
#include "report/build_status.hpp"

#include <tbb/task_group.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <utility>
#include <vector>

namespace af::engine {

// Links the runs by their jobs' `from` and `needs` (names of jobs among `runs`).
void link_jobs(std::vector<JobRun>& runs);

class ActionExecutor {
  public:
    virtual ~ActionExecutor() = default;
    // Decides one action and, unless check_only, runs it. With check_only an
    // out-of-date action comes back with must_run and its inputs (the
    // scheduler gives it a task of its own). Never throws.
    virtual ActionOutcome execute(JobRun& j, std::vector<Input> inputs, bool check_only) = 0;
    // A `needs` job's inputs, once the jobs it needs are complete. Throws when
    // a pattern matched nothing.
    virtual std::vector<Input> late_inputs(JobRun& j) = 0;
    // Every action of `j` has finished (called under the scheduler's lock,
    // before the jobs that need it expand their globs).
    virtual void job_complete(JobRun& j) = 0;
};

struct SchedulerOptions {
    bool fail_fast = false;
    std::function<bool()> cancelled;
    // --shard: whether an action on this input is this shard's. Unset: all.
    // A shard runs no gather (it gathers every shard's outputs).
    std::function<bool(const JobRun&, const Input&)> in_shard;
    // A watch's rebuild of saved files: an action that must run starts as soon as it is decided, not after the
    // first pass has decided every action (a gather downstream makes that pass check thousands).
    bool run_at_once = false;
};

class Scheduler {
  public:
    Scheduler(std::vector<JobRun>& runs, ActionExecutor& exec, report::BuildStatus& status, SchedulerOptions opt);
    // Starts every job that waits for nothing and returns when all are done.
    void run();
    bool stopped() const { return stop_; }

    // The inputs of each action of a map job: one each, but every picture of
    // one texture's surfaces together (`assemble`: the job's steps take a texture).
    static std::vector<std::vector<Input>> action_inputs(std::vector<Input> inputs, bool assemble);
    // For the executor: what an input the job has not seen before is named
    // below an upstream job's output folder.
    static std::string name_below(const std::string& abs, const std::string& base);

  private:
    void advance_locked(JobRun& j);
    void check_complete_locked(JobRun& j);
    void spawn_locked(JobRun& j, std::vector<Input> inputs);
    void launch_locked(JobRun& j, std::vector<Input> inputs);
    void release_locked();
    void spawn_many_locked(JobRun& j, std::vector<Input> inputs);
    void record_locked(JobRun& j, std::vector<ActionOutcome>& done);
    void count(const JobRun& j, bool counted, const ActionOutcome& d);
    // Actions expected downstream of one action of `j` that runs: one in each
    // `from` job below it, transitively (gathers count themselves when they run).
    static size_t downstream_estimate(const JobRun& j);
    ActionOutcome not_run(JobRun& j, const std::vector<Input>& inputs, base::ActionStatus s, std::string why);
    bool cancelled() const { return opt_.cancelled && opt_.cancelled(); }

    std::vector<JobRun>& runs_;
    ActionExecutor& exec_;
    report::BuildStatus& status_;
    SchedulerOptions opt_;
    std::mutex mu_;
    tbb::task_group tg_;
    std::atomic<bool> stop_{false};
    // The first pass (run()'s own jobs): actions that must run are held until
    // every one of its check chunks is done.
    bool first_pass_ = false;
    size_t first_chunks_ = 0;
    std::vector<std::pair<JobRun*, std::vector<Input>>> held_;
    std::vector<JobRun*> early_; // run_at_once: launched in the first pass, counted in the total at once
};

// ThreadSanitizer cannot see the synchronisation inside libtbb (it is not
// instrumented), so everything a task reads that its spawner wrote, and
// everything wait() returns to that the task wrote, would look like a race.
// Under TSan only, spawning, starting, ending and waiting pass through one
// mutex: exactly the happens-before edges TBB provides. Elsewhere: nothing.
struct TaskHandoff {
#if defined(AF_TSAN)
    static std::mutex& mutex() {
        static std::mutex m;
        return m;
    }
    std::lock_guard<std::mutex> held{mutex()}; // across tg.run(): the task cannot start before it is built
    static void pass() { std::lock_guard<std::mutex> lk(mutex()); }
#else
    static void pass() {}
#endif
};

} // namespace af::engine
