#include "engine/build.hpp"

#include "core/atomic_file.hpp"
#include "core/content_hash.hpp"
#include "engine/action_memory.hpp"
#include "engine/build_lock.hpp"
#include "engine/config_error.hpp"
#include "engine/glob.hpp"
#include "engine/memory_budget.hpp"
#include "engine/output_root_guard.hpp"
#include "engine/output_template.hpp"
#include "engine/param_inputs.hpp"
#include "engine/plan.hpp"
#include "engine/progress.hpp"
#include "engine/run_marker.hpp"
#include "engine/state_store.hpp"
#include "engine/trace.hpp"

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/task_group.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

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

// Bump when the engine's own output for the same key would change.
constexpr const char* kEngineKeyVersion = "assetforge-engine-2";

struct Cancelled {};

// ThreadSanitizer cannot see the synchronisation inside libtbb (it is not
// instrumented), so everything a task reads that its spawner wrote, and
// everything wait() returns to that the task wrote, would look like a race.
// Under TSan only, spawning, starting, ending and waiting pass through one
// mutex: exactly the happens-before edges TBB provides. Elsewhere: nothing.
struct TaskHandoff {
#if defined(__SANITIZE_THREAD__)
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

struct Input {
    std::string rel;             // relative to the project root (or absolute outside it)
    std::string abs;             // a string, not fs::path: a no-op build makes 10,000s
    std::string name;            // item name: relative to the glob base / upstream output directory
    std::optional<Hash128> hash; // known for upstream outputs
    bool will_change = false;    // dry run: the upstream action would rebuild it
    std::string link_escape;     // a link out of the input root: the action fails with this
};

struct JobRun {
    const Job* job = nullptr;
    PlanJob* plan = nullptr;
    std::vector<ParamRead> param_reads; // files and folders step parameters name: part of each action's key
    OutputTemplate tpl;
    std::string out_base; // absolute fixed directory of the output template, normal
    Hash128 signature;    // normalised steps, versions, template
    std::vector<JobRun*> from_down, dependents;
    int pending_from = 0, pending_needs = 0;
    bool expanded = false, sealed = false, complete = false;
    bool had_failure = false, upstream_failed = false, expand_failed = false;
    int outstanding = 0;
    std::vector<Input> buffered, gathered, prefetched;
    bool has_prefetched = false;
    std::unordered_set<std::string> seen;
};

// A finished action and the outputs it hands to downstream jobs.
struct Done {
    ActionResult res;
    std::vector<Input> produced;
    bool failed = false;
    std::vector<Input> pending; // status "pending": checked, must run; its inputs
};

// Hashes feed keys as raw bytes (formatting them as hex was a visible cost).
void field(Hasher& h, const Hash128& v) {
    uint64_t w[2] = {v.lo, v.hi};
    h.field(std::string_view(reinterpret_cast<const char*>(w), sizeof w));
}

std::vector<uint8_t> read_whole(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) throw std::runtime_error(p.string() + ": cannot open");
    in.seekg(0, std::ios::end);
    auto n = in.tellg();
    in.seekg(0);
    std::vector<uint8_t> v(n < 0 ? size_t(0) : size_t(n));
    if (!v.empty() && !in.read(reinterpret_cast<char*>(v.data()), std::streamsize(v.size())))
        throw std::runtime_error(p.string() + ": read failed");
    return v;
}

Hash128 job_signature(const Job& j) {
    Hasher h;
    h.field(kEngineKeyVersion);
    auto step = [&](const StepUse& s) {
        h.field(s.name);
        h.field(std::to_string(s.def->version));
        h.field(s.def->provider);
        for (const auto& [k, v] : s.params) {
            h.field(k);
            h.field(v);
        }
        h.field("|");
    };
    for (const auto& s : j.steps) step(s);
    h.field("gather");
    if (j.is_gather()) step(j.gather);
    h.field(j.output);
    return h.digest();
}

// "dds@1.0#ab12;bc@1.2#cd34" → names, compared against what is loaded now.
std::string tools_changed(const std::string& recorded, const BuildOptions& opt) {
    if (recorded.empty()) return "";
    std::stringstream ss(recorded);
    std::string t;
    while (std::getline(ss, t, ';')) {
        std::string name = t.substr(0, t.find('@'));
        std::string now = opt.tool_identity ? opt.tool_identity(name) : "";
        if (now != t) return "plugin " + name + " changed (" + t + " → " + (now.empty() ? "not loaded" : now) + ")";
    }
    return "";
}

std::string join_tools(std::vector<std::string> tools) {
    std::sort(tools.begin(), tools.end());
    tools.erase(std::unique(tools.begin(), tools.end()), tools.end());
    std::string s;
    for (const auto& t : tools) s += (s.empty() ? "" : ";") + t;
    return s;
}

class Build {
  public:
    Build(const Pipeline& p, const StepTable& steps, const BuildOptions& opt)
        : p_(p), steps_(steps), opt_(opt), out_(opt.out ? *opt.out : std::cout), err_(opt.err ? *opt.err : std::cerr),
          root_str_(p.root.native()), budget_(opt.memory_budget ? opt.memory_budget : 1),
          progress_(out_, progress_mode()) {
        root_fd_ = ::open(root_str_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (root_fd_ < 0) root_fd_ = AT_FDCWD; // then only absolute paths are stat'ed correctly: fall back below
        if (!opt_.trace_file.empty()) trace_.enable();
    }
    ~Build() {
        if (root_fd_ >= 0) ::close(root_fd_);
    }

    // An output handed downstream (its name is set by the receiving job).
    Input output_input(const std::string& rel, const Hash128& hash, bool will_change = false) const {
        Input in;
        in.rel = rel;
        in.abs = abs_of(rel);
        in.hash = hash;
        in.will_change = will_change;
        return in;
    }

    // Stats a path relative to the project root (or absolute).
    std::optional<FileStat> stat_rel(const std::string& rel, const std::string& abs) const {
        return root_fd_ == AT_FDCWD ? stat_file(abs.c_str()) : stat_file_at(root_fd_, rel.c_str());
    }

    BuildSummary run() {
        auto t0 = std::chrono::steady_clock::now();
        const auto started = fs::file_time_type::clock::now();
        std::optional<BuildLock> lock;
        if (!opt_.dry_run) {
            try {
                lock.emplace(
                    state_dir(p_), [&](const std::string& msg) { err_ << "assetforge: " << msg << "\n"
                                                                      << std::flush; },
                    opt_.cancelled);
            } catch (const BuildLock::Cancelled&) {
                summary_.cancelled = true;
                return std::move(summary_);
            }
        }
        std::optional<RunMarker> marker;
        if (!opt_.dry_run) marker.emplace(state_dir(p_));
        std::optional<tbb::global_control> gc;
        if (opt_.threads > 0) gc.emplace(tbb::global_control::max_allowed_parallelism, size_t(opt_.threads));
        load_state_and_expand();
        if (!store_->recovered_note().empty()) err_ << "assetforge: warning: " << store_->recovered_note() << "\n";
        if (!plan_build()) {
            if (opt_.exiting_after) store_->close();
            return std::move(summary_);
        }
        {
            std::lock_guard lk(mu_);
            for (auto& j : runs_)
                if (j.pending_from == 0 && j.pending_needs == 0) advance_locked(j);
        }
        tg_.wait();
        TaskHandoff::pass();
        progress_.finish();
        store_->flush();
        if (opt_.dry_run && !opt_.status_json) report_orphans();
        store_->flush();
        if (marker && marker->previous_build_was_killed()) sweep_temporaries(started);
        if (opt_.exiting_after) store_->close();
        summary_.cancelled = cancelled();
        double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (!opt_.trace_file.empty()) trace_.write(opt_.trace_file);
        if (!opt_.report_file.empty()) write_report(secs);
        print_summary(secs);
        return std::move(summary_);
    }

  private:
    Progress::Mode progress_mode() const {
        if (opt_.quiet) return Progress::Mode::Quiet;
        if (opt_.progress == 1) return Progress::Mode::Terminal;
        if (opt_.progress == 0) return Progress::Mode::Plain;
        return (&out_ == &std::cout && isatty(1)) ? Progress::Mode::Terminal : Progress::Mode::Plain;
    }

    bool cancelled() const { return opt_.cancelled && opt_.cancelled(); }

    // Paths here are already normal, so plain string prefixes do (a no-op
    // build converts tens of thousands of them).
    std::string rel_of(const std::string& s) const {
        if (s.size() > root_str_.size() && s.compare(0, root_str_.size(), root_str_) == 0 && s[root_str_.size()] == '/')
            return s.substr(root_str_.size() + 1);
        return s;
    }
    std::string abs_of(const std::string& rel) const {
        if (!rel.empty() && rel[0] == '/') return rel;
        std::string s = root_str_;
        s.append(1, '/').append(rel);
        return s;
    }

    // The state database loads on its own thread while the input globs of
    // the first jobs are walked: the two are most of a no-op build's
    // serial part.
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
            for (auto& pj : plan_jobs_) pj.matches = expand_matches(*pj.job, &pj.per_pattern);
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
        std::map<std::string, JobRun*> by_name;
        for (size_t i = 0; i < p_.jobs.size(); ++i) {
            JobRun& r = runs_[i];
            r.job = &p_.jobs[i];
            r.plan = &plan_jobs_[i];
            r.tpl = r.plan->tpl;
            r.out_base = r.plan->out_base;
            r.signature = job_signature(*r.job);
            r.param_reads = param_reads(*r.job, p_.root);
            by_name[r.job->name] = &r;
        }
        for (auto& r : runs_) {
            for (const auto& f : r.job->from) {
                by_name[f]->from_down.push_back(&r);
                by_name[f]->dependents.push_back(&r);
                ++r.pending_from;
            }
            for (const auto& n : r.job->needs) {
                by_name[n]->dependents.push_back(&r);
                ++r.pending_needs;
            }
        }
    }

    std::vector<GlobMatch> expand_matches(const Job& j, std::vector<size_t>* per_pattern) {
        GlobOptions go;
        go.input_root = j.input_root;
        go.follow_links = j.follow_links;
        auto matches = expand_globs(p_.root, j.patterns, j.excludes, go, per_pattern);
        // The state may live inside the project (--state-dir): never an input.
        std::string sd = state_dir(p_).lexically_normal().native() + "/";
        std::erase_if(matches, [&](const GlobMatch& m) { return m.path.compare(0, sd.size(), sd) == 0; });
        return matches;
    }

    std::vector<Input> to_inputs(std::vector<GlobMatch> matches) {
        std::vector<Input> v;
        v.reserve(matches.size());
        for (auto& m : matches) {
            std::string rel = rel_of(m.path);
            Input in;
            in.rel = std::move(rel);
            in.abs = std::move(m.path);
            in.name = std::move(m.name);
            in.link_escape = std::move(m.link_escape);
            v.push_back(std::move(in));
        }
        return v;
    }

    // The inputs of a job whose globs are expanded now: at the start, or for
    // a `needs` job once those finished (then the files they wrote count).
    std::vector<Input> job_inputs(JobRun& j) {
        PlanJob& pj = *j.plan;
        if (!pj.late) return to_inputs(std::move(pj.matches));
        std::vector<size_t> per_pattern;
        pj.matches = expand_matches(*j.job, &per_pattern);
        {
            std::lock_guard lk(claims_mu_);
            filter_matches(pj, plan_state_, claims_);
        }
        if (auto empty = empty_patterns(*j.job, per_pattern); !empty.empty()) throw std::runtime_error(empty.front());
        return to_inputs(std::move(pj.matches));
    }

    // Before anything runs: what each job reads and writes, checked against
    // the promises (plan.hpp). False when the build must not start.
    bool plan_build() {
        std::set<std::string> names;
        for (const auto& j : p_.jobs) names.insert(j.name);
        for (const auto& j : p_.unselected) names.insert(j.name);
        const std::string& self = store_->self();
        store_->for_each_action([&](const ActionRecord& rec) {
            bool own = rec.owner == self;
            // Outputs of jobs no longer in the pipeline are nobody's input:
            // they are removed below.
            auto kind = !own                   ? Recorded::Kind::Foreign
                        : names.count(rec.job) ? Recorded::Kind::Own
                                               : Recorded::Kind::Gone;
            for (const auto& o : rec.outputs) {
                plan_state_.recorded[abs_of(o.path)] = {kind, rec.job, o.hash, o.st};
                if (!own) foreign_owner_[o.path] = {rec.owner, rec.job, rec.input};
            }
        });
        plan_ = make_plan(plan_jobs_, plan_state_, p_.root);
        for (const auto& n : plan_.notes)
            if (!opt_.quiet) progress_.line(printable_name(n));
        if (plan_.exit_code) {
            for (const auto& e : plan_.errors) err_ << "assetforge: " << printable_name(e) << "\n";
            err_ << "assetforge: nothing was run"
                 << (plan_.exit_code == 2 ? " (the pipeline breaks a promise of a build; see above)" : "") << "\n";
            summary_.plan_exit = plan_.exit_code;
            return false;
        }
        if (!cancelled()) remove_vanished_jobs();
        for (auto& j : runs_)
            if (!j.plan->late) {
                j.prefetched = job_inputs(j);
                j.has_prefetched = true;
            }
        return true;
    }

    // Called with mu_ held whenever a job's upstream state changed.
    void advance_locked(JobRun& j) {
        if (j.complete) return;
        if (j.pending_needs == 0 && !j.has_prefetched && !j.expand_failed) {
            try {
                j.prefetched = job_inputs(j);
                j.has_prefetched = true;
            } catch (const std::exception& e) {
                // A `needs` job whose pattern matched nothing: it fails, and
                // nothing of its is removed as stale.
                j.expand_failed = true;
                j.had_failure = true;
                ActionResult r;
                r.job = j.job->name;
                r.input = "*";
                r.status = "failed";
                r.failed_step = "inputs";
                r.error = e.what();
                ++summary_.failed;
                summary_.actions.push_back(std::move(r));
                if (opt_.fail_fast) stop_ = true;
            }
        }
        if (!j.job->is_gather() && j.pending_needs == 0 && !j.expanded && !j.expand_failed) {
            j.expanded = true;
            auto inputs = std::move(j.prefetched);
            j.prefetched.clear();
            inputs.insert(inputs.end(), std::make_move_iterator(j.buffered.begin()),
                          std::make_move_iterator(j.buffered.end()));
            j.buffered.clear();
            progress_.add_total(inputs.size());
            spawn_many_locked(j, std::move(inputs));
        }
        if (j.pending_needs == 0 && j.pending_from == 0 && !j.sealed) {
            j.sealed = true;
            if (j.job->is_gather() && !j.expand_failed) {
                auto inputs = std::move(j.prefetched);
                j.prefetched.clear();
                inputs.insert(inputs.end(), j.gathered.begin(), j.gathered.end());
                j.gathered.clear();
                std::sort(inputs.begin(), inputs.end(), [](const Input& a, const Input& b) { return a.name < b.name; });
                progress_.add_total(1);
                spawn_locked(j, std::move(inputs));
            }
        }
        check_complete_locked(j);
    }

    void check_complete_locked(JobRun& j) {
        if (j.complete || !j.sealed || j.outstanding > 0) return;
        j.complete = true;
        remove_stale_locked(j);
        for (JobRun* d : j.dependents) {
            if (j.had_failure || j.upstream_failed) d->upstream_failed = true;
            if (std::find(d->job->from.begin(), d->job->from.end(), j.job->name) != d->job->from.end())
                --d->pending_from;
            if (std::find(d->job->needs.begin(), d->job->needs.end(), j.job->name) != d->job->needs.end())
                --d->pending_needs;
            advance_locked(*d);
        }
    }

    // One action with all of `inputs` (a gather).
    void spawn_locked(JobRun& j, std::vector<Input> inputs) {
        ++j.outstanding;
        // task_group runs its functor as const: the inputs travel in a shared box.
        auto box = std::make_shared<std::vector<Input>>(std::move(inputs));
        [[maybe_unused]] TaskHandoff handoff;
        tg_.run([this, &j, box] {
            TaskHandoff::pass();
            Done d = execute(j, std::move(*box));
            std::vector<Done> one;
            one.push_back(std::move(d));
            {
                std::lock_guard lk(mu_);
                record_locked(j, one);
                --j.outstanding;
                check_complete_locked(j);
            }
            TaskHandoff::pass();
        });
    }

    // One action per input. Up-to-date checks run in chunks, a task each,
    // recorded a chunk at a time (a no-op build is nothing but checks); each
    // action that must run becomes its own task as soon as its chunk is
    // checked, so heavy actions spread over every thread and their outputs
    // flow downstream file by file. Chunks are task-group tasks rather than a
    // nested parallel_for: then every hand-over between threads goes through
    // TaskHandoff, which is what lets ThreadSanitizer see the ordering
    // (parallel_for's partitioner synchronises inside libtbb, where TSan
    // cannot look, and was reported as racing).
    void spawn_many_locked(JobRun& j, std::vector<Input> inputs) {
        constexpr size_t kChunk = 16;
        auto all = std::make_shared<std::vector<Input>>(std::move(inputs));
        for (size_t begin = 0; begin < all->size(); begin += kChunk) {
            const size_t end = std::min(all->size(), begin + kChunk);
            ++j.outstanding;
            [[maybe_unused]] TaskHandoff handoff;
            tg_.run([this, &j, all, begin, end] {
                TaskHandoff::pass();
                std::vector<Done> checked;
                std::vector<std::vector<Input>> to_run;
                for (size_t i = begin; i != end; ++i) {
                    std::vector<Input> one;
                    one.push_back(std::move((*all)[i]));
                    Done d = execute(j, std::move(one), true);
                    if (d.res.status == "pending")
                        to_run.push_back(std::move(d.pending));
                    else
                        checked.push_back(std::move(d));
                }
                {
                    std::lock_guard lk(mu_);
                    record_locked(j, checked);
                    for (auto& in : to_run) spawn_locked(j, std::move(in));
                    --j.outstanding;
                    check_complete_locked(j);
                }
                TaskHandoff::pass();
            });
        }
    }

    // Counts finished actions and hands their outputs to the jobs that take
    // them `from` this one.
    void record_locked(JobRun& j, std::vector<Done>& done) {
        if (done.empty()) return;
        std::vector<Input> forward;
        size_t quiet = 0;
        for (auto& d : done) {
            ActionResult& res = d.res;
            bool ran = res.status == "built" || res.status == "failed";
            if (ran || res.status == "not-run")
                progress_.finished(res.job + ": " + res.input, ran, d.failed);
            else
                ++quiet;
            if (d.failed) {
                j.had_failure = true;
                if (opt_.fail_fast) stop_ = true;
            }
            if (res.status == "built")
                ++summary_.built;
            else if (res.status == "up-to-date")
                ++summary_.up_to_date;
            else if (res.status == "failed")
                ++summary_.failed;
            else if (res.status == "not-run")
                ++summary_.not_run;
            j.seen.insert(res.input);
            if (!j.from_down.empty())
                for (auto& o : d.produced) {
                    o.name = name_below(o.abs, j.out_base);
                    forward.push_back(std::move(o));
                }
            summary_.actions.push_back(std::move(res));
        }
        progress_.up_to_date(quiet);
        if (forward.empty()) return;
        for (JobRun* d : j.from_down) {
            if (d->job->is_gather())
                d->gathered.insert(d->gathered.end(), forward.begin(), forward.end());
            else if (d->pending_needs > 0)
                d->buffered.insert(d->buffered.end(), forward.begin(), forward.end());
            else {
                progress_.add_total(forward.size());
                spawn_many_locked(*d, forward);
            }
        }
    }

    static std::string name_below(const std::string& abs, const std::string& base) {
        if (abs.size() > base.size() && abs.compare(0, base.size(), base) == 0 && abs[base.size()] == '/')
            return abs.substr(base.size() + 1);
        return fs::path(abs).lexically_relative(base).generic_string();
    }

    void explain(const ActionResult& r) {
        if (opt_.explain) progress_.line("explain: " + r.job + ": " + r.input + ": " + r.reason);
    }

    // Why the action must run, or "" when its recorded outputs are current.
    // `refreshed`: set when an output's stat changed but its record should
    // simply take the new stat (touched, copied back: same content) or, in a
    // keep_edits job, the edited content (the edit is the point).
    // `edited`: the output whose content differs from what the build wrote.
    std::string out_of_date(const Job& job, const std::shared_ptr<const ActionRecord>& rec, const Hash128& params,
                            const Hash128& input_hash, std::optional<ActionRecord>& refreshed, std::string& edited) {
        if (!rec) return "new input";
        if (rec->status == "failed" || rec->key == Hash128{}) return "failed last time";
        if (rec->params_hash != params) return "parameters changed";
        if (rec->input_hash != input_hash) return "input changed";
        if (auto t = plugins_changed(rec->tools); !t.empty()) return t;
        for (size_t i = 0; i < rec->outputs.size(); ++i) {
            const auto& o = rec->outputs[i];
            auto st = root_fd_ == AT_FDCWD ? stat_file(abs_of(o.path).c_str()) : stat_file_at(root_fd_, o.path.c_str());
            if (!st) return "output missing: " + o.path;
            if (*st == o.st) continue;
            Hash128 h;
            try {
                h = hash_file(abs_of(o.path));
            } catch (const std::exception&) {
                return "output unreadable: " + o.path;
            }
            if (!(h == o.hash) && !job.keep_edits) {
                edited = o.path;
                return "output edited: " + o.path;
            }
            if (!refreshed) refreshed = *rec;
            refreshed->outputs[i].st = *st;
            refreshed->outputs[i].hash = h;
        }
        return "";
    }

    // An output about to be written over an existing file: whether that may
    // happen. Write: the file is what the build last wrote (or
    // --overwrite-edited); Same: it already holds these bytes (re-record,
    // do not rewrite); Keep: a keep_edits job leaves it. Throws when the file
    // is an input, or content the build did not write (an edit, a source).
    enum class Existing { Absent, Write, Same, Keep };
    Existing check_existing(const Job& job, const std::string& rel, const fs::path& out, const Hash128& new_hash,
                            OutputRecord& kept) {
        struct stat lst;
        if (::lstat(out.c_str(), &lst) != 0 || !S_ISREG(lst.st_mode)) return Existing::Absent;
        auto st = stat_file(out);
        if (!st) return Existing::Absent;
        std::optional<Known> known;
        {
            std::lock_guard lk(known_mu_);
            if (auto it = known_.find(rel); it != known_.end())
                known = it->second;
            else if (auto r = plan_state_.recorded.find(out.native()); r != plan_state_.recorded.end())
                known = Known{r->second.hash, r->second.st};
        }
        Hash128 h;
        if (known && known->st == *st) {
            h = known->hash;
        } else {
            h = hash_file(out);
        }
        kept = {rel, h, *st};
        if (h == new_hash) return Existing::Same;
        if (!(known && known->hash == h) && is_source(out.native()))
            throw std::runtime_error("output " + rel + " is an input of this build (" + job.output +
                                     "); a build never writes over its inputs");
        if (job.keep_edits) return Existing::Keep;
        if (known && known->hash == h) return Existing::Write;
        if (opt_.overwrite_edited) return Existing::Write;
        if (known)
            throw std::runtime_error("output " + rel +
                                     " was edited since the build wrote it; not replaced (pass --overwrite-edited "
                                     "to discard the edit, or move the file into the sources)");
        throw std::runtime_error("output " + rel +
                                 " exists but the build did not write it (a source, or written before the build "
                                 "state was lost); not replaced (pass --overwrite-edited to replace it, or move it "
                                 "away)");
    }

    // Plugins recorded by many actions are the same few strings: decide each once.
    std::string plugins_changed(const std::string& recorded) {
        if (recorded.empty()) return "";
        std::lock_guard lk(tools_mu_);
        auto it = tools_verdicts_.find(recorded);
        if (it == tools_verdicts_.end()) it = tools_verdicts_.emplace(recorded, tools_changed(recorded, opt_)).first;
        return it->second;
    }

    // check_only: an action that must run comes back "pending" with its
    // inputs instead of running (the caller gives it a task of its own).
    Done execute(JobRun& j, std::vector<Input> inputs, bool check_only = false) {
        const Job& job = *j.job;
        Done done;
        ActionResult& res = done.res;
        std::vector<Input>& produced = done.produced;
        res.job = job.name;
        res.input = job.is_gather() ? "*" : inputs.at(0).rel;
        for (const auto& in : inputs) res.inputs.push_back(in.rel);
        if (stop_ || cancelled() || (job.is_gather() && j.upstream_failed)) {
            res.status = "not-run";
            res.reason = j.upstream_failed ? "an upstream job failed" : "build stopped";
            return done;
        }
        progress_.started(job.name + ": " + res.input);
        auto t0 = std::chrono::steady_clock::now();
        const int64_t action_ts = trace_.now_us();
        std::shared_ptr<const ActionRecord> rec;
        std::string step_name = "read";
        std::vector<std::string> tools;
        std::vector<OutputRecord> written;
        try {
            for (const auto& in : inputs)
                if (!in.link_escape.empty()) throw std::runtime_error(in.link_escape);
            const int64_t key_ts = trace_.now_us();
            Hasher ih;
            for (auto& in : inputs) {
                if (!in.hash) {
                    auto st = stat_rel(in.rel, in.abs);
                    if (!st) throw std::runtime_error(in.abs + ": file not found");
                    in.hash = store_->file_hash(in.rel, in.abs.c_str(), *st);
                }
                ih.field(in.name);
                field(ih, *in.hash);
            }
            if (!j.param_reads.empty())
                hash_param_reads(j.param_reads, job, p_.root, *store_, ih, inputs.size() == 1 ? inputs[0].name : "");
            Hash128 input_hash = ih.digest();
            trace_.add("key", job.name, res.input, key_ts, trace_.now_us() - key_ts);
            Hasher kh;
            field(kh, j.signature);
            field(kh, input_hash);
            Hash128 key = kh.digest();
            res.key = key.hex();
            rec = store_->action(job.name, res.input);
            std::optional<ActionRecord> refreshed;
            std::string edited;
            res.reason = out_of_date(job, rec, j.signature, input_hash, refreshed, edited);
            if (res.reason.empty() &&
                std::any_of(inputs.begin(), inputs.end(), [](auto& in) { return in.will_change; }))
                res.reason = "an upstream action will rebuild its input";
            if (!edited.empty() && !opt_.overwrite_edited) {
                step_name = "check";
                throw std::runtime_error("output " + edited +
                                         " was edited since the build wrote it; not replaced (pass "
                                         "--overwrite-edited to discard the edit, or move the file into the sources)");
            }
            if (res.reason.empty()) {
                res.status = "up-to-date";
                if (refreshed) {
                    if (!opt_.dry_run) store_->put_action(*refreshed);
                    rec = std::make_shared<const ActionRecord>(std::move(*refreshed));
                }
                for (const auto& o : rec->outputs) {
                    res.outputs.push_back(o.path);
                    produced.push_back(output_input(o.path, o.hash));
                    claim(produced.back().abs, res);
                }
                return done;
            }
            if (check_only && !opt_.dry_run) {
                res.status = "pending";
                done.pending = std::move(inputs);
                return done;
            }
            explain(res);
            if (opt_.dry_run) {
                res.status = "would-run";
                if (rec)
                    for (const auto& o : rec->outputs) produced.push_back(output_input(o.path, o.hash, true));
                return done;
            }
            std::vector<ActionFile> files;
            for (const auto& in : inputs) files.push_back({in.rel, in.abs});
            BudgetLease lease(budget_, action_memory_within(job, files, budget_.limit()));
            std::vector<Item> items;
            for (const auto& in : inputs) {
                const int64_t ts = trace_.now_us();
                items.push_back(bytes_item(in.name, read_whole(in.abs)));
                trace_.add("read file", job.name, res.input, ts, trace_.now_us() - ts,
                           int64_t(items.back().bytes->size()));
            }
            std::string ext = fs::path(job.output).extension().string();
            if (!ext.empty()) ext = ext.substr(1);
            auto run_step = [&](const StepUse& s, std::vector<Item> in_items) {
                step_name = s.name;
                if (cancelled()) throw Cancelled{};
                if (s.def->takes_texture)
                    for (auto& it : in_items)
                        if (!it.is_texture()) {
                            if (!steps_.reader) throw std::runtime_error("no texture reader is available");
                            const int64_t ts = trace_.now_us();
                            const int64_t n = int64_t(it.bytes ? it.bytes->size() : 0);
                            it = steps_.reader(it, tools);
                            trace_.add("parse", job.name, res.input, ts, trace_.now_us() - ts, n);
                        }
                StepContext ctx{s.params, p_.root, ext, tools, res.metrics, opt_.cancelled};
                int64_t ts = trace_.now_us();
                auto out = s.def->run(ctx, std::move(in_items));
                trace_.add(s.name, job.name, res.input, ts, trace_.now_us() - ts);
                return out;
            };
            for (const auto& s : job.steps) {
                std::vector<Item> next;
                for (auto& it : items) {
                    // Not `{std::move(it)}`: an initializer list copies, and its
                    // own element (the input's bytes) would live through the step.
                    std::vector<Item> one;
                    one.push_back(std::move(it));
                    auto out = run_step(s, std::move(one));
                    for (auto& o : out) next.push_back(std::move(o));
                }
                items = std::move(next);
            }
            if (job.is_gather()) items = run_step(job.gather, std::move(items));
            step_name = "write";
            if (cancelled()) throw Cancelled{};
            // Every output is encoded and checked before the first is
            // written: an action that may not replace one of its outputs
            // changes none of them.
            struct Pending {
                fs::path out;
                std::string rel;
                std::vector<uint8_t> encoded;
                const std::vector<uint8_t>* item_bytes = nullptr; // the item's own bytes (items do not move)
                Hash128 hash;
                const std::vector<uint8_t>& data() const { return item_bytes ? *item_bytes : encoded; }
                Existing existing = Existing::Absent;
                OutputRecord kept;
            };
            std::vector<Pending> pending;
            std::set<fs::path> mine;
            for (const auto& it : items) {
                auto values = template_values(it.name, it.meta, job.name);
                // Plugin stages name the items they emit ("2_0_1.bin"); these keep
                // the action's own input reachable: {input_dir}/{input_stem}/….
                if (!job.is_gather()) {
                    auto in = template_values(inputs.at(0).name, {}, job.name);
                    for (const char* k : {"dir", "stem", "name", "ext"})
                        values.emplace(std::string("input_") + k, in[k]);
                }
                Pending& w = pending.emplace_back();
                w.out = resolve_output(j.tpl, values, p_.root);
                w.rel = rel_of(w.out.native());
                if (!mine.insert(w.out).second)
                    throw std::runtime_error("two items map to the same output " + w.rel +
                                             "; add {mip}/{face}/{layer} or similar to the output template");
                claim(w.out.native(), res);
                if (it.is_texture()) {
                    if (!steps_.writer) throw std::runtime_error("no texture writer is available");
                    const int64_t ts = trace_.now_us();
                    w.encoded = steps_.writer(it, w.out, tools);
                    // "encode dds", "encode png": the container's writer (the step named encode is a codec)
                    trace_.add("encode " + (it.container.empty() ? w.out.extension().string().substr(std::min<size_t>(
                                                                       1, w.out.extension().string().size()))
                                                                 : it.container),
                               job.name, res.input, ts, trace_.now_us() - ts, int64_t(w.encoded.size()));
                } else if (it.bytes) {
                    w.item_bytes = it.bytes.get();
                } else {
                    throw std::runtime_error("step produced an empty item");
                }
                const int64_t hts = trace_.now_us();
                w.hash = hash_bytes(w.data());
                trace_.add("hash", job.name, res.input, hts, trace_.now_us() - hts, int64_t(w.data().size()));
            }
            for (auto& w : pending) {
                check_no_link_escape(w.out, p_.output_root);
                w.existing = check_existing(job, w.rel, w.out, w.hash, w.kept);
            }
            size_t kept_edits = 0;
            for (auto& w : pending) {
                OutputRecord rec_out = w.kept;
                if (w.existing == Existing::Absent || w.existing == Existing::Write) {
                    int64_t ts = trace_.now_us();
                    write_file_atomic(w.out, std::span<const uint8_t>(w.data()));
                    trace_.add("write file", job.name, res.input, ts, trace_.now_us() - ts, int64_t(w.data().size()));
                    rec_out = {w.rel, w.hash, stat_file(w.out).value_or(FileStat{})};
                } else if (w.existing == Existing::Keep) {
                    ++kept_edits;
                }
                took_over(rec_out);
                written.push_back(rec_out);
                res.outputs.push_back(w.rel);
                produced.push_back(output_input(w.rel, rec_out.hash));
            }
            if (kept_edits) res.metrics["kept_existing_outputs"] = kept_edits;
            // Outputs this action made last time but not now (template or item set changed).
            if (rec)
                for (const auto& o : rec->outputs)
                    if (std::none_of(written.begin(), written.end(), [&](auto& w) { return w.path == o.path; }))
                        remove_output(o);
            ActionRecord nr;
            nr.job = job.name;
            nr.input = res.input;
            nr.key = key;
            nr.input_hash = input_hash;
            nr.params_hash = j.signature;
            nr.tools = join_tools(tools);
            nr.outputs = written;
            nr.status = "built";
            res.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            nr.duration_ms = res.duration_ms;
            const int64_t rts = trace_.now_us();
            store_->put_action(nr);
            trace_.add("commit", job.name, res.input, rts, trace_.now_us() - rts); // the build state
            res.status = "built";
            trace_.add("action", job.name, res.input, action_ts, trace_.now_us() - action_ts);
            return done;
        } catch (const Cancelled&) {
            res.status = "not-run";
            res.reason = "cancelled";
            produced.clear();
            return done;
        } catch (const std::exception& e) {
            res.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            res.status = "failed";
            res.failed_step = step_name;
            res.error = e.what();
            if (!opt_.dry_run) {
                // Keep tracking every output this input ever produced, so a
                // later removal of the input still cleans them up.
                ActionRecord nr;
                nr.job = job.name;
                nr.input = res.input;
                nr.outputs = written;
                if (rec)
                    for (const auto& o : rec->outputs)
                        if (std::none_of(written.begin(), written.end(), [&](auto& w) { return w.path == o.path; }))
                            nr.outputs.push_back(o);
                nr.status = "failed";
                nr.error = step_name + ": " + res.error;
                nr.duration_ms = res.duration_ms;
                store_->put_action(nr);
            }
            produced.clear();
            done.failed = true;
            trace_.add("action", job.name, res.input, action_ts, trace_.now_us() - action_ts);
            return done;
        }
    }

    // Two actions may not write the same file.
    void claim(const std::string& out, const ActionResult& res) {
        std::string me = res.job + ": " + res.input;
        std::lock_guard lk(claims_mu_);
        auto [it, fresh] = claims_.emplace(out, me);
        if (!fresh && it->second != me)
            throw std::runtime_error("output " + rel_of(out) + " is also produced by " + it->second);
        if (fresh)
            if (std::string planned = plan_.claimant(plan_jobs_, out); !planned.empty() && planned != me) {
                claims_.erase(it);
                throw std::runtime_error("output " + rel_of(out) + " is also produced by " + planned);
            }
    }

    // Is `out` (absolute) a file some job of this build reads as a source?
    bool is_source(const std::string& out) const {
        if (plan_.writer.count(out) || plan_state_.recorded.count(out)) return false;
        const std::string rel = rel_of(out);
        for (const auto& pj : plan_jobs_) {
            if (!pj.selected) continue;
            for (const auto& pat : pj.job->patterns)
                if (glob_match(fs::path(pat).is_absolute() ? pat : root_str_ + "/" + pat, out)) {
                    bool excluded = false;
                    for (const auto& ex : pj.job->excludes) excluded = excluded || glob_match(ex, rel);
                    if (!excluded) return true;
                }
        }
        return false;
    }

    // Removes an output the state recorded, unless this build claims the
    // path (another action writes it now) or the file was edited since (an
    // edit is never discarded silently). Under claims_mu_, so a claim and a
    // removal never interleave.
    void remove_output(const OutputRecord& o) {
        const std::string abs = abs_of(o.path);
        std::lock_guard lk(claims_mu_);
        if (claims_.count(abs) || plan_.writer.count(abs)) return;
        try {
            check_no_link_escape(abs, p_.output_root);
        } catch (const std::exception& e) {
            progress_.line(std::string("not removing stale output: ") + e.what());
            store_->forget_file(o.path);
            return;
        }
        auto st = stat_file(abs.c_str());
        if (st && !(*st == o.st)) {
            Hash128 h;
            try {
                h = hash_file(abs);
            } catch (const std::exception&) {
            }
            if (!(h == o.hash)) {
                progress_.line("kept " + printable_name(o.path) +
                               ": edited since the build wrote it, so not removed as a stale output (delete it "
                               "yourself if it is not needed)");
                store_->forget_file(o.path);
                return;
            }
        }
        std::error_code ec;
        fs::remove(abs, ec);
        store_->forget_file(o.path);
        std::lock_guard lk2(known_mu_);
        known_[o.path] = {Hash128{}, FileStat{}}; // gone: nothing the build wrote is there now
    }

    // An output now holds what this build wrote (or kept): remember it, and
    // if another configuration's record had it, that record lets go of it
    // and runs again there next time.
    void took_over(const OutputRecord& o) {
        {
            std::lock_guard lk(known_mu_);
            known_[o.path] = {o.hash, o.st};
        }
        std::tuple<std::string, std::string, std::string> owner;
        {
            std::lock_guard lk(claims_mu_);
            auto it = foreign_owner_.find(o.path);
            if (it == foreign_owner_.end()) return;
            owner = it->second;
            foreign_owner_.erase(it);
        }
        if (opt_.dry_run) return;
        auto rec = store_->action(std::get<1>(owner), std::get<2>(owner), std::get<0>(owner));
        if (!rec) return;
        ActionRecord r = *rec;
        std::erase_if(r.outputs, [&](const OutputRecord& x) { return x.path == o.path; });
        if (r.outputs.empty()) {
            store_->erase_action(r.job, r.input, r.owner); // nothing of it left: gone, not an empty orphan
            return;
        }
        r.status = "failed";
        r.key = Hash128{};
        r.error = "output " + o.path + " was rebuilt by another configuration";
        store_->put_action(r);
    }

    // Records of jobs the pipeline no longer has (renamed, deleted): their
    // outputs go, unless a job of this build writes the same path.
    void remove_vanished_jobs() {
        std::set<std::string> names;
        for (const auto& j : p_.jobs) names.insert(j.name);
        for (const auto& j : p_.unselected) names.insert(j.name);
        std::vector<ActionRecord> gone;
        const std::string& self = store_->self();
        store_->for_each_action([&](const ActionRecord& rec) {
            if (rec.owner == self && !names.count(rec.job)) gone.push_back(rec);
        });
        for (const auto& rec : gone) {
            ActionResult r;
            r.job = rec.job;
            r.input = rec.input;
            r.status = opt_.dry_run ? "would-remove" : "removed";
            r.reason = "job '" + rec.job + "' is no longer in the pipeline";
            for (const auto& o : rec.outputs) {
                r.outputs.push_back(o.path);
                if (!opt_.dry_run) remove_output(o);
            }
            if (!opt_.dry_run) store_->erase_action(rec.job, rec.input);
            explain(r);
            if (!opt_.quiet)
                progress_.line((opt_.dry_run ? "would remove " : "removed ") + std::to_string(r.outputs.size()) +
                               " output(s) of job '" + printable_name(rec.job) + "', no longer in the pipeline");
            ++summary_.removed;
            summary_.actions.push_back(std::move(r));
        }
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
            progress_.line("orphans: " + std::to_string(n) + " output(s) of another configuration, " +
                           printable_name(who) +
                           " (not removed by this one; 'assetforge clean --orphans' removes them)");
        }
    }

    // The last build was killed: clear its temporaries from the folders this one wrote to.
    void sweep_temporaries(fs::file_time_type before) {
        std::set<fs::path> dirs;
        {
            std::lock_guard lk(claims_mu_);
            for (const auto& [out, _] : claims_) dirs.insert(fs::path(out).parent_path());
        }
        size_t n = remove_abandoned_temporaries(dirs, before);
        if (n && !opt_.quiet)
            progress_.line("removed " + std::to_string(n) + " temporary file(s) left by an interrupted build");
    }

    // Called (mu_ held) when job `j` has finished, before the jobs that need
    // it expand their globs: a glob over j's output folder must not pick up
    // outputs of inputs that are gone.
    void remove_stale_locked(JobRun& j) {
        if (j.upstream_failed || j.expand_failed || stop_ || cancelled()) return;
        for (const auto& rp : store_->actions_of(j.job->name)) {
            const ActionRecord& rec = *rp;
            if (j.seen.count(rec.input)) continue;
            ActionResult r;
            r.job = rec.job;
            r.input = rec.input;
            r.status = opt_.dry_run ? "would-remove" : "removed";
            r.reason = "input no longer exists";
            for (const auto& o : rec.outputs) {
                r.outputs.push_back(o.path);
                if (!opt_.dry_run) remove_output(o);
            }
            if (!opt_.dry_run) {
                store_->erase_action(rec.job, rec.input);
                // Its stat-cache row too, or the state grows with every file a project ever had.
                if (rec.input != "*" && !stat_file(abs_of(rec.input).c_str())) store_->forget_file(rec.input);
            }
            explain(r);
            if (!opt_.quiet)
                progress_.line((opt_.dry_run ? "would remove " : "removed ") + std::to_string(r.outputs.size()) +
                               " output(s) of vanished input " + rec.job + ": " + rec.input);
            ++summary_.removed;
            summary_.actions.push_back(std::move(r));
        }
    }

    void write_report(double secs) {
        nlohmann::json actions = nlohmann::json::array();
        for (const auto& a : summary_.actions) {
            nlohmann::json j = {
                {"job", a.job}, {"input", a.input},   {"inputs", a.inputs}, {"outputs", a.outputs},
                {"key", a.key}, {"status", a.status}, {"reason", a.reason}, {"duration_ms", a.duration_ms}};
            if (!a.error.empty()) j["error"] = {{"step", a.failed_step}, {"message", a.error}};
            if (!a.metrics.empty()) j["metrics"] = a.metrics;
            actions.push_back(std::move(j));
        }
        nlohmann::json doc = {{"pipeline", p_.file.string()},
                              {"seconds", secs},
                              {"built", summary_.built},
                              {"up_to_date", summary_.up_to_date},
                              {"failed", summary_.failed},
                              {"removed", summary_.removed},
                              {"not_run", summary_.not_run},
                              {"cancelled", summary_.cancelled},
                              {"actions", actions}};
        write_file_atomic(opt_.report_file, doc.dump(1));
    }

    void print_summary(double secs) {
        std::vector<const ActionResult*> failures;
        for (const auto& a : summary_.actions)
            if (a.status == "failed") failures.push_back(&a);
        std::sort(failures.begin(), failures.end(),
                  [](auto* a, auto* b) { return std::tie(a->job, a->input) < std::tie(b->job, b->input); });
        if (!failures.empty()) {
            err_ << failures.size() << " action(s) failed:\n";
            for (auto* f : failures)
                err_ << "  "
                     << printable_name(f->job + ": " + f->input + ": step '" + f->failed_step + "': " + f->error)
                     << "\n";
        }
        if (summary_.cancelled) err_ << "build cancelled: finished outputs are kept, nothing partial was written\n";
        if (opt_.quiet) return;
        char buf[64];
        snprintf(buf, sizeof buf, "%.2fs", secs);
        if (opt_.dry_run) return print_status();
        out_ << summary_.built << " built, " << summary_.up_to_date << " up to date, " << summary_.failed << " failed, "
             << summary_.removed << " removed";
        if (summary_.not_run) out_ << ", " << summary_.not_run << " not run";
        out_ << " (" << buf << ")\n";
    }

    // `status`: per job, how many actions would run and why (files only with
    // -v, which explains each), or every action as JSON: a tree of 8,000
    // files is a few lines, not 8,000.
    void print_status() {
        size_t would = 0;
        for (const auto& a : summary_.actions) would += a.status == "would-run";
        if (opt_.status_json) {
            nlohmann::json actions = nlohmann::json::array();
            for (const auto& a : summary_.actions)
                actions.push_back({{"job", a.job}, {"input", a.input}, {"status", a.status}, {"reason", a.reason}});
            nlohmann::json doc = {{"would_run", would},
                                  {"up_to_date", summary_.up_to_date},
                                  {"stale_to_remove", summary_.removed},
                                  {"actions", actions}};
            out_ << doc.dump(1) << "\n";
            return;
        }
        std::map<std::string, std::map<std::string, size_t>> by_job; // job → reason → count
        std::map<std::string, size_t> current;
        for (const auto& a : summary_.actions) {
            if (a.status == "would-run")
                ++by_job[a.job][a.reason];
            else if (a.status == "up-to-date")
                ++current[a.job];
            else if (a.status == "would-remove")
                ++by_job[a.job]["stale output to remove"];
        }
        for (const auto& j : p_.jobs) {
            auto it = by_job.find(j.name);
            const size_t up = current.count(j.name) ? current[j.name] : 0;
            if (it == by_job.end() && !up) continue;
            std::string line = "  " + j.name + ":";
            size_t n = 0;
            std::string why;
            if (it != by_job.end())
                for (const auto& [reason, count] : it->second) {
                    n += count;
                    why += (why.empty() ? "" : "; ") + std::to_string(count) + " " + reason;
                }
            if (n) line += " " + std::to_string(n) + " would run (" + why + ")";
            if (up) line += std::string(n ? "," : "") + " " + std::to_string(up) + " up to date";
            out_ << printable_name(line) << "\n";
        }
        out_ << would << " action(s) would run, " << summary_.up_to_date << " up to date, " << summary_.removed
             << " stale to remove" << (opt_.explain ? "" : " (-v lists them)") << "\n";
    }

    const Pipeline& p_;
    const StepTable& steps_;
    const BuildOptions& opt_;
    std::ostream& out_;
    std::ostream& err_;
    std::optional<StateStore> store_;
    std::string root_str_;
    int root_fd_ = AT_FDCWD;
    MemoryBudget budget_;
    Progress progress_;
    TraceLog trace_;
    std::vector<JobRun> runs_;
    std::mutex mu_;
    tbb::task_group tg_;
    std::atomic<bool> stop_{false};
    std::mutex tools_mu_;
    std::unordered_map<std::string, std::string> tools_verdicts_;
    std::mutex claims_mu_;
    std::unordered_map<std::string, std::string> claims_; // absolute output → "job: input"
    // Outputs another configuration recorded: relative path → (owner, job, input).
    std::unordered_map<std::string, std::tuple<std::string, std::string, std::string>> foreign_owner_;
    std::vector<PlanJob> plan_jobs_;
    PlanState plan_state_;
    Plan plan_;
    struct Known {
        Hash128 hash;
        FileStat st;
    };
    std::mutex known_mu_;
    // Relative output → what this build wrote there (before it: plan_state_.recorded).
    std::unordered_map<std::string, Known> known_;
    BuildSummary summary_;
};

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

CleanSummary clean_outputs(const Pipeline& p, const CleanOptions& o) {
    CleanSummary s;
    BuildLock lock(state_dir(p), [](const std::string& msg) { std::cerr << "assetforge: " << msg << "\n"; }, {});
    StateStore store(state_dir(p), configuration(p));
    for (const auto& rec : store.every_action()) {
        bool own = rec.owner == store.self();
        if (o.orphans ? own : !own) continue;
        if (!o.jobs.empty() && std::find(o.jobs.begin(), o.jobs.end(), rec.job) == o.jobs.end()) continue;
        std::vector<OutputRecord> left;
        for (const auto& out : rec.outputs) {
            fs::path abs = fs::path(out.path).is_absolute() ? fs::path(out.path) : p.root / out.path;
            std::error_code ec;
            try {
                check_no_link_escape(abs, p.output_root);
            } catch (const std::exception& e) {
                s.refused.push_back(e.what());
                left.push_back(out);
                continue;
            }
            auto st = stat_file(abs);
            if (st && !(*st == out.st) && !o.overwrite_edited) {
                Hash128 h;
                try {
                    h = hash_file(abs);
                } catch (const std::exception&) {
                }
                if (!(h == out.hash)) {
                    s.refused.push_back(out.path +
                                        " was edited since the build wrote it (--overwrite-edited removes it)");
                    left.push_back(out);
                    continue;
                }
            }
            if (fs::remove(abs, ec))
                ++s.removed_files;
            else
                ++s.missing_files;
            store.forget_file(out.path);
        }
        if (left.empty()) {
            store.erase_action(rec.job, rec.input, rec.owner);
        } else {
            ActionRecord kept = rec;
            kept.outputs = left;
            kept.status = "failed";
            kept.key = Hash128{};
            store.put_action(kept);
        }
        ++s.actions;
    }
    store.flush();
    return s;
}

} // namespace af::engine
