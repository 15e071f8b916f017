#include "engine/build/action_execution.hpp"

#include "assetforge/user_text.hpp"
#include "base/link_guard.hpp"
#include "base/output_template.hpp"
#include "engine/action_memory.hpp"
#include "engine/action_runner.hpp"
#include "engine/build.hpp"
#include "engine/build/action_record.hpp"
#include "engine/build/remote_step.hpp"
#include "engine/output_commit.hpp"
#include "report/build_status.hpp"
#include "report/report_images.hpp"
#include "report/trace.hpp"

#include <algorithm>
#include <chrono>

namespace af::engine {
namespace fs = std::filesystem;

namespace {
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }
} // namespace

// One action as execute() carries it from step to step.
struct Action {
    JobRun& j;
    const load::Job& job;
    std::vector<Input> inputs;
    ActionOutcome done;
    std::string origin, who; // the source its chain started from; "job: input"
    Clock::time_point t0 = Clock::now();
    int64_t trace_ts = 0;
    std::shared_ptr<const ActionRecord> rec; // what the state recorded of it
    ActionTrail trail;
    std::vector<OutputRecord> written;
    DirtyScan::Key key;
    std::string remote_key;

    Action(JobRun& run, std::vector<Input> in, int64_t ts)
        : j(run), job(*run.job), inputs(std::move(in)), trace_ts(ts) {
        done.res.job = job.name;
        // A texture's surface pictures are one action, named by the texture.
        done.res.input = job.is_gather()                 ? "*"
                         : !inputs.at(0).set_rel.empty() ? inputs.at(0).set_rel
                                                         : inputs.at(0).rel;
        origin = job.is_gather() ? "*" : inputs.at(0).origin;
        who = job.name + ": " + done.res.input;
        for (const auto& i : inputs) done.res.inputs.push_back(i.rel);
    }
    base::ActionResult& res() { return done.res; }
    std::string input_name() const {
        return job.is_gather() ? std::string() : !inputs.at(0).set.empty() ? inputs.at(0).set : inputs.at(0).name;
    }
    RemoteAction remote() const { return {j, remote_key, done.res.input, input_name(), who, rec.get()}; }
};

ActionExecution::ActionExecution(ActionServices s)
    : s_(s), scan_(s.store, s.disk, s.paths, s.p.root, s.opt.tool_identity) {}

bool ActionExecution::cancelled() const { return s_.opt.cancelled && s_.opt.cancelled(); }

ActionOutcome ActionExecution::execute(JobRun& j, std::vector<Input> inputs, bool check_only) {
    Action a(j, std::move(inputs), s_.trace.now_us());
    try {
        for (const auto& in : a.inputs)
            if (!in.link_escape.empty()) throw std::runtime_error(in.link_escape);
        std::optional<ActionRecord> refreshed;
        if (!decide(a, refreshed)) return up_to_date(a, std::move(refreshed));
        if (check_only && !s_.opt.dry_run) {
            a.done.must_run = true;
            a.done.pending = std::move(a.inputs);
            return std::move(a.done);
        }
        s_.status.explain(a.res());
        if (s_.remote) a.remote_key = s_.remote->key(j, a.key.input_hash);
        if (s_.opt.dry_run) return would_run(a);
        uint64_t bytes = 0;
        for (const auto& in : a.inputs) bytes += in.bytes;
        s_.status.progress().started(a.who, bytes);
        std::optional<BudgetLease> lease;
        bool from_cache = false;
        const auto outputs = produce(a, lease, from_cache);
        if (cancelled()) throw Cancelled{};
        commit_and_record(a, outputs, from_cache);
        return std::move(a.done);
    } catch (const Cancelled&) {
        return not_run(a);
    } catch (const std::exception& e) {
        return failed(a, e);
    }
}

// Its key, its record, and why it must run (in words in its result); throws
// when an output was edited and may not be replaced.
Staleness ActionExecution::decide(Action& a, std::optional<ActionRecord>& refreshed) {
    base::ActionResult& res = a.res();
    const int64_t key_ts = s_.trace.now_us();
    a.key = scan_.key(a.j, a.inputs);
    s_.trace.add("key", a.job.name, res.input, key_ts, s_.trace.now_us() - key_ts);
    res.key = a.key.key.hex();
    a.rec = s_.store.action(a.job.name, res.input);
    Staleness why = scan_.out_of_date(a.job, a.rec, a.j.signature, a.key.input_hash, refreshed);
    if (!why && std::any_of(a.inputs.begin(), a.inputs.end(), [](auto& in) { return in.will_change; }))
        why.kind = Staleness::UpstreamRebuilds;
    // A clean build would fail on what it discards; a state that never recorded it must not let this pass.
    if (!why && s_.opt.warnings_as_errors && a.rec && !a.rec->warnings_known) why.kind = Staleness::WarningsUnknown;
    res.reason = why.text();
    if ((why.kind == Staleness::InputChanged || why.kind == Staleness::NewInput) && s_.opt.input_changes)
        if (std::string how = s_.opt.input_changes(res.inputs); !how.empty()) res.reason += " (" + how + ")";
    if (why.kind == Staleness::OutputEdited && !s_.opt.overwrite_edited) {
        a.trail.step = "check";
        throw std::runtime_error("output " + why.detail +
                                 " was edited since the build wrote it; not replaced (pass "
                                 "--overwrite-edited to discard the edit, or move the file into the sources)");
    }
    return why;
}

ActionOutcome ActionExecution::up_to_date(Action& a, std::optional<ActionRecord> refreshed) {
    base::ActionResult& res = a.res();
    res.status = base::ActionStatus::UpToDate;
    if (refreshed) {
        if (!s_.opt.dry_run) s_.store.put_action(*refreshed);
        a.rec = std::make_shared<const ActionRecord>(std::move(*refreshed));
    }
    for (const auto& o : a.rec->outputs) {
        res.outputs.push_back(o.path);
        a.done.produced.push_back(output_input(o.path, o.hash, a.origin));
        s_.commit.claim(a.done.produced.back().abs, a.who);
    }
    res.results.keep_warnings(a.rec->warnings, "an earlier build");
    // The pictures an earlier build made of this same key: a no-op build's report shows them (and keeps them).
    if (s_.images) res.images = s_.images->earlier(a.job.name, res.input, res.key);
    s_.trace.add_action(a.job.name, res.input, a.trace_ts, s_.trace.now_us() - a.trace_ts,
                        std::string(base::to_string(res.status)), a.rec->warnings);
    return std::move(a.done);
}

ActionOutcome ActionExecution::would_run(Action& a) {
    a.res().status =
        s_.remote && s_.remote->holds(a.remote_key) ? base::ActionStatus::WouldFetch : base::ActionStatus::WouldRun;
    if (a.rec)
        for (const auto& o : a.rec->outputs) a.done.produced.push_back(output_input(o.path, o.hash, a.origin, true));
    return std::move(a.done);
}

std::vector<ActionOutput> ActionExecution::produce(Action& a, std::optional<BudgetLease>& lease, bool& from_cache) {
    std::optional<RemoteStep::Fetched> cached;
    if (s_.remote) cached = s_.remote->fetch(a.remote(), lease);
    from_cache = cached.has_value();
    if (!from_cache) {
        lease.reset();
        return run_here(a, lease);
    }
    // Any plugin changing makes it run again: what built it elsewhere is not known here.
    a.trail.tools = {s_.opt.plugin_identities};
    a.res().results.keep_warnings(cached->warnings, "the remote cache");
    return std::move(cached->outputs);
}

// An input handed to a gather that reads its files itself: unread, with its size and its content hash as recorded
// (an upstream output's) or through the stat cache.
steps::Item ActionExecution::file_item(const Input& in) {
    steps::Item it;
    it.name = in.name;
    it.file = in.abs;
    const auto st = s_.disk.stat(in.rel, in.abs);
    if (!st) throw std::runtime_error("cannot read " + in.rel + ": no such file");
    it.file_size = st->size;
    it.file_hash = in.hash ? *in.hash : s_.store.file_hash(in.rel, in.abs.c_str(), *st);
    return it;
}

std::vector<steps::Item> ActionExecution::read_inputs(Action& a) {
    std::vector<steps::Item> items;
    for (const auto& in : a.inputs) {
        const int64_t ts = s_.trace.now_us();
        // A globbed file is read only where its input root allows: the glob
        // checked the name, this checks the file actually opened.
        const std::string within = a.job.follow_links || in.hash
                                       ? std::string()
                                       : base::input_root_for(in.abs, a.job.input_root, s_.p.root).real;
        if (a.job.gathers_files() && within.empty()) {
            items.push_back(file_item(in));
            continue;
        }
        items.push_back(steps::bytes_item(in.name, s_.disk.read(in.abs, within)));
        s_.trace.add("read file", a.job.name, a.res().input, ts, s_.trace.now_us() - ts,
                     int64_t(items.back().bytes->size()));
    }
    return items;
}

std::vector<ActionOutput> ActionExecution::run_here(Action& a, std::optional<BudgetLease>& lease) {
    base::ActionResult& res = a.res();
    std::vector<ActionFile> files;
    for (const auto& in : a.inputs) files.push_back({in.rel, in.abs});
    {
        // Sizing the action probes its files and asks containers' dims: what plugins say then (a probe that
        // crashed or was stopped) is this action's too, not a loose line no report sees.
        const std::shared_ptr<void> notes =
            s_.steps.keep_plugin_notes ? s_.steps.keep_plugin_notes(a.trail.results, a.input_name()) : nullptr;
        lease.emplace(s_.budget, action_memory_within(a.job, files, s_.budget.limit(), s_.steps.declared));
    }
    std::vector<steps::Item> items = read_inputs(a);
    ActionRun run{a.job, a.j.tpl, s_.steps, s_.p.root, s_.paths, s_.trace, s_.opt.cancelled};
    run.keep_textures = s_.images != nullptr;
    if (a.job.is_gather()) gather_services(a, run);
    if (!a.job.is_gather()) run.surface_set = a.inputs.at(0).set;
    if (s_.opt.verbose)
        run.on_step = [this, &a](const std::string& step, double ms) {
            char t[32];
            snprintf(t, sizeof t, "%.1f ms", ms);
            s_.status.progress().line("  " + a.who + ": " + step + " (" + t + ")");
        };
    auto outputs = run_action(run, std::move(items), a.input_name(), res.input, a.trail);
    res.results = std::move(a.trail.results);
    if (a.trail.source && a.trail.result) {
        const int64_t ts = s_.trace.now_us();
        res.images = std::make_shared<const base::ReportFigures>(
            s_.images->add(a.job.name, res.input, a.job.is_gather() ? fs::path() : fs::path(a.inputs.at(0).abs),
                           *a.trail.source, *a.trail.result, s_.steps.top_image));
        s_.trace.add("report pictures", a.job.name, res.input, ts, s_.trace.now_us() - ts);
    }
    a.trail.source.reset(), a.trail.result.reset();
    return outputs;
}

// What a gather step may use to update its output rather than make it afresh: the output as the last build wrote
// it, when it still is that (an edited one is never read), a scratch folder on the state's disk, and the stat cache.
void ActionExecution::gather_services(const Action& a, ActionRun& run) {
    run.scratch_dir = state_dir(s_.p) / "scratch";
    if (a.rec && a.rec->outputs.size() == 1) {
        const OutputRecord& o = a.rec->outputs.front();
        const std::string abs = s_.paths.abs_of(o.path);
        if (s_.disk.stat(o.path, abs) && holds_what_was_written(s_.disk, o, abs)) run.previous_output = abs;
    }
    const fs::path root = s_.p.root;
    run.file_hash = [this, root](const fs::path& file) -> std::optional<Hash128> {
        const auto st = stat_file(file); // regular files only
        if (!st) return std::nullopt;
        // Keyed as the parameters' files are (param_inputs.cpp): the key's hashing left them in the cache.
        const std::string key =
            base::path_within(file, root) ? file.lexically_relative(root).generic_string() : file.native();
        return s_.store.file_hash(key, file, *st);
    };
}

void ActionExecution::commit_and_record(Action& a, const std::vector<ActionOutput>& outputs, bool from_cache) {
    base::ActionResult& res = a.res();
    auto committed = s_.commit.commit(a.job, outputs, a.who, s_.trace, res.input);
    a.written = committed.written;
    for (const auto& w : a.written) {
        res.outputs.push_back(w.path);
        a.done.produced.push_back(output_input(w.path, w.hash, a.origin));
    }
    res.results.kept_existing_outputs = committed.kept_edits;
    // Outputs this action made last time but not now (template or item set changed).
    if (a.rec)
        for (const auto& o : a.rec->outputs)
            if (std::none_of(a.written.begin(), a.written.end(), [&](auto& w) { return w.path == o.path; }))
                s_.commit.remove_output(o);
    res.duration_ms = ms_since(a.t0);
    const ActionRecord rec = built_record({a.job.name, res.input, a.key.key, a.key.input_hash, a.j.signature,
                                           a.trail.tools, a.written, res.results.warnings, res.duration_ms});
    const int64_t rts = s_.trace.now_us();
    s_.store.put_action(rec);
    s_.trace.add("commit", a.job.name, res.input, rts, s_.trace.now_us() - rts); // the build state
    res.status = from_cache ? base::ActionStatus::Cached : base::ActionStatus::Built;
    if (!from_cache && s_.remote) s_.remote->upload(a.remote(), outputs, rec.warnings);
    s_.trace.add_action(a.job.name, res.input, a.trace_ts, s_.trace.now_us() - a.trace_ts,
                        std::string(base::to_string(res.status)), rec.warnings);
}

ActionOutcome ActionExecution::not_run(Action& a) {
    a.res().status = base::ActionStatus::NotRun;
    a.res().reason = "cancelled";
    a.done.produced.clear();
    return std::move(a.done);
}

ActionOutcome ActionExecution::failed(Action& a, const std::exception& e) {
    // Ctrl-C reached a step (a codec stops with "cancelled"): that is not
    // the input's fault. Nothing was written; it runs next time.
    if (cancelled() && a.written.empty()) return not_run(a);
    base::ActionResult& res = a.res();
    res.duration_ms = ms_since(a.t0);
    res.status = base::ActionStatus::Failed;
    res.failed_step = a.trail.step;
    res.error = sdk::describe(e); // the report names the job, input and step
    if (res.results.empty()) res.results = std::move(a.trail.results);
    if (!s_.opt.dry_run)
        s_.store.put_action(
            failed_record(a.job.name, res.input, a.written, a.rec, a.trail.step + ": " + res.error, res.duration_ms));
    a.done.produced.clear();
    a.done.failed = true;
    s_.trace.add_action(a.job.name, res.input, a.trace_ts, s_.trace.now_us() - a.trace_ts, "failed",
                        res.results.warnings);
    return std::move(a.done);
}

Input ActionExecution::output_input(const std::string& rel, const Hash128& hash, const std::string& origin,
                                    bool will_change) const {
    Input in;
    in.rel = rel;
    in.abs = s_.paths.abs_of(rel);
    in.origin = origin;
    in.hash = hash;
    in.will_change = will_change;
    return in;
}

} // namespace af::engine
