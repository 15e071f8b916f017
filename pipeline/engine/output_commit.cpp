#include "engine/output_commit.hpp"

#include "base/glob.hpp"
#include "base/user_words.hpp"
#include "engine/run_marker.hpp"

#include <algorithm>

namespace af::engine {
namespace fs = std::filesystem;

OutputCommit::OutputCommit(Disk& disk, StateStore& store, ProjectPaths paths, fs::path output_root, const Plan& plan,
                           const std::vector<PlanJob>& plan_jobs, const PlanState& plan_state,
                           report::BuildStatus& status, Options opt)
    : disk_(disk), store_(store), paths_(std::move(paths)), output_root_(std::move(output_root)), plan_(plan),
      plan_jobs_(plan_jobs), plan_state_(plan_state), status_(status), opt_(opt) {
    for (size_t j = 0; j < plan_jobs_.size(); ++j)
        for (ParamRead r : param_reads(*plan_jobs_[j].job, paths_.root)) {
            if (r.per_input) {
                // "orig/{dir}/{stem}.dds": everything below the fixed part is read.
                const std::string t = r.path.string();
                r.path = fs::path(t.substr(0, t.find('{'))).parent_path();
                if (r.path.is_relative()) r.path = fs::path(paths_.root) / r.path;
                r.path = r.path.lexically_normal();
                r.folder = true;
                // No fixed folder ("{dir}/{stem}.orig.dds"): nothing narrower than the project to protect.
                if (r.path == fs::path(paths_.root) || r.path == fs::path(paths_.root + "/")) continue;
            }
            param_reads_.emplace_back(j, std::move(r));
        }
}

void OutputCommit::note_foreign(const std::string& rel, const std::string& owner, const std::string& job,
                                const std::string& input) {
    std::lock_guard lk(foreign_mu_);
    foreign_owner_[rel] = {owner, job, input};
}

std::unordered_map<std::string, std::string> OutputCommit::claims() const {
    std::unordered_map<std::string, std::string> all;
    for (auto& sh : claim_shards_) {
        std::lock_guard lk(sh.mu);
        all.insert(sh.claims.begin(), sh.claims.end());
    }
    return all;
}

bool OutputCommit::claimed_by_other(const std::string& abs, const std::string& who) const {
    {
        ClaimShard& sh = shard_of(abs);
        std::lock_guard lk(sh.mu);
        if (auto it = sh.claims.find(abs); it != sh.claims.end() && it->second != who) return true;
    }
    const std::string planned = plan_.claimant(plan_jobs_, abs);
    return !planned.empty() && planned != who;
}

void OutputCommit::claim(const std::string& abs, const std::string& who) {
    ClaimShard& sh = shard_of(abs);
    std::lock_guard lk(sh.mu);
    auto [it, fresh] = sh.claims.emplace(abs, who);
    if (!fresh && it->second != who)
        throw std::runtime_error("output " + paths_.rel_of(abs) + " is also produced by " + it->second);
    if (fresh && plan_.claimed_by_other(plan_jobs_, abs, who)) {
        sh.claims.erase(it);
        throw std::runtime_error("output " + paths_.rel_of(abs) + " is also produced by " +
                                 plan_.claimant(plan_jobs_, abs));
    }
}

OutputCommit::Committed OutputCommit::commit(const load::Job& job, std::span<const ActionOutput> outputs,
                                             const std::string& who, report::TraceLog& trace,
                                             const std::string& label) {
    for (const auto& w : outputs) claim(w.abs, who);
    std::vector<Existing> existing(outputs.size(), Existing::Absent);
    std::vector<OutputRecord> kept(outputs.size());
    for (size_t i = 0; i < outputs.size(); ++i) {
        if (opt_.reserved)
            if (std::string why = opt_.reserved->why(fs::path(outputs[i].abs).lexically_normal().native());
                !why.empty())
                throw std::runtime_error("output " + outputs[i].rel + " is " + why +
                                         "; a build never writes it, whatever the flags");
        disk_.check_no_link_escape(outputs[i].abs, output_root_);
        existing[i] = check_existing(job, outputs[i].rel, outputs[i].abs, outputs[i].hash, kept[i]);
    }
    Committed c;
    for (size_t i = 0; i < outputs.size(); ++i) {
        const ActionOutput& w = outputs[i];
        OutputRecord rec = kept[i];
        if (existing[i] == Existing::Absent || existing[i] == Existing::Write) {
            const int64_t ts = trace.now_us();
            disk_.write_atomic(w.abs, w.data());
            trace.add("write file", job.name, label, ts, trace.now_us() - ts, int64_t(w.data().size()));
            rec = {w.rel, w.hash, disk_.stat(w.rel, w.abs).value_or(FileStat{})};
        } else if (existing[i] == Existing::Keep) {
            ++c.kept_edits;
        }
        took_over(rec);
        c.written.push_back(rec);
    }
    return c;
}

// An output about to be written over an existing file: whether that may
// happen. Write: the file is what the build last wrote (or
// --overwrite-edited); Same: it already holds these bytes (re-record, do not
// rewrite); Keep: a keep_edits job leaves it. Throws when the file is an
// input, or content the build did not write (an edit, a source).
OutputCommit::Existing OutputCommit::check_existing(const load::Job& job, const std::string& rel,
                                                    const std::string& abs, const Hash128& new_hash,
                                                    OutputRecord& kept) {
    if (!disk_.is_regular_file(abs)) return Existing::Absent;
    auto st = disk_.stat(rel, abs);
    if (!st) return Existing::Absent;
    std::optional<Known> known;
    {
        std::lock_guard lk(known_mu_);
        if (auto it = known_.find(rel); it != known_.end())
            known = it->second;
        else if (auto r = plan_state_.recorded.find(abs); r != plan_state_.recorded.end())
            known = Known{r->second.hash, r->second.st};
    }
    Hash128 h = known && known->st == *st ? known->hash : disk_.hash(abs);
    kept = {rel, h, *st};
    if (h == new_hash) return Existing::Same;
    if (!(known && known->hash == h) && is_source(abs))
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

// Is `abs` a file some job of this build reads as a source?
bool OutputCommit::is_source(const std::string& abs) const {
    // A file a step parameter reads is an input of that step's job: no job
    // writes it, except another job feeding it (one job writes the
    // replacements folder another job's step reads).
    const auto planned = plan_.writer.find(abs);
    for (const auto& [reader, r] : param_reads_) {
        const std::string p = r.path.string();
        const bool covers = abs == p || (r.folder && abs.size() > p.size() && abs.compare(0, p.size(), p) == 0 &&
                                         (p.ends_with('/') || abs[p.size()] == '/'));
        if (covers && (planned == plan_.writer.end() || planned->second.first == reader)) return true;
    }
    if (planned != plan_.writer.end() || plan_state_.recorded.count(abs)) return false;
    const std::string rel = paths_.rel_of(abs);
    for (const auto& pj : plan_jobs_) {
        if (!pj.selected) continue;
        for (const auto& pat : pj.job->patterns)
            if (base::glob_match(fs::path(pat).is_absolute() ? pat : paths_.root + "/" + pat, abs)) {
                bool excluded = false;
                for (const auto& ex : pj.job->excludes) excluded = excluded || base::glob_match(ex, rel);
                if (!excluded) return true;
            }
    }
    return false;
}

bool holds_what_was_written(const Disk& disk, const OutputRecord& o, const std::string& abs) {
    const auto st = disk.stat(o.path, abs);
    if (!st || *st == o.st) return true;
    Hash128 h;
    try {
        h = disk.hash(abs);
    } catch (const std::exception&) {
        return false; // unreadable: not known to hold what was written
    }
    return h == o.hash;
}

// Under the path's claim lock, so a claim and a removal never interleave.
bool OutputCommit::remove_output(const OutputRecord& o) {
    const std::string abs = paths_.abs_of(o.path);
    ClaimShard& sh = shard_of(abs);
    std::lock_guard lk(sh.mu);
    if (sh.claims.count(abs) || plan_.writer.count(abs) || plan_.adopted.count(abs)) return false;
    try {
        disk_.check_no_link_escape(abs, output_root_);
    } catch (const std::exception& e) {
        status_.progress().line(std::string("not removing stale output: ") + e.what());
        store_.forget_file(o.path);
        return false;
    }
    if (!holds_what_was_written(disk_, o, abs)) {
        status_.progress().line("kept " + base::printable_name(o.path) +
                                ": edited since the build wrote it, so not removed as a stale output (delete it "
                                "yourself if it is not needed)");
        store_.forget_file(o.path);
        return false;
    }
    disk_.remove(abs);
    store_.forget_file(o.path);
    std::lock_guard lk2(known_mu_);
    known_[o.path] = {Hash128{}, FileStat{}}; // gone: nothing the build wrote is there now
    return true;
}

// An output now holds what this build wrote (or kept): remember it, and if
// another configuration's record had it, that record lets go of it and runs
// again there next time.
void OutputCommit::took_over(const OutputRecord& o) {
    {
        std::lock_guard lk(known_mu_);
        known_[o.path] = {o.hash, o.st};
    }
    std::tuple<std::string, std::string, std::string> owner;
    {
        std::lock_guard lk(foreign_mu_);
        auto it = foreign_owner_.find(o.path);
        if (it == foreign_owner_.end()) return;
        owner = it->second;
        foreign_owner_.erase(it);
    }
    if (opt_.dry_run) return;
    auto rec = store_.action(std::get<1>(owner), std::get<2>(owner), std::get<0>(owner));
    if (!rec) return;
    ActionRecord r = *rec;
    std::erase_if(r.outputs, [&](const OutputRecord& x) { return x.path == o.path; });
    if (r.outputs.empty()) {
        store_.erase_action(r.job, r.input, r.owner); // nothing of it left: gone, not an empty orphan
        return;
    }
    r.status = ActionRecord::Status::Failed;
    r.key = Hash128{};
    r.error = "output " + o.path + " was rebuilt by another configuration";
    store_.put_action(r);
}

std::vector<std::string> OutputCommit::remove_records(const ActionRecord& rec, base::ActionResult& r) {
    r.job = rec.job;
    r.input = rec.input;
    r.status = opt_.dry_run ? base::ActionStatus::WouldRemove : base::ActionStatus::Removed;
    std::vector<std::string> removed;
    for (const auto& o : rec.outputs) {
        if (plan_.adopted.count(paths_.abs_of(o.path))) continue; // a source now (plan.hpp)
        r.outputs.push_back(o.path);
        if (opt_.dry_run || remove_output(o)) removed.push_back(o.path);
    }
    return removed;
}

void OutputCommit::remove_vanished_jobs(const std::set<std::string>& names) {
    std::vector<ActionRecord> gone;
    const std::string& self = store_.self();
    store_.for_each_action([&](const ActionRecord& rec) {
        if (rec.owner == self && !names.count(rec.job)) gone.push_back(rec);
    });
    for (const auto& rec : gone) {
        base::ActionResult r;
        r.reason = "job '" + rec.job + "' is no longer in the pipeline";
        remove_records(rec, r);
        if (!opt_.dry_run) store_.erase_action(rec.job, rec.input);
        status_.explain(r);
        status_.note_removal((opt_.dry_run ? "would remove " : "removed ") + std::to_string(r.outputs.size()) +
                             " output(s) of job '" + base::printable_name(rec.job) + "', no longer in the pipeline");
        status_.add(std::move(r));
    }
}

namespace {
// An input seen by this build that is a folder of `input` can only be one
// the glob could not read: its files are unknown, not gone.
bool under_failed_folder(const JobRun& j, const std::string& input) {
    for (size_t slash = input.rfind('/'); slash != std::string::npos && slash > 0; slash = input.rfind('/', slash - 1))
        if (j.seen.count(input.substr(0, slash))) return true;
    return false;
}
} // namespace

void OutputCommit::remove_stale(const JobRun& j) {
    const auto stale = [&](const ActionRecord& rec) {
        return !j.seen.count(rec.input) && !under_failed_folder(j, rec.input);
    };
    for (const auto& rp : store_.actions_of(j.job->name, stale)) {
        const ActionRecord& rec = *rp;
        base::ActionResult r;
        r.reason = "its input " + rec.input + " is gone";
        const std::vector<std::string> removed = remove_records(rec, r);
        if (!opt_.dry_run) {
            store_.erase_action(rec.job, rec.input);
            // Its stat-cache row too, or the state grows with every file a project ever had.
            if (rec.input != "*" && !disk_.stat(rec.input, paths_.abs_of(rec.input))) store_.forget_file(rec.input);
        }
        // A failed action's record wrote nothing: forgetting it removes no file, and is not said as if it did.
        if (rec.outputs.empty()) continue;
        status_.explain(r);
        // Information, not a warning: the input was deleted on purpose, and an output that replaces a game file
        // going with it must be no surprise, so each file is named (--warnings-as-errors is for what an encode
        // discarded).
        for (const auto& out : removed)
            status_.note_removal(
                base::printable_name((opt_.dry_run ? "would remove " : "removed ") + out + ": " + r.reason));
        status_.add(std::move(r));
    }
}

void OutputCommit::sweep_temporaries(fs::file_time_type before) {
    std::set<fs::path> dirs;
    for (auto& sh : claim_shards_) {
        std::lock_guard lk(sh.mu);
        for (const auto& [out, _] : sh.claims) dirs.insert(fs::path(out).parent_path());
    }
    size_t n = remove_abandoned_temporaries(dirs, before);
    if (n) status_.note("removed " + std::to_string(n) + " temporary file(s) left by an interrupted build");
}

} // namespace af::engine
