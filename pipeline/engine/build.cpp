// The build (ninja's Builder): loads the state, plans, and hands the job
// graph to the scheduler; as the scheduler's executor it decides each action
// (dirty_scan), runs it (action_runner) and puts its outputs in place
// (output_commit). Reporting is build_status's; `clean` is clean.cpp's.
#include "engine/build.hpp"

#include "assetforge/user_text.hpp"
#include "base/glob.hpp"
#include "base/link_guard.hpp"
#include "base/user_words.hpp"
#include "engine/action_memory.hpp"
#include "engine/action_runner.hpp"
#include "engine/build_lock.hpp"
#include "engine/cached_entry_paths.hpp"
#include "engine/dirty_scan.hpp"
#include "engine/disk.hpp"
#include "engine/job_run.hpp"
#include "engine/memory_budget.hpp"
#include "engine/output_commit.hpp"
#include "engine/plan.hpp"
#include "engine/project_paths.hpp"
#include "engine/remote_cache_keys.hpp"
#include "engine/reserved_paths.hpp"
#include "engine/run_marker.hpp"
#include "engine/scheduler.hpp"
#include "engine/shard.hpp"
#include "engine/state_store.hpp"
#include "remote/remote_cache.hpp"
#include "report/action_warnings.hpp"
#include "report/build_status.hpp"
#include "report/report_images.hpp"
#include "report/trace.hpp"

#include <tbb/global_control.h>

#include <algorithm>
#include <atomic>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

namespace af::engine {
namespace fs = std::filesystem;

fs::path state_dir(const Pipeline& p) { return p.state_dir.empty() ? p.output_root / ".assetforge" : p.state_dir; }

Configuration configuration(const Pipeline& p) {
    Hasher h;
    h.field(p.file.native());
    std::string vars;
    for (const auto& [k, v] : p.vars) {
        h.field(k);
        h.field(v);
        vars += (vars.empty() ? "" : ", ") + k + "=" + v;
    }
    return {h.digest().hex(), p.file.filename().string() + (vars.empty() ? "" : " (" + vars + ")")};
}

namespace {

std::string join_tools(std::vector<std::string> tools) {
    std::sort(tools.begin(), tools.end());
    tools.erase(std::unique(tools.begin(), tools.end()), tools.end());
    std::string s;
    for (const auto& t : tools) s += (s.empty() ? "" : ";") + t;
    return s;
}

class Build final : public ActionExecutor {
  public:
    Build(const Pipeline& p, const StepTable& steps, const BuildOptions& opt)
        : p_(p), steps_(steps), opt_(opt),
          status_(opt, opt.out ? *opt.out : std::cout, opt.err ? *opt.err : std::cerr), paths_{p.root.native()},
          disk_(p.root, p.output_root), budget_(opt.memory_budget ? opt.memory_budget : 1) {
        if (!opt_.trace_file.empty()) trace_.enable();
        if (opt_.report_images && !opt_.report_file.empty() && !opt_.dry_run && steps_.top_image) try {
                images_.emplace(opt_.report_file, p.root);
            } catch (const std::exception& e) {
                status_.err() << "assetforge: warning: report pictures: " << printable_name(e.what()) << "\n";
            }
    }

    BuildSummary run() {
        auto t0 = std::chrono::steady_clock::now();
        const auto started = fs::file_time_type::clock::now();
        if (!opt_.dry_run && state_dir_holds_inputs()) {
            status_.summary().plan_exit = 2;
            return std::move(status_.summary());
        }
        std::optional<BuildLock> lock;
        if (!opt_.dry_run) {
            try {
                lock.emplace(
                    state_dir(p_),
                    [&](const std::string& msg) { status_.err() << "assetforge: " << msg << "\n"
                                                                << std::flush; },
                    opt_.cancelled);
            } catch (const BuildLock::Cancelled&) {
                status_.summary().cancelled = true;
                return std::move(status_.summary());
            }
        }
        std::optional<RunMarker> marker;
        if (!opt_.dry_run) marker.emplace(state_dir(p_));
        std::optional<tbb::global_control> gc;
        if (opt_.threads > 0) gc.emplace(tbb::global_control::max_allowed_parallelism, size_t(opt_.threads));
        load_state_and_expand();
        scan_.emplace(*store_, disk_, paths_, p_.root, opt_.tool_identity);
        if (!store_->recovered_note().empty())
            status_.err() << "assetforge: warning: " << store_->recovered_note() << "\n";
        if (!plan_build()) {
            status_.progress().finish();
            if (opt_.exiting_after) store_->close();
            return std::move(status_.summary());
        }
        if (images_) try {
                images_->open();
            } catch (const std::exception& e) {
                status_.err() << "assetforge: warning: report pictures: " << printable_name(e.what()) << "\n";
                images_.reset();
            }
        open_remote_cache();
        Scheduler sched(runs_, *this, status_, scheduler_options());
        scheduler_ = &sched;
        sched.run();
        scheduler_ = nullptr;
        status_.progress().finish();
        store_->flush();
        if (opt_.dry_run && !opt_.status_json) report_orphans();
        if (marker && marker->previous_build_was_killed()) commit_->sweep_temporaries(started);
        if (opt_.exiting_after) store_->close();
        status_.summary().cancelled = cancelled();
        double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (!opt_.trace_file.empty()) trace_.write(opt_.trace_file);
        if (images_)
            for (const auto& e : images_->finish())
                status_.err() << "assetforge: warning: report picture: " << printable_name(e) << "\n";
        if (!opt_.report_file.empty()) status_.write_report(p_, secs, opt_.report_file);
        if (images_) sweep_report_images();
        status_.print_summary(p_, secs);
        return std::move(status_.summary());
    }

    ActionOutcome execute(JobRun& j, std::vector<Input> inputs, bool check_only) override;

    std::vector<Input> late_inputs(JobRun& j) override {
        PlanJob& pj = *j.plan;
        std::vector<size_t> per_pattern;
        pj.matches = expand_matches(*j.job, &per_pattern);
        filter_matches(pj, plan_state_, commit_->claims());
        if (auto empty = empty_patterns(*j.job, per_pattern); !empty.empty()) throw std::runtime_error(empty.front());
        return to_inputs(std::move(pj.matches));
    }

    void job_complete(JobRun& j) override {
        // A shard sees only its share of the inputs: the others' records are not stale.
        if (j.upstream_failed || j.expand_failed || opt_.shard_count || (scheduler_ && scheduler_->stopped()) ||
            cancelled())
            return;
        commit_->remove_stale(j);
    }

  private:
    bool cancelled() const { return opt_.cancelled && opt_.cancelled(); }

    void open_remote_cache() {
        if (opt_.remote_cache.empty()) return;
        remote::RemoteCacheOptions ro;
        ro.url = opt_.remote_cache;
        ro.url_from_pipeline = opt_.remote_cache_from_pipeline;
        // Blobs arrive in unnamed files beside the build state, not in memory (and not in a /tmp that may be RAM).
        ro.temp_dir = state_dir(p_).native();
        ro.upload = opt_.remote_upload && !opt_.dry_run;
        // Called one at a time (the client serialises them), each problem once.
        ro.warn = [this](const std::string& msg) {
            status_.err() << "assetforge: " << (opt_.remote_cache_required ? "error" : "warning")
                          << ": remote cache: " << printable_name(msg) << "\n"
                          << std::flush;
            if (opt_.remote_cache_required) status_.summary().remote_cache_fail = true;
        };
        remote_ = std::make_unique<remote::RemoteCache>(std::move(ro));
        if (!remote_->enabled()) {
            if (opt_.remote_cache_required) status_.summary().remote_cache_fail = true;
            remote_.reset();
        }
    }

    // The outputs the shared cache holds for this action, hash-checked, or
    // nullopt (a miss, or anything wrong: then the action is built here).
    // `rec`: what this action wrote last time (its own paths to take again).
    // `warnings`: what the action discarded where the entry was made.
    std::optional<std::vector<ActionOutput>> fetch_cached(const JobRun& j, const std::string& rkey,
                                                          const std::string& label, const std::string& input_name,
                                                          const std::string& who, const ActionRecord* rec,
                                                          std::optional<BudgetLease>& lease,
                                                          std::vector<std::string>& warnings) {
        const int64_t ts = trace_.now_us();
        auto entry = remote_->lookup(rkey);
        if (!entry) return std::nullopt;
        CachedOutputRule rule;
        rule.project_root = paths_.root;
        rule.out_base = j.out_base;
        rule.tpl = &j.tpl;
        rule.predicted = predicted_outputs(j.tpl, j.job->is_gather(), j.plan && j.plan->keeps_names, input_name,
                                           j.job->name, paths_.root);
        rule.fixed = input_name_values(j.job->is_gather(), input_name, j.job->name);
        const fs::path state = state_dir(p_);
        rule.taken = [&](const std::string& abs) {
            const std::string rel = paths_.rel_of(abs);
            const bool mine = rec && std::any_of(rec->outputs.begin(), rec->outputs.end(),
                                                 [&](const OutputRecord& o) { return o.path == rel; });
            if (path_within(abs, state) || abs == p_.file.native() || commit_->claimed_by_other(abs, who)) return true;
            if (mine) return false;
            // Another action's record, or a file the build did not write here (a source, an include, a user's).
            std::error_code ec;
            return plan_state_.recorded.count(abs) || fs::symlink_status(abs, ec).type() != fs::file_type::not_found;
        };
        std::vector<std::string> rels;
        for (const auto& f : entry->files) rels.push_back(f.path);
        if (const std::string why = cached_paths_problem(rule, rels); !why.empty()) {
            // Once per build: a cache that does this once likely does it for every entry.
            if (!foreign_entry_warned_.exchange(true))
                status_.err() << "assetforge: warning: remote cache: entry " << rkey.substr(0, 12) << " of job '"
                              << printable_name(j.job->name) << "' " << printable_name(why)
                              << "; such entries are ignored and their actions built locally\n";
            return std::nullopt;
        }
        // The blobs stream to files, but hashing and writing them brings their pages into memory: they count
        // against the budget from here to the commit. An entry larger than the whole budget takes all of it
        // (its pages are file-backed: the kernel can drop them under pressure, as it cannot an image's).
        uint64_t declared = 0;
        for (const auto& f : entry->files) declared += uint64_t(std::max<int64_t>(f.digest.size, 0));
        lease.emplace(budget_, std::min(declared, budget_.limit()));
        auto blobs = remote_->fetch(*entry);
        if (!blobs) return std::nullopt;
        std::vector<ActionOutput> outputs;
        int64_t bytes = 0;
        for (size_t i = 0; i < entry->files.size(); ++i) {
            ActionOutput& o = outputs.emplace_back();
            o.rel = entry->files[i].path;
            o.abs = paths_.abs_of(o.rel);
            o.owner = (*blobs)[i].owner();
            o.held = (*blobs)[i].bytes();
            o.hash = hash_bytes(o.held);
            bytes += int64_t(o.held.size());
        }
        trace_.add("fetch", j.job->name, label, ts, trace_.now_us() - ts, bytes);
        warnings = entry->warnings;
        return outputs;
    }

    void upload(const JobRun& j, const std::string& rkey, const std::vector<ActionOutput>& outputs,
                const std::string& label, const std::vector<std::string>& warnings) {
        if (!remote_ || !remote_->uploads()) return;
        std::vector<std::pair<std::string, std::span<const uint8_t>>> files;
        for (const auto& o : outputs) {
            // Outputs outside the project have no path another checkout shares.
            if (!cached_path_allowed(paths_.root, j.out_base, o.rel)) return;
            files.emplace_back(o.rel, o.data());
        }
        const int64_t ts = trace_.now_us();
        remote_->upload(rkey, files, warnings);
        trace_.add("upload", j.job->name, label, ts, trace_.now_us() - ts);
    }

    SchedulerOptions scheduler_options() {
        SchedulerOptions so;
        so.fail_fast = opt_.fail_fast;
        so.cancelled = opt_.cancelled;
        if (opt_.shard_count)
            so.in_shard = [this](const JobRun&, const Input& in) {
                auto it = shards_.find(in.origin);
                const int s = it != shards_.end() ? it->second : shard_by_name(in.origin, opt_.shard_count);
                return s == opt_.shard_index;
            };
        return so;
    }

    // An output handed downstream (its name is set by the receiving job).
    Input output_input(const std::string& rel, const Hash128& hash, const std::string& origin,
                       bool will_change = false) const {
        Input in;
        in.rel = rel;
        in.abs = paths_.abs_of(rel);
        in.origin = origin;
        in.hash = hash;
        in.will_change = will_change;
        return in;
    }

    // The state database loads on its own thread while the input globs of
    // the first jobs are walked: the two are most of a no-op build's serial part.
    void load_state_and_expand() {
        std::exception_ptr load_error;
        std::thread loader([&] {
            try {
                store_.emplace(state_dir(p_), configuration(p_),
                               opt_.dry_run ? StateStore::Mode::ReadOnly : StateStore::Mode::ReadWrite);
            } catch (...) {
                load_error = std::current_exception();
            }
        });
        try {
            setup_jobs();
            // Every job's globs, `needs` jobs and jobs left out by --job too:
            // the plan checks what each reads against what every job writes.
            for (auto& pj : plan_jobs_) {
                if (cancelled()) break; // plan_build stops then
                pj.matches = expand_matches(*pj.job, &pj.per_pattern);
            }
        } catch (...) {
            loader.join();
            throw;
        }
        loader.join();
        if (load_error) std::rethrow_exception(load_error);
    }

    void setup_jobs() {
        runs_.resize(p_.jobs.size());
        // Selected jobs first (runs_[i] ↔ plan_jobs_[i]), then the ones --job left out.
        std::vector<const Job*> every;
        for (const auto& j : p_.jobs) every.push_back(&j);
        for (const auto& j : p_.unselected) every.push_back(&j);
        plan_jobs_.resize(every.size());
        for (size_t i = 0; i < every.size(); ++i) {
            PlanJob& pj = plan_jobs_[i];
            pj.job = every[i];
            pj.tpl = OutputTemplate::parse(pj.job->output);
            fs::path base(pj.tpl.static_prefix());
            pj.out_base = (base.is_absolute() ? base : p_.root / base).lexically_normal().native();
            while (pj.out_base.size() > 1 && pj.out_base.back() == '/') pj.out_base.pop_back();
            pj.keeps_names = std::all_of(pj.job->steps.begin(), pj.job->steps.end(),
                                         [](const StepUse& s) { return s.def && s.def->keeps_names; });
            pj.late = !pj.job->needs.empty();
            pj.selected = i < p_.jobs.size();
        }
        for (size_t i = 0; i < p_.jobs.size(); ++i) {
            JobRun& r = runs_[i];
            r.job = &p_.jobs[i];
            r.plan = &plan_jobs_[i];
            r.tpl = r.plan->tpl;
            r.out_base = r.plan->out_base;
            r.signature = job_signature(*r.job);
            r.param_reads = param_reads(*r.job, p_.root);
        }
        link_jobs(runs_);
    }

    std::vector<GlobMatch> expand_matches(const Job& j, std::vector<size_t>* per_pattern) {
        GlobOptions go;
        go.input_root = j.input_root;
        go.follow_links = j.follow_links;
        go.named_folders = j.named_folders;
        auto matches = expand_globs(p_.root, j.patterns, j.excludes, go, per_pattern);
        // The state may live inside the project (--state-dir): never an
        // input. Its own files are skipped; anything else there is an input
        // the build would silently drop, so the plan refuses it.
        std::string sd = state_dir(p_).lexically_normal().native() + "/";
        std::erase_if(matches, [&](const GlobMatch& m) {
            if (m.path.compare(0, sd.size(), sd) != 0) return false;
            if (!is_state_file(m.path.substr(sd.size()))) {
                std::lock_guard lk(state_inputs_mu_);
                state_dir_inputs_.emplace_back(j.name, m.path);
            }
            return true;
        });
        // Nor the HTML report's pictures: a `**/*.png` job would take them
        // in, and the next build's report would show pictures of pictures.
        if (images_) {
            const std::string rd = images_->dir().native() + "/";
            std::erase_if(matches, [&](const GlobMatch& m) { return m.path.compare(0, rd.size(), rd) == 0; });
        }
        return matches;
    }

    std::vector<Input> to_inputs(std::vector<GlobMatch> matches) {
        std::vector<Input> v;
        v.reserve(matches.size());
        for (auto& m : matches) {
            Input in;
            in.rel = paths_.rel_of(m.path);
            in.origin = in.rel;
            in.abs = std::move(m.path);
            in.name = std::move(m.name);
            in.link_escape = std::move(m.link_escape);
            v.push_back(std::move(in));
        }
        return v;
    }

    // Before anything runs: what each job reads and writes, checked against
    // the promises (plan.hpp). False when the build must not start.
    bool plan_build() {
        std::set<std::string> names;
        for (const auto& j : p_.jobs) names.insert(j.name);
        for (const auto& j : p_.unselected) names.insert(j.name);
        const std::string& self = store_->self();
        std::vector<std::tuple<std::string, std::string, std::string, std::string>> foreign;
        store_->for_each_action([&](const ActionRecord& rec) {
            bool own = rec.owner == self;
            // Outputs of jobs no longer in the pipeline are nobody's input:
            // they are removed below.
            auto kind = !own                   ? Recorded::Kind::Foreign
                        : names.count(rec.job) ? Recorded::Kind::Own
                                               : Recorded::Kind::Gone;
            for (const auto& o : rec.outputs) {
                plan_state_.recorded[paths_.abs_of(o.path)] = {kind, rec.job, o.hash, o.st};
                if (!own) foreign.emplace_back(o.path, rec.owner, rec.job, rec.input);
            }
        });
        reserved_ = ReservedPaths::of(p_, state_dir(p_));
        plan_ = make_plan(plan_jobs_, plan_state_, p_.root, &reserved_, opt_.cancelled);
        if (cancelled()) {
            // A plan cut short decides nothing: stop before anything is removed or run.
            status_.summary().cancelled = true;
            return false;
        }
        check_side_files();
        // Adopted outputs of vanished jobs are plain sources from here on (late globs too).
        for (const auto& a : plan_.adopted) plan_state_.recorded.erase(a);
        commit_.emplace(disk_, *store_, paths_, p_.output_root, plan_, plan_jobs_, plan_state_, status_,
                        OutputCommit::Options{opt_.overwrite_edited, opt_.dry_run, &reserved_});
        for (const auto& [path, owner, job, input] : foreign) commit_->note_foreign(path, owner, job, input);
        for (const auto& n : plan_.notes) status_.note(printable_name(n));
        if (plan_.exit_code) {
            for (const auto& e : plan_.errors) status_.err() << "assetforge: " << printable_name(e) << "\n";
            status_.err() << "assetforge: nothing was run"
                          << (plan_.exit_code == 2 ? " (the pipeline breaks a promise of a build; see above)" : "")
                          << "\n";
            status_.summary().plan_exit = plan_.exit_code;
            return false;
        }
        if (!cancelled()) commit_->remove_vanished_jobs(names);
        for (auto& j : runs_)
            if (!j.plan->late) {
                j.prefetched = to_inputs(std::move(j.plan->matches));
                j.has_prefetched = true;
            }
        if (opt_.shard_count) {
            std::vector<std::pair<std::string, uint64_t>> sources;
            for (const auto& j : runs_)
                for (const auto& in : j.prefetched) {
                    auto st = disk_.stat(in.rel, in.abs);
                    sources.emplace_back(in.origin, st ? st->size : 0);
                }
            shards_ = assign_shards(std::move(sources), opt_.shard_count);
        }
        return true;
    }

    std::string state_dir_refusal(const std::string& shown) const {
        const auto& [job, path] = state_dir_inputs_.front();
        return "job '" + job + "' reads '" + paths_.rel_of(path) + "', inside the build's state folder " + shown +
               " (" + std::to_string(state_dir_inputs_.size()) +
               " file(s) there); the build would skip them: choose a --state-dir no job reads from";
    }

    // A --state-dir that holds a job's inputs, found before the lock and the
    // state are created there (the plan's own check comes too late for
    // that). A folder holding only state files needs no glob walk.
    bool state_dir_holds_inputs() {
        if (p_.state_dir.empty()) return false;
        const fs::path sd = state_dir(p_);
        std::error_code ec;
        bool other = false;
        for (auto it = fs::recursive_directory_iterator(sd, fs::directory_options::skip_permission_denied, ec);
             !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
            if (!it->is_directory(ec) && !is_state_file(it->path().lexically_relative(sd).native())) {
                other = true;
                break;
            }
        if (!other) return false;
        try {
            for (const auto& j : p_.jobs) expand_matches(j, nullptr);
            for (const auto& j : p_.unselected) expand_matches(j, nullptr);
        } catch (const std::exception&) {
            // An unreadable input is reported, with its job, by the build's own walk.
        }
        if (state_dir_inputs_.empty()) return false;
        status_.err() << "assetforge: "
                      << printable_name(state_dir_refusal(fs::absolute(sd).lexically_normal().native())) << "\n"
                      << "assetforge: nothing was run (the pipeline breaks a promise of a build; see above)\n";
        return true;
    }

    // --report, --trace and --state-dir get the rules of outputs (reserved_paths.hpp).
    void check_side_files() {
        auto refuse = [&](const std::string& msg) {
            plan_.exit_code = 2;
            plan_.errors.push_back(msg);
        };
        for (const auto& [flag, file] :
             {std::pair<std::string, std::string>{"--report", opt_.report_file}, {"--trace", opt_.trace_file}})
            if (!file.empty())
                for (const auto& e : side_file_problems(flag, file, reserved_, plan_jobs_, plan_, plan_state_, p_.root))
                    refuse(e);
        if (!state_dir_inputs_.empty()) refuse(state_dir_refusal(reserved_.state_dir));
    }

    // `status`: outputs other configurations of this output folder recorded.
    void report_orphans() {
        std::map<std::string, size_t> by_owner;
        store_->for_each_action([&](const ActionRecord& rec) {
            if (rec.owner != store_->self()) by_owner[rec.owner] += rec.outputs.size();
        });
        auto names = store_->configurations();
        for (const auto& [owner, n] : by_owner) {
            if (!n) continue;
            std::string who = names.count(owner) && !names[owner].empty() ? names[owner] : "an earlier layout";
            status_.progress().line("orphans: " + std::to_string(n) + " output(s) of another configuration, " +
                                    printable_name(who) +
                                    " (not removed by this one; 'assetforge clean --orphans' removes them)");
        }
    }

    // Pictures of actions that this report does not show go (only once it is written).
    void sweep_report_images() {
        std::set<std::string> shown;
        for (const auto& a : status_.summary().actions)
            if (a.images) shown.insert(a.images->id);
        images_->sweep(shown);
    }

    // Keeps tracking every output this input ever produced, so a later
    // removal of the input still cleans them up.
    void record_failure(const Job& job, const ActionResult& res, const std::string& step,
                        const std::vector<OutputRecord>& written, const std::shared_ptr<const ActionRecord>& rec) {
        ActionRecord nr;
        nr.job = job.name;
        nr.input = res.input;
        nr.outputs = written;
        if (rec)
            for (const auto& o : rec->outputs)
                if (std::none_of(written.begin(), written.end(), [&](auto& w) { return w.path == o.path; }))
                    nr.outputs.push_back(o);
        nr.status = ActionRecord::Status::Failed;
        nr.error = step + ": " + res.error;
        nr.duration_ms = res.duration_ms;
        store_->put_action(nr);
    }

    const Pipeline& p_;
    const StepTable& steps_;
    const BuildOptions& opt_;
    BuildStatus status_;
    ProjectPaths paths_;
    RealDisk disk_;
    std::optional<StateStore> store_;
    std::optional<DirtyScan> scan_;
    std::optional<OutputCommit> commit_;
    std::optional<ReportImages> images_; // --report FILE.html
    MemoryBudget budget_;
    TraceLog trace_;
    std::vector<JobRun> runs_;
    Scheduler* scheduler_ = nullptr;
    std::unique_ptr<remote::RemoteCache> remote_;
    std::atomic<bool> foreign_entry_warned_{false};
    std::unordered_map<std::string, int> shards_; // --shard: source → shard
    std::vector<PlanJob> plan_jobs_;
    PlanState plan_state_;
    ReservedPaths reserved_;
    std::mutex state_inputs_mu_;                                        // late globs run on worker threads
    std::vector<std::pair<std::string, std::string>> state_dir_inputs_; // (job, file) a glob found in the state folder
    Plan plan_;
};

ActionOutcome Build::execute(JobRun& j, std::vector<Input> inputs, bool check_only) {
    const Job& job = *j.job;
    ActionOutcome done;
    ActionResult& res = done.res;
    std::vector<Input>& produced = done.produced;
    res.job = job.name;
    res.input = job.is_gather() ? "*" : inputs.at(0).rel;
    const std::string origin = job.is_gather() ? "*" : inputs.at(0).origin;
    const std::string who = job.name + ": " + res.input;
    for (const auto& in : inputs) res.inputs.push_back(in.rel);
    auto t0 = std::chrono::steady_clock::now();
    const int64_t action_ts = trace_.now_us();
    std::shared_ptr<const ActionRecord> rec;
    ActionTrail trail;
    std::vector<OutputRecord> written;
    try {
        for (const auto& in : inputs)
            if (!in.link_escape.empty()) throw std::runtime_error(in.link_escape);
        if (!scan_) throw std::logic_error("the dirty scan is not set up");
        const int64_t key_ts = trace_.now_us();
        const DirtyScan::Key key = scan_->key(j, inputs);
        trace_.add("key", job.name, res.input, key_ts, trace_.now_us() - key_ts);
        res.key = key.key.hex();
        rec = store_->action(job.name, res.input);
        std::optional<ActionRecord> refreshed;
        std::string edited;
        res.reason = scan_->out_of_date(job, rec, j.signature, key.input_hash, refreshed, edited);
        if (res.reason.empty() && std::any_of(inputs.begin(), inputs.end(), [](auto& in) { return in.will_change; }))
            res.reason = "an upstream action will rebuild its input";
        // A clean build would fail on what it discards; a state that never recorded it must not let this pass.
        if (res.reason.empty() && opt_.warnings_as_errors && rec && !rec->warnings_known)
            res.reason = "--warnings-as-errors, and the state (from an older version) does not say what it discarded";
        if (!edited.empty() && !opt_.overwrite_edited) {
            trail.step = "check";
            throw std::runtime_error("output " + edited +
                                     " was edited since the build wrote it; not replaced (pass "
                                     "--overwrite-edited to discard the edit, or move the file into the sources)");
        }
        if (res.reason.empty()) {
            res.status = ActionStatus::UpToDate;
            if (refreshed) {
                if (!opt_.dry_run) store_->put_action(*refreshed);
                rec = std::make_shared<const ActionRecord>(std::move(*refreshed));
            }
            for (const auto& o : rec->outputs) {
                res.outputs.push_back(o.path);
                produced.push_back(output_input(o.path, o.hash, origin));
                commit_->claim(produced.back().abs, who);
            }
            put_kept_warnings(res.metrics, rec->warnings, "an earlier build");
            trace_.add_action(job.name, res.input, action_ts, trace_.now_us() - action_ts,
                              std::string(to_string(res.status)), rec->warnings);
            return done;
        }
        if (check_only && !opt_.dry_run) {
            done.must_run = true;
            done.pending = std::move(inputs);
            return done;
        }
        status_.explain(res);
        const std::string rkey =
            remote_ ? remote_action_key(j.signature, key.input_hash, opt_.plugin_identities) : std::string();
        if (opt_.dry_run) {
            res.status = remote_ && remote_->lookup(rkey) ? ActionStatus::WouldFetch : ActionStatus::WouldRun;
            if (rec)
                for (const auto& o : rec->outputs) produced.push_back(output_input(o.path, o.hash, origin, true));
            return done;
        }

        status_.progress().started(who);
        std::optional<std::vector<ActionOutput>> cached;
        std::optional<BudgetLease> lease;
        std::vector<std::string> cached_warnings;
        if (remote_)
            cached = fetch_cached(j, rkey, res.input, job.is_gather() ? std::string() : inputs.at(0).name, who,
                                  rec.get(), lease, cached_warnings);
        const bool from_cache = cached.has_value();
        if (!from_cache) lease.reset();
        std::vector<ActionOutput> outputs;
        if (from_cache) {
            outputs = std::move(*cached);
            // Any plugin changing makes it run again: what built it elsewhere is not known here.
            trail.tools = {opt_.plugin_identities};
            put_kept_warnings(res.metrics, cached_warnings, "the remote cache");
        } else {
            std::vector<ActionFile> files;
            for (const auto& in : inputs) files.push_back({in.rel, in.abs});
            lease.emplace(budget_, action_memory_within(job, files, budget_.limit()));
            std::vector<Item> items;
            for (const auto& in : inputs) {
                const int64_t ts = trace_.now_us();
                // A globbed file is read only where its input root allows: the glob
                // checked the name, this checks the file actually opened.
                const std::string within =
                    job.follow_links || in.hash ? std::string() : input_root_for(in.abs, job.input_root, p_.root).real;
                items.push_back(bytes_item(in.name, disk_.read(in.abs, within)));
                trace_.add("read file", job.name, res.input, ts, trace_.now_us() - ts,
                           int64_t(items.back().bytes->size()));
            }
            ActionRun run{job, j.tpl, steps_, p_.root, paths_, trace_, opt_.cancelled};
            run.keep_textures = images_.has_value();
            if (opt_.verbose)
                run.on_step = [this, &who](const std::string& step, double ms) {
                    char t[32];
                    snprintf(t, sizeof t, "%.1f ms", ms);
                    status_.progress().line("  " + who + ": " + step + " (" + t + ")");
                };
            outputs = run_action(run, std::move(items), job.is_gather() ? "" : inputs.at(0).name, res.input, trail);
            res.metrics = std::move(trail.metrics);
            if (trail.source && trail.result) {
                const int64_t ts = trace_.now_us();
                res.images = std::make_shared<const ReportFigures>(
                    images_->add(job.name, res.input, job.is_gather() ? fs::path() : fs::path(inputs.at(0).abs),
                                 *trail.source, *trail.result, steps_.top_image));
                trace_.add("report pictures", job.name, res.input, ts, trace_.now_us() - ts);
            }
            trail.source.reset(), trail.result.reset();
        }
        if (cancelled()) throw Cancelled{};
        auto committed = commit_->commit(job, outputs, who, trace_, res.input);
        written = committed.written;
        for (const auto& w : written) {
            res.outputs.push_back(w.path);
            produced.push_back(output_input(w.path, w.hash, origin));
        }
        if (committed.kept_edits) res.metrics["kept_existing_outputs"] = committed.kept_edits;
        // Outputs this action made last time but not now (template or item set changed).
        if (rec)
            for (const auto& o : rec->outputs)
                if (std::none_of(written.begin(), written.end(), [&](auto& w) { return w.path == o.path; }))
                    commit_->remove_output(o);
        ActionRecord nr;
        nr.job = job.name;
        nr.input = res.input;
        nr.key = key.key;
        nr.input_hash = key.input_hash;
        nr.params_hash = j.signature;
        nr.tools = join_tools(trail.tools);
        nr.outputs = written;
        nr.status = ActionRecord::Status::Built;
        nr.warnings = warnings_in(res.metrics);
        res.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        nr.duration_ms = res.duration_ms;
        const int64_t rts = trace_.now_us();
        store_->put_action(nr);
        trace_.add("commit", job.name, res.input, rts, trace_.now_us() - rts); // the build state
        res.status = from_cache ? ActionStatus::Cached : ActionStatus::Built;
        if (!from_cache && remote_) upload(j, rkey, outputs, res.input, nr.warnings);
        trace_.add_action(job.name, res.input, action_ts, trace_.now_us() - action_ts,
                          std::string(to_string(res.status)), nr.warnings);
        return done;
    } catch (const Cancelled&) {
        res.status = ActionStatus::NotRun;
        res.reason = "cancelled";
        produced.clear();
        return done;
    } catch (const std::exception& e) {
        if (cancelled() && written.empty()) {
            // Ctrl-C reached a step (a codec stops with "cancelled"): that is
            // not the input's fault. Nothing was written; it runs next time.
            res.status = ActionStatus::NotRun;
            res.reason = "cancelled";
            produced.clear();
            return done;
        }
        res.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        res.status = ActionStatus::Failed;
        res.failed_step = trail.step;
        res.error = sdk::describe(e); // the report names the job, input and step
        if (res.metrics.is_null() && !trail.metrics.is_null()) res.metrics = std::move(trail.metrics);
        if (!opt_.dry_run) record_failure(job, res, trail.step, written, rec);
        produced.clear();
        done.failed = true;
        trace_.add_action(job.name, res.input, action_ts, trace_.now_us() - action_ts, "failed",
                          warnings_in(res.metrics));
        return done;
    }
}

} // namespace

BuildSummary run_build(const Pipeline& p, const StepTable& steps, const BuildOptions& opt) {
    if (!opt.exiting_after) {
        Build b(p, steps, opt);
        return b.run();
    }
    // Deliberately never deleted (see BuildOptions::exiting_after); a global
    // keeps it reachable, so leak checkers do not report it (volatile: the
    // compiler may not drop a store it sees no reader for).
    static Build* volatile kept = nullptr;
    kept = new Build(p, steps, opt);
    return kept->run();
}

} // namespace af::engine
