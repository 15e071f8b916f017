#include "engine/build/build_inputs.hpp"

#include "assetforge/user_text.hpp"
#include "base/surface_names.hpp"
#include "engine/build.hpp"
#include "engine/dirty_scan.hpp"
#include "engine/disk.hpp"
#include "engine/output_commit.hpp"
#include "engine/parallel_indices.hpp"
#include "engine/param_inputs.hpp"
#include "engine/scheduler.hpp"
#include "engine/shard.hpp"
#include "engine/state_store.hpp"
#include "report/build_status.hpp"

#include <algorithm>
#include <map>
#include <ostream>
#include <set>

namespace af::engine {
namespace fs = std::filesystem;

InputGlob file_system_glob(fs::path root, base::GlobWitness* witness) {
    return [root = std::move(root), witness](const load::Job& j, std::vector<size_t>* per_pattern) {
        base::GlobOptions go;
        go.witness = witness;
        go.input_root = j.input_root;
        go.follow_links = j.follow_links;
        go.named_folders = j.named_folders;
        return base::expand_globs(root, j.patterns, j.excludes, go, per_pattern);
    };
}

BuildInputs::BuildInputs(const load::Pipeline& p, const base::BuildOptions& opt, ProjectPaths paths, InputGlob glob,
                         std::string report_dir)
    : p_(p), opt_(opt), paths_(std::move(paths)), glob_(std::move(glob)), report_dir_(std::move(report_dir)) {}

void BuildInputs::expand_jobs(const Disk& disk) {
    setup_jobs();
    for (auto& pj : plan_jobs_) {
        if (opt_.cancelled && opt_.cancelled()) break; // plan() stops then
        pj.matches = expand(*pj.job, &pj.per_pattern);
        // This thread would otherwise wait for the state to load: the stats the checks need are taken now.
        for (auto& m : pj.matches) {
            if (!m.link_escape.empty()) continue;
            if (auto st = disk.stat(paths_.rel_of(m.path), m.path)) {
                m.stat_known = true;
                m.size = st->size, m.mtime_ns = st->mtime_ns, m.inode = st->inode, m.ctime_ns = st->ctime_ns;
            }
        }
    }
}

void BuildInputs::setup_jobs() {
    runs_.resize(p_.jobs.size());
    // Selected jobs first (runs_[i] ↔ plan_jobs_[i]), then the ones --job left out.
    std::vector<const load::Job*> every;
    for (const auto& j : p_.jobs) every.push_back(&j);
    for (const auto& j : p_.unselected) every.push_back(&j);
    plan_jobs_.resize(every.size());
    for (size_t i = 0; i < every.size(); ++i) {
        PlanJob& pj = plan_jobs_[i];
        pj.job = every[i];
        pj.tpl = base::OutputTemplate::parse(pj.job->output);
        fs::path base(pj.tpl.static_prefix());
        pj.out_base = (base.is_absolute() ? base : p_.root / base).lexically_normal().native();
        while (pj.out_base.size() > 1 && pj.out_base.back() == '/') pj.out_base.pop_back();
        pj.keeps_names = std::all_of(pj.job->steps.begin(), pj.job->steps.end(),
                                     [](const load::StepUse& s) { return s.def && s.def->keeps_names; });
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

std::vector<base::GlobMatch> BuildInputs::expand(const load::Job& j, std::vector<size_t>* per_pattern) {
    auto matches = glob_(j, per_pattern);
    // The state may live inside the project (--state-dir): never an
    // input. Its own files are skipped; anything else there is an input
    // the build would silently drop, so the plan refuses it.
    std::string sd = state_dir(p_).lexically_normal().native() + "/";
    std::erase_if(matches, [&](const base::GlobMatch& m) {
        if (m.path.compare(0, sd.size(), sd) != 0) return false;
        if (!is_state_file(m.path.substr(sd.size()))) {
            std::lock_guard lk(state_inputs_mu_);
            state_dir_inputs_.emplace_back(j.name, m.path);
        }
        return true;
    });
    // Nor the HTML report's pictures: a `**/*.png` job would take them
    // in, and the next build's report would show pictures of pictures.
    if (!report_dir_.empty()) {
        const std::string rd = report_dir_ + "/";
        std::erase_if(matches, [&](const base::GlobMatch& m) { return m.path.compare(0, rd.size(), rd) == 0; });
    }
    return matches;
}

// Split across the cores: a no-op build of a large tree does little else meanwhile.
std::vector<Input> BuildInputs::to_inputs(std::vector<base::GlobMatch> matches, const load::Job& j) const {
    const bool sets = assembles_surfaces(j);
    std::vector<Input> v(matches.size());
    parallel_indices(matches.size(), 1024, [&](size_t begin, size_t end) {
        for (size_t i = begin; i != end; ++i) {
            base::GlobMatch& m = matches[i];
            Input& in = v[i];
            in.rel = paths_.rel_of(m.path);
            in.origin = in.rel;
            in.abs = std::move(m.path);
            in.name = std::move(m.name);
            in.link_escape = std::move(m.link_escape);
            if (m.stat_known) in.st = FileStat{m.size, m.mtime_ns, m.inode, m.ctime_ns};
            if (!sets) continue;
            if (auto s = base::surface_name(in.name)) {
                in.set = std::move(s->set);
                in.set_rel = base::surface_name(in.rel)->set;
                in.origin = in.set_rel; // a texture's pictures stay in one shard
            }
        }
    });
    return v;
}

std::vector<Input> BuildInputs::late_inputs(JobRun& j, const OutputCommit& commit) {
    PlanJob& pj = *j.plan;
    std::vector<size_t> per_pattern;
    pj.matches = expand(*j.job, &per_pattern);
    filter_matches(pj, plan_state_, commit.claims());
    if (auto empty = empty_patterns(*j.job, per_pattern); !empty.empty()) throw std::runtime_error(empty.front());
    return to_inputs(std::move(pj.matches), *j.job);
}

// Every recorded output, by whom; returns other configurations' outputs
// (path, owner, job, input) for the commit.
std::vector<std::tuple<std::string, std::string, std::string, std::string>>
BuildInputs::load_recorded(const StateStore& store, const std::set<std::string>& names) {
    const std::string& self = store.self();
    std::vector<std::tuple<std::string, std::string, std::string, std::string>> foreign;
    store.for_each_action([&](const ActionRecord& rec) {
        bool own = rec.owner == self;
        // Outputs of jobs no longer in the pipeline are nobody's input:
        // they are removed below.
        auto kind = !own ? Recorded::Kind::Foreign : names.count(rec.job) ? Recorded::Kind::Own : Recorded::Kind::Gone;
        for (const auto& o : rec.outputs) {
            plan_state_.recorded[paths_.abs_of(o.path)] = {kind, rec.job, o.hash, o.st};
            if (!own) foreign.emplace_back(o.path, rec.owner, rec.job, rec.input);
        }
    });
    return foreign;
}

bool BuildInputs::plan(StateStore& store, Disk& disk, report::BuildStatus& status,
                       std::optional<OutputCommit>& commit) {
    std::set<std::string> names;
    for (const auto& j : p_.jobs) names.insert(j.name);
    for (const auto& j : p_.unselected) names.insert(j.name);
    const auto foreign = load_recorded(store, names);
    reserved_ = ReservedPaths::of(p_, state_dir(p_));
    plan_ = make_plan(plan_jobs_, plan_state_, p_.root, &reserved_, opt_.cancelled);
    if (opt_.cancelled && opt_.cancelled()) {
        // A plan cut short decides nothing: stop before anything is removed or run.
        status.summary().cancelled = true;
        return false;
    }
    check_side_files();
    // Adopted outputs of vanished jobs are plain sources from here on (late globs too).
    for (const auto& a : plan_.adopted) plan_state_.recorded.erase(a);
    commit.emplace(disk, store, paths_, p_.output_root, plan_, plan_jobs_, plan_state_, status,
                   OutputCommit::Options{opt_.overwrite_edited, opt_.dry_run, &reserved_});
    for (const auto& [path, owner, job, input] : foreign) commit->note_foreign(path, owner, job, input);
    for (const auto& n : plan_.notes) status.note(base::printable_name(n));
    if (plan_.exit_code) {
        for (const auto& e : plan_.errors) status.err() << "assetforge: " << base::printable_name(e) << "\n";
        status.err() << "assetforge: nothing was run"
                     << (plan_.exit_code == 2 ? " (the pipeline breaks a promise of a build; see above)" : "") << "\n";
        status.summary().plan_exit = plan_.exit_code;
        return false;
    }
    if (!(opt_.cancelled && opt_.cancelled())) commit->remove_vanished_jobs(names);
    size_t actions = 0;
    for (auto& j : runs_)
        if (!j.plan->late) {
            j.prefetched = to_inputs(std::move(j.plan->matches), *j.job);
            j.has_prefetched = true;
            actions += j.prefetched.size();
        }
    // Results are added under the scheduler's lock: growing the list there moved all of it, again and again.
    status.summary().actions.reserve(actions);
    if (opt_.shard_count) assign_shards_by_size(disk);
    return true;
}

void BuildInputs::assign_shards_by_size(const Disk& disk) {
    std::vector<std::pair<std::string, uint64_t>> sources;
    for (const auto& j : runs_)
        for (const auto& in : j.prefetched) {
            auto st = disk.stat(in.rel, in.abs);
            sources.emplace_back(in.origin, st ? st->size : 0);
        }
    shards_ = assign_shards(std::move(sources), opt_.shard_count);
}

bool BuildInputs::in_shard(const Input& in) const {
    auto it = shards_.find(in.origin);
    const int s = it != shards_.end() ? it->second : shard_by_name(in.origin, opt_.shard_count);
    return s == opt_.shard_index;
}

std::string BuildInputs::state_dir_refusal(const std::string& shown) const {
    const auto& [job, path] = state_dir_inputs_.front();
    return "job '" + job + "' reads '" + paths_.rel_of(path) + "', inside the build's state folder " + shown + " (" +
           std::to_string(state_dir_inputs_.size()) +
           " file(s) there); the build would skip them: choose a --state-dir no job reads from";
}

// A folder holding only state files needs no glob walk.
bool BuildInputs::state_dir_holds_inputs(std::ostream& err) {
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
        for (const auto& j : p_.jobs) expand(j, nullptr);
        for (const auto& j : p_.unselected) expand(j, nullptr);
    } catch (const std::exception&) {
        // An unreadable input is reported, with its job, by the build's own walk.
    }
    if (state_dir_inputs_.empty()) return false;
    err << "assetforge: " << base::printable_name(state_dir_refusal(fs::absolute(sd).lexically_normal().native()))
        << "\n"
        << "assetforge: nothing was run (the pipeline breaks a promise of a build; see above)\n";
    return true;
}

// --report, --trace and --state-dir get the rules of outputs (reserved_paths.hpp).
void BuildInputs::check_side_files() {
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

void report_orphans(const StateStore& store, report::BuildStatus& status) {
    std::map<std::string, size_t> by_owner;
    store.for_each_action([&](const ActionRecord& rec) {
        if (rec.owner != store.self()) by_owner[rec.owner] += rec.outputs.size();
    });
    auto names = store.configurations();
    for (const auto& [owner, n] : by_owner) {
        if (!n) continue;
        std::string who = names.count(owner) && !names[owner].empty() ? names[owner] : "an earlier layout";
        status.progress().line("orphans: " + std::to_string(n) + " output(s) of another configuration, " +
                               base::printable_name(who) +
                               " (not removed by this one; 'assetforge clean --orphans' removes them)");
    }
}

} // namespace af::engine
