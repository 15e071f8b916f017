#include "engine/scheduler.hpp"

#include "assetforge/user_text.hpp"
#include "base/surface_names.hpp"
#include "engine/plan.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <unordered_map>
#include <utility>

namespace af::engine {
namespace fs = std::filesystem;

void link_jobs(std::vector<JobRun>& runs) {
    std::map<std::string, JobRun*> by_name;
    for (auto& r : runs) by_name[r.job->name] = &r;
    for (auto& r : runs) {
        for (const auto& f : r.job->from) {
            by_name.at(f)->from_down.push_back(&r);
            by_name.at(f)->dependents.push_back(&r);
            ++r.pending_from;
        }
        for (const auto& n : r.job->needs) {
            by_name.at(n)->dependents.push_back(&r);
            ++r.pending_needs;
        }
    }
}

Scheduler::Scheduler(std::vector<JobRun>& runs, ActionExecutor& exec, report::BuildStatus& status, SchedulerOptions opt)
    : runs_(runs), exec_(exec), status_(status), opt_(std::move(opt)) {}

// Plan first: the actions of the jobs that wait for nothing are all decided
// (in parallel, as chunks) before any of them runs, so the progress total is
// known from the first line and counts only actions that will run.
void Scheduler::run() {
    {
        std::lock_guard lk(mu_);
        first_pass_ = true;
        for (auto& j : runs_)
            if (j.pending_from == 0 && j.pending_needs == 0) advance_locked(j);
        if (first_chunks_ == 0) release_locked();
    }
    tg_.wait();
    TaskHandoff::pass();
}

std::string Scheduler::name_below(const std::string& abs, const std::string& base) {
    if (abs.size() > base.size() && abs.compare(0, base.size(), base) == 0 && abs[base.size()] == '/')
        return abs.substr(base.size() + 1);
    return fs::path(abs).lexically_relative(base).generic_string();
}

ActionOutcome Scheduler::not_run(JobRun& j, const std::vector<Input>& inputs, base::ActionStatus s, std::string why) {
    ActionOutcome d;
    d.res.job = j.job->name;
    d.res.input = j.job->is_gather() ? "*" : inputs.at(0).rel;
    for (const auto& in : inputs) d.res.inputs.push_back(in.rel);
    d.res.status = s;
    d.res.reason = std::move(why);
    return d;
}

// Called with mu_ held whenever a job's upstream state changed.
void Scheduler::advance_locked(JobRun& j) {
    if (j.complete) return;
    if (j.pending_needs == 0 && !j.has_prefetched && !j.expand_failed && j.upstream_failed) {
        // What it reads may be the failed job's outputs, never written: a glob now would blame a typo.
        j.expand_failed = true;
        base::ActionResult r;
        r.job = j.job->name;
        r.input = "*";
        r.status = base::ActionStatus::NotRun;
        r.reason = "not run: job '" + j.failed_upstream + "' failed";
        status_.add(std::move(r));
    }
    if (j.pending_needs == 0 && !j.has_prefetched && !j.expand_failed) {
        try {
            j.prefetched = exec_.late_inputs(j);
            j.has_prefetched = true;
        } catch (const std::exception& e) {
            // A `needs` job whose pattern matched nothing: it fails, and
            // nothing of its is removed as stale.
            j.expand_failed = true;
            j.had_failure = true;
            base::ActionResult r;
            r.job = j.job->name;
            r.input = "*";
            r.status = base::ActionStatus::Failed;
            r.failed_step = "inputs";
            r.error = sdk::describe(e);
            status_.add(std::move(r));
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
            if (opt_.in_shard) {
                std::vector<ActionOutcome> one;
                one.push_back(
                    not_run(j, inputs, base::ActionStatus::Skipped, "a gather runs in the build without --shard"));
                record_locked(j, one);
            } else {
                spawn_locked(j, std::move(inputs));
            }
        }
    }
    check_complete_locked(j);
}

void Scheduler::check_complete_locked(JobRun& j) {
    if (j.complete || !j.sealed || j.outstanding > 0) return;
    j.complete = true;
    exec_.job_complete(j);
    for (JobRun* d : j.dependents) {
        if (j.had_failure || j.upstream_failed) {
            if (!d->upstream_failed) d->failed_upstream = j.had_failure ? j.job->name : j.failed_upstream;
            d->upstream_failed = true;
        }
        if (std::find(d->job->from.begin(), d->job->from.end(), j.job->name) != d->job->from.end()) --d->pending_from;
        if (std::find(d->job->needs.begin(), d->job->needs.end(), j.job->name) != d->job->needs.end())
            --d->pending_needs;
        advance_locked(*d);
    }
}

// The first pass is over: the total is the actions held back plus, for each,
// one action in every `from` job downstream (most steps keep one item per
// input) and each gather once. Later checks put it right as they decide.
void Scheduler::release_locked() {
    first_pass_ = false;
    std::unordered_map<const JobRun*, size_t> expected;
    for (auto& [j, inputs] : held_) {
        if (j->job->is_gather())
            j->gather_counted = true;
        else
            ++expected[j];
    }
    for (const JobRun* j : early_) ++expected[j]; // for what they feed; they themselves are in the total already
    size_t total = 0;
    uint64_t known_bytes = 0;
    size_t known = 0; // held actions whose input size is known
    for (auto& [j, inputs] : held_) {
        uint64_t b = 0;
        for (const auto& in : inputs) b += in.bytes;
        known_bytes += b;
        known += b > 0;
    }
    for (auto& j : runs_) { // in dependency order: upstream first
        const size_t n = expected[&j];
        total += n;
        for (JobRun* d : j.from_down)
            if (d->job->is_gather())
                d->gather_counted = d->gather_counted || (n > 0 && !opt_.in_shard);
            else
                expected[d] += n;
    }
    for (const auto& j : runs_) total += j.gather_counted;
    total -= early_.size();
    early_.clear();
    status_.progress().add_total(total, known_bytes, known);
    auto held = std::move(held_);
    held_.clear();
    for (auto& [j, inputs] : held) launch_locked(*j, std::move(inputs));
}

// One action with all of `inputs` (a gather), or one that must run.
void Scheduler::spawn_locked(JobRun& j, std::vector<Input> inputs) {
    ++j.outstanding;
    if (first_pass_ && opt_.run_at_once && !j.job->is_gather()) {
        uint64_t b = 0;
        for (const auto& in : inputs) b += in.bytes;
        status_.progress().add_total(1, b, b > 0);
        early_.push_back(&j);
        launch_locked(j, std::move(inputs));
    } else if (first_pass_) {
        held_.emplace_back(&j, std::move(inputs));
    } else {
        launch_locked(j, std::move(inputs));
    }
}

void Scheduler::launch_locked(JobRun& j, std::vector<Input> inputs) {
    // task_group runs its functor as const: the inputs travel in a shared box.
    auto box = std::make_shared<std::vector<Input>>(std::move(inputs));
    [[maybe_unused]] TaskHandoff handoff;
    tg_.run([this, &j, box] {
        TaskHandoff::pass();
        std::vector<ActionOutcome> one;
        if (stop_ || cancelled() || (j.job->is_gather() && j.upstream_failed))
            one.push_back(
                not_run(j, *box, base::ActionStatus::NotRun,
                        j.upstream_failed ? "not run: job '" + j.failed_upstream + "' failed" : "build stopped"));
        else
            one.push_back(exec_.execute(j, std::move(*box), false));
        // A gather is decided as it runs: the total expected it or not.
        if (j.job->is_gather()) count(j, j.gather_counted, one.back());
        {
            std::lock_guard lk(mu_);
            record_locked(j, one);
            --j.outstanding;
            check_complete_locked(j);
        }
        TaskHandoff::pass();
    });
}

// One action per input, but one for all the pictures of a texture's surfaces
// (Input::set), in name order so its key does not depend on the glob's order.
// Globbed pictures were marked when globbed; a `from` job's are the ones an
// action upstream wrote together (decode's of one texture), which arrive in
// one batch.
std::vector<std::vector<Input>> Scheduler::action_inputs(std::vector<Input> inputs, bool assemble) {
    std::vector<std::vector<Input>> out;
    out.reserve(inputs.size());
    std::unordered_map<std::string, size_t> set_at;
    for (auto& in : inputs) {
        if (assemble && in.hash && in.set.empty())
            if (auto s = base::surface_name(in.name)) {
                in.set = std::move(s->set);
                in.set_rel = base::surface_name(in.rel)->set;
            }
        if (in.set_rel.empty()) {
            out.emplace_back().push_back(std::move(in));
            continue;
        }
        auto [it, fresh] = set_at.try_emplace(in.set_rel, out.size());
        if (fresh) out.emplace_back();
        out[it->second].push_back(std::move(in));
    }
    for (const auto& [_, at] : set_at) {
        auto& members = out[at];
        const bool counted = members.front().counted;
        std::sort(members.begin(), members.end(), [](const Input& a, const Input& b) { return a.name < b.name; });
        members.front().counted = counted;
    }
    return out;
}

// One action per input. Up-to-date checks run in chunks, a task each,
// recorded a chunk at a time (a no-op build is nothing but checks); each
// action that must run becomes its own task as soon as its chunk is checked,
// so heavy actions spread over every thread and their outputs flow downstream
// file by file. Chunks are task-group tasks rather than a nested
// parallel_for: then every hand-over between threads goes through
// TaskHandoff, which is what lets ThreadSanitizer see the ordering.
void Scheduler::spawn_many_locked(JobRun& j, std::vector<Input> inputs) {
    if (opt_.in_shard) {
        std::vector<ActionOutcome> skipped;
        std::erase_if(inputs, [&](const Input& in) {
            if (opt_.in_shard(j, in)) return false;
            skipped.push_back(not_run(j, {in}, base::ActionStatus::Skipped, "another shard's"));
            return true;
        });
        record_locked(j, skipped);
    }
    constexpr size_t kChunk = 16;
    auto all =
        std::make_shared<std::vector<std::vector<Input>>>(action_inputs(std::move(inputs), assembles_surfaces(*j.job)));
    for (size_t begin = 0; begin < all->size(); begin += kChunk) {
        const size_t end = std::min(all->size(), begin + kChunk);
        ++j.outstanding;
        const bool first = first_pass_;
        first_chunks_ += first;
        [[maybe_unused]] TaskHandoff handoff;
        tg_.run([this, &j, all, begin, end, first] {
            TaskHandoff::pass();
            std::vector<ActionOutcome> checked;
            std::vector<std::vector<Input>> to_run;
            for (size_t i = begin; i != end; ++i) {
                const bool counted = (*all)[i].front().counted;
                std::vector<Input> one = std::move((*all)[i]);
                ActionOutcome d = stop_ || cancelled() ? not_run(j, one, base::ActionStatus::NotRun, "build stopped")
                                                       : exec_.execute(j, std::move(one), true);
                // The first pass counts what it holds back when it ends.
                if (!first || !d.must_run) count(j, counted, d);
                if (d.must_run)
                    to_run.push_back(std::move(d.pending));
                else
                    checked.push_back(std::move(d));
            }
            {
                std::lock_guard lk(mu_);
                record_locked(j, checked);
                for (auto& in : to_run) spawn_locked(j, std::move(in));
                --j.outstanding;
                if (first && --first_chunks_ == 0) release_locked();
                check_complete_locked(j);
            }
            TaskHandoff::pass();
        });
    }
}

// The progress total counts the actions that will run: it was estimated
// before the build (counted), and is put right as each action is decided.
// An action found to run that nobody expected (a `needs` job's, globbed
// late) brings the actions it will feed downstream, as the first pass
// estimates them for the actions it holds back: what it hands on is marked
// counted (record_locked), so the total never falls behind what is done.
void Scheduler::count(const JobRun& j, bool counted, const ActionOutcome& d) {
    const bool runs = d.must_run || base::ran(d.res.status) || d.res.status == base::ActionStatus::NotRun;
    if (runs == counted) return;
    if (runs) {
        status_.progress().adjust_total(int64_t(1 + (j.job->is_gather() ? 0 : downstream_estimate(j))));
    } else {
        status_.progress().adjust_total(-1);
    }
}

size_t Scheduler::downstream_estimate(const JobRun& j) {
    size_t n = 0;
    for (const JobRun* d : j.from_down)
        if (!d->job->is_gather()) n += 1 + downstream_estimate(*d);
    return n;
}

// Counts finished actions and hands their outputs to the jobs that take them
// `from` this one.
void Scheduler::record_locked(JobRun& j, std::vector<ActionOutcome>& done) {
    if (done.empty()) return;
    std::vector<Input> forward;
    size_t quiet = 0;
    for (auto& d : done) {
        if (d.failed) {
            j.had_failure = true;
            if (opt_.fail_fast) stop_ = true;
        }
        j.seen.insert(d.res.input);
        // What an action that ran hands on was counted with it (one
        // downstream action each, as most steps keep one item per input).
        bool first = d.res.status == base::ActionStatus::Built || d.res.status == base::ActionStatus::Cached;
        if (!j.from_down.empty())
            for (auto& o : d.produced) {
                o.name = name_below(o.abs, j.out_base);
                o.counted = std::exchange(first, false);
                forward.push_back(std::move(o));
            }
        if (!status_.add(std::move(d.res))) ++quiet;
    }
    status_.progress().up_to_date(quiet);
    if (forward.empty()) return;
    for (JobRun* d : j.from_down) {
        if (d->job->is_gather())
            d->gathered.insert(d->gathered.end(), forward.begin(), forward.end());
        else if (d->pending_needs > 0)
            d->buffered.insert(d->buffered.end(), forward.begin(), forward.end());
        else
            spawn_many_locked(*d, forward);
    }
}

} // namespace af::engine
