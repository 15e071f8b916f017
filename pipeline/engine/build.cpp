// The build (ninja's Builder): loads the state, plans (build_inputs), and
// hands the job graph to the scheduler; as the scheduler's executor it
// decides each action (dirty_scan), gets its outputs from the shared cache
// (remote_step) or runs it (action_runner), puts them in place
// (output_commit) and records it (action_record). It works through the
// services it is given (build_services.hpp). Reporting is build_status's;
// `clean` is clean.cpp's.
#include "engine/build.hpp"

#include "assetforge/user_text.hpp"
#include "base/link_guard.hpp"
#include "engine/build/action_execution.hpp"
#include "engine/build/build_services.hpp"
#include "engine/build/remote_step.hpp"
#include "engine/disk.hpp"
#include "engine/output_commit.hpp"
#include "engine/scheduler.hpp"
#include "engine/state_store.hpp"
#include "remote/remote_client.hpp"
#include "report/build_status.hpp"
#include "report/report_images.hpp"
#include "report/trace.hpp"

#include <tbb/global_control.h>

#include <iostream>
#include <thread>

namespace af::engine {
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

class Build final : public ActionExecutor {
  public:
    Build(const load::Pipeline& p, const steps::StepTable& steps, const base::BuildOptions& opt, BuildServices s)
        : p_(p), steps_(steps), opt_(opt), disk_(s.disk), state_(s.state), status_(s.status),
          open_remote_(std::move(s.open_remote)), paths_{p.root.native()},
          budget_(opt.memory_budget ? opt.memory_budget : 1) {
        if (!opt_.trace_file.empty()) trace_.enable();
        if (opt_.report_images && !opt_.report_file.empty() && !opt_.dry_run && steps_.top_image) try {
                images_.emplace(opt_.report_file, p.root, opt_.report_picture_side);
            } catch (const std::exception& e) {
                status_.err() << "assetforge: warning: report pictures: " << base::printable_name(e.what()) << "\n";
            }
        inputs_.emplace(p, opt, paths_, std::move(s.glob), images_ ? images_->dir().native() : std::string());
    }

    base::BuildSummary run() {
        const auto t0 = Clock::now();
        const auto started = fs::file_time_type::clock::now();
        if (!opt_.dry_run && inputs_->state_dir_holds_inputs(status_.err())) {
            status_.summary().plan_exit = 2;
            return std::move(status_.summary());
        }
        if (!opt_.dry_run && !state_.hold()) {
            status_.summary().cancelled = true;
            return std::move(status_.summary());
        }
        std::optional<tbb::global_control> gc;
        if (opt_.threads > 0) gc.emplace(tbb::global_control::max_allowed_parallelism, size_t(opt_.threads));
        load_state_and_expand();
        if (opt_.keep_on_crash) keep_on_crash_ = opt_.keep_on_crash([store = store_] { store->flush(); });
        int64_t ts = trace_.now_us();
        if (!store_->recovered_note().empty())
            status_.err() << "assetforge: warning: " << store_->recovered_note() << "\n";
        if (!inputs_->plan(*store_, disk_, status_, commit_)) {
            status_.progress().finish();
            if (opt_.exiting_after) store_->close();
            return std::move(status_.summary());
        }
        phase("plan", ts);
        open_report_images();
        open_remote_step();
        actions_.emplace(ActionServices{p_, steps_, opt_, paths_, disk_, *store_, *commit_, status_, trace_, budget_,
                                        images_ ? &*images_ : nullptr, remote_ ? &*remote_ : nullptr});
        Scheduler sched(inputs_->runs(), *this, status_, scheduler_options());
        scheduler_ = &sched;
        ts = trace_.now_us();
        sched.run();
        scheduler_ = nullptr;
        phase("checks and actions", ts);
        return finish(t0, started);
    }

    ActionOutcome execute(JobRun& j, std::vector<Input> inputs, bool check_only) override {
        return actions_->execute(j, std::move(inputs), check_only);
    }

    std::vector<Input> late_inputs(JobRun& j) override { return inputs_->late_inputs(j, *commit_); }

    void job_complete(JobRun& j) override {
        // A shard, or a rebuild of changed files, sees only some of the inputs: the others' records are not stale.
        if (j.upstream_failed || j.expand_failed || opt_.shard_count || opt_.some_inputs_only ||
            (scheduler_ && scheduler_->stopped()) || cancelled())
            return;
        commit_->remove_stale(j);
    }

  private:
    bool cancelled() const { return opt_.cancelled && opt_.cancelled(); }

    // The build's phases in --trace, beside the actions: where a no-op build's time goes.
    void phase(const char* name, int64_t since) { trace_.add(name, "build", "", since, trace_.now_us() - since); }

    // The state database loads on its own thread while the input globs of
    // the first jobs are walked: the two are most of a no-op build's serial part.
    void load_state_and_expand() {
        std::exception_ptr load_error;
        std::thread loader([&] {
            try {
                const int64_t ts = trace_.now_us();
                store_ = state_.open();
                phase("load state", ts);
            } catch (...) {
                load_error = std::current_exception();
            }
        });
        try {
            const int64_t ts = trace_.now_us();
            inputs_->expand_jobs(disk_);
            phase("glob and stat inputs", ts);
        } catch (...) {
            loader.join();
            throw;
        }
        loader.join();
        if (load_error) std::rethrow_exception(load_error);
    }

    void open_report_images() {
        if (images_) try {
                images_->open();
            } catch (const std::exception& e) {
                status_.err() << "assetforge: warning: report pictures: " << base::printable_name(e.what()) << "\n";
                images_.reset();
                inputs_->forget_report_dir();
            }
    }

    void open_remote_step() {
        if (open_remote_) remote_cache_ = open_remote_();
        if (!remote_cache_) return;
        RemoteStepRules rules;
        rules.never = [this, state = state_dir(p_)](const std::string& abs, const std::string& who) {
            return base::path_within(abs, state) || abs == p_.file.native() || commit_->claimed_by_other(abs, who);
        };
        rules.occupied = [this](const std::string& abs) {
            std::error_code ec;
            return inputs_->plan_state().recorded.count(abs) ||
                   fs::symlink_status(abs, ec).type() != fs::file_type::not_found;
        };
        remote_.emplace(
            *remote_cache_, opt_.plugin_identities, paths_, trace_, budget_,
            [this](const std::string& line) { status_.err() << "assetforge: warning: remote cache: " << line << "\n"; },
            std::move(rules));
    }

    base::BuildSummary finish(Clock::time_point t0, fs::file_time_type started) {
        const int64_t ts = trace_.now_us();
        status_.progress().finish();
        store_->flush();
        if (opt_.dry_run && !opt_.status_json) report_orphans(*store_, status_);
        if (!opt_.dry_run && state_.previous_build_was_killed()) {
            commit_->sweep_temporaries(started);
            // What a killed build's gathers were writing (this build's own are gone by now: each was taken over).
            std::error_code ec;
            fs::remove_all(state_dir(p_) / "scratch", ec);
        }
        if (opt_.exiting_after) store_->close();
        status_.summary().cancelled = cancelled();
        const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
        phase("save state", ts);
        if (!opt_.trace_file.empty()) trace_.write(opt_.trace_file);
        if (images_)
            for (const auto& e : images_->finish())
                status_.err() << "assetforge: warning: report picture: " << base::printable_name(e) << "\n";
        if (!opt_.report_file.empty()) status_.write_report(p_, secs, opt_.report_file);
        if (images_) sweep_report_images();
        status_.print_summary(p_, secs);
        return std::move(status_.summary());
    }

    SchedulerOptions scheduler_options() {
        SchedulerOptions so;
        so.fail_fast = opt_.fail_fast;
        so.cancelled = opt_.cancelled;
        so.run_at_once = opt_.some_inputs_only;
        if (opt_.shard_count) so.in_shard = [this](const JobRun&, const Input& in) { return inputs_->in_shard(in); };
        return so;
    }

    // Pictures of actions that this report does not show go (only once it is written).
    void sweep_report_images() { images_->sweep(status_.summary().actions); }

    const load::Pipeline& p_;
    const steps::StepTable& steps_;
    const base::BuildOptions& opt_;
    Disk& disk_;
    StateFolder& state_;
    report::BuildStatus& status_;
    std::function<std::unique_ptr<remote::RemoteClient>()> open_remote_;
    ProjectPaths paths_;
    std::shared_ptr<StateStore> store_;
    std::shared_ptr<void> keep_on_crash_; // gone before the store it commits
    std::optional<OutputCommit> commit_;
    std::optional<report::ReportImages> images_; // --report FILE.html
    std::optional<BuildInputs> inputs_;
    MemoryBudget budget_;
    report::TraceLog trace_;
    Scheduler* scheduler_ = nullptr;
    std::unique_ptr<remote::RemoteClient> remote_cache_;
    std::optional<RemoteStep> remote_;
    std::optional<ActionExecution> actions_;
};

} // namespace

base::BuildSummary run_build(const load::Pipeline& p, const steps::StepTable& steps, const base::BuildOptions& opt,
                             BuildServices services) {
    if (!opt.exiting_after) {
        Build b(p, steps, opt, std::move(services));
        return b.run();
    }
    // Deliberately never deleted (see BuildOptions::exiting_after); a global
    // keeps it reachable, so leak checkers do not report it (volatile: the
    // compiler may not drop a store it sees no reader for).
    static Build* volatile kept = nullptr;
    kept = new Build(p, steps, opt, std::move(services));
    return kept->run();
}

} // namespace af::engine
