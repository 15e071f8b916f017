// The build as the command line runs it: on the real file system, with the
// state in its folder on disk, telling the terminal, sharing through the
// remote cache the options name.
#include "assetforge/user_text.hpp"
#include "base/surface_names.hpp"
#include "engine/build/build_services.hpp"
#include "engine/build_lock.hpp"
#include "engine/build_session.hpp"
#include "engine/disk.hpp"
#include "engine/run_marker.hpp"
#include "engine/state_store.hpp"
#include "remote/remote_client.hpp"
#include "report/build_status.hpp"

#include <algorithm>
#include <sys/stat.h>

#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <unordered_set>

namespace af::engine {
namespace fs = std::filesystem;

fs::path state_dir(const load::Pipeline& p) {
    return p.state_dir.empty() ? p.output_root / ".assetforge" : p.state_dir;
}

Configuration configuration(const load::Pipeline& p) {
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

class DiskStateFolder final : public StateFolder {
  public:
    // `kept`: a store kept from the previous build of this process (BuildSession), used again unless stale.
    DiskStateFolder(const load::Pipeline& p, const base::BuildOptions& opt, std::ostream& err,
                    std::shared_ptr<StateStore>* kept = nullptr)
        : p_(p), opt_(opt), err_(err), kept_(kept) {}

    bool hold() override {
        try {
            lock_.emplace(
                state_dir(p_), [&](const std::string& msg) { err_ << "assetforge: " << msg << "\n"
                                                                  << std::flush; },
                opt_.cancelled);
        } catch (const BuildLock::Cancelled&) {
            return false;
        }
        marker_.emplace(state_dir(p_));
        return true;
    }
    bool previous_build_was_killed() const override { return marker_ && marker_->previous_build_was_killed(); }
    std::shared_ptr<StateStore> open() override {
        if (kept_ && *kept_ && !(*kept_)->stale()) return *kept_;
        auto store = std::make_shared<StateStore>(
            state_dir(p_), configuration(p_), opt_.dry_run ? StateStore::Mode::ReadOnly : StateStore::Mode::ReadWrite);
        if (kept_ && !opt_.dry_run) *kept_ = store;
        return store;
    }

  private:
    const load::Pipeline& p_;
    const base::BuildOptions& opt_;
    std::ostream& err_;
    std::optional<BuildLock> lock_;
    std::shared_ptr<StateStore>* kept_;
    std::optional<RunMarker> marker_; // released first: this build was not killed
};

std::function<std::unique_ptr<remote::RemoteClient>()>
remote_opener(const load::Pipeline& p, const base::BuildOptions& opt, report::BuildStatus& status) {
    if (opt.remote_cache.empty()) return {};
    return [&p, &opt, &status] {
        remote::RemoteCacheOptions ro;
        ro.url = opt.remote_cache;
        ro.url_from_pipeline = opt.remote_cache_from_pipeline;
        // Blobs arrive in unnamed files beside the build state, not in memory (and not in a /tmp that may be RAM).
        ro.temp_dir = state_dir(p).native();
        ro.upload = opt.remote_upload && !opt.dry_run;
        // Called one at a time (the client serialises them), each problem once.
        // --remote-cache-required: each problem is an error, and the build's exit code fails.
        ro.warn = [&status, required = opt.remote_cache_required](const std::string& msg) {
            status.err() << "assetforge: " << (required ? "error" : "warning")
                         << ": remote cache: " << base::printable_name(msg) << "\n"
                         << std::flush;
            if (required) status.summary().remote_cache_fail = true;
        };
        std::string error;
        auto cache = remote::open_remote_client(std::move(ro), error);
        if (!cache) {
            status.err() << "assetforge: " << (opt.remote_cache_required ? "error" : "warning")
                         << ": remote cache: " << base::printable_name(error) << "\n";
            if (opt.remote_cache_required) status.summary().remote_cache_fail = true;
            return cache;
        }
        if (!cache->enabled()) {
            if (opt.remote_cache_required) status.summary().remote_cache_fail = true;
            cache.reset();
        }
        return cache;
    };
}

} // namespace

base::BuildSummary run_build(const load::Pipeline& p, const steps::StepTable& steps, const base::BuildOptions& opt) {
    report::BuildStatus status(opt, opt.out ? *opt.out : std::cout, opt.err ? *opt.err : std::cerr);
    RealDisk disk(p.root, p.output_root);
    DiskStateFolder state(p, opt, status.err());
    return run_build(p, steps, opt,
                     {disk, state, status, file_system_glob(p.root, opt.glob_witness), remote_opener(p, opt, status)});
}

} // namespace af::engine

namespace af::engine {

struct BuildSession::Kept {
    std::shared_ptr<StateStore> store;
    std::mutex mu; // late globs run on worker threads
    struct Globbed {
        std::vector<base::GlobMatch> matches;
        std::vector<size_t> per_pattern;
    };
    std::map<std::string, Globbed> globs;    // by job, as the last full build found them
    std::unordered_set<std::string> globbed; // every path among them
    bool full_planned = false;               // the last full build's plan accepted it
    std::set<std::string> whole;             // gathers and the jobs whose outputs flow into one
    bool has_needs = false;
};

BuildSession::BuildSession(const load::Pipeline& p, const steps::StepTable& steps)
    : p_(p), steps_(steps), kept_(std::make_unique<Kept>()) {
    std::vector<const load::Job*> every;
    for (const auto& j : p.jobs) every.push_back(&j);
    for (const auto& j : p.unselected) every.push_back(&j);
    for (const load::Job* j : every) {
        if (j->is_gather()) kept_->whole.insert(j->name);
        kept_->has_needs = kept_->has_needs || !j->needs.empty();
    }
    // Upstream of a whole job is whole: a gather fed by a narrowed job would get a few files.
    for (bool grew = true; grew;) {
        grew = false;
        for (const load::Job* j : every)
            if (kept_->whole.count(j->name))
                for (const auto& up : j->from) grew = kept_->whole.insert(up).second || grew;
    }
}

BuildSession::~BuildSession() = default;

base::BuildSummary BuildSession::build(const base::BuildOptions& opt) { return run(opt, nullptr); }

base::BuildSummary BuildSession::build_changed(const base::BuildOptions& opt, const std::set<std::string>& changed) {
    return run(opt, can_narrow(opt, changed) ? &changed : nullptr);
}

bool BuildSession::can_narrow(const base::BuildOptions& opt, const std::set<std::string>& changed) const {
    if (!kept_->full_planned || !kept_->store || kept_->has_needs || opt.shard_count || !opt.report_file.empty() ||
        opt.dry_run || changed.empty())
        return false;
    if (kept_->globs.size() < p_.jobs.size() + p_.unselected.size()) return false;
    // Another process wrote the state (a `build` or `clean` from another shell): what it changed is not known here.
    if (kept_->store->stale()) return false;
    for (const auto& c : changed) {
        if (!kept_->globbed.count(c)) return false; // new, or not an input: the glob decides
        // Replaced by a link (`ln -sf`, an editor saving through a rename): whether it may be read is the glob's
        // rule (a link out of the input root fails its input), which the kept matches from before do not hold.
        struct stat st;
        if (::lstat(c.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) return false;
    }
    return true;
}

base::BuildSummary BuildSession::run(const base::BuildOptions& in, const std::set<std::string>* only) {
    base::BuildOptions opt = in;
    opt.some_inputs_only = only != nullptr;
    narrowed_ = only != nullptr;
    report::BuildStatus status(opt, opt.out ? *opt.out : std::cout, opt.err ? *opt.err : std::cerr);
    RealDisk disk(p_.root, p_.output_root);
    DiskStateFolder state(p_, opt, status.err(), &kept_->store);
    InputGlob glob;
    Kept& k = *kept_;
    if (only) {
        glob = [&k, only](const load::Job& j, std::vector<size_t>* per_pattern) {
            std::lock_guard lk(k.mu);
            const Kept::Globbed& g = k.globs.at(j.name);
            if (per_pattern) *per_pattern = g.per_pattern; // what the patterns match is unchanged
            if (k.whole.count(j.name)) {
                // Every file, for the gather it feeds; the saved ones first, so their actions are checked and run
                // before the thousands of up-to-date checks: the game-ready file does not wait for those.
                std::vector<base::GlobMatch> all = g.matches;
                std::stable_partition(all.begin(), all.end(),
                                      [only](const base::GlobMatch& m) { return only->count(m.path) > 0; });
                return all;
            }
            std::vector<base::GlobMatch> v;
            // A saved picture of a multi-surface texture rebuilds the texture: its action reads every picture.
            std::set<std::string> sets;
            for (const auto& m : g.matches)
                if (only->count(m.path)) {
                    v.push_back(m);
                    if (auto s = base::surface_name(m.path)) sets.insert(std::move(s->set));
                }
            if (!sets.empty())
                for (const auto& m : g.matches)
                    if (auto s = base::surface_name(m.path); s && sets.count(s->set) && !only->count(m.path))
                        v.push_back(m);
            return v;
        };
    } else {
        k.globs.clear();
        k.globbed.clear();
        k.full_planned = false;
        glob = [&k, real = file_system_glob(p_.root)](const load::Job& j, std::vector<size_t>* per_pattern) {
            std::vector<size_t> counts;
            auto matches = real(j, &counts);
            if (per_pattern) *per_pattern = counts;
            std::lock_guard lk(k.mu);
            k.globs[j.name] = {matches, std::move(counts)};
            return matches;
        };
    }
    base::BuildSummary s =
        run_build(p_, steps_, opt, {disk, state, status, std::move(glob), remote_opener(p_, opt, status)});
    if (!only) {
        k.full_planned = s.plan_exit == 0 && !s.cancelled;
        for (const auto& [name, g] : k.globs)
            for (const auto& m : g.matches) k.globbed.insert(m.path);
    } else if (s.plan_exit || s.cancelled) {
        k.full_planned = false;
    }
    return s;
}

} // namespace af::engine
