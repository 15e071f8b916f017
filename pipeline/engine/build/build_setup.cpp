// The build as the command line runs it: on the real file system, with the
// state in its folder on disk, telling the terminal, sharing through the
// remote cache the options name.
#include "assetforge/user_text.hpp"
#include "engine/build/build_services.hpp"
#include "engine/build_lock.hpp"
#include "engine/disk.hpp"
#include "engine/run_marker.hpp"
#include "engine/state_store.hpp"
#include "remote/remote_client.hpp"
#include "report/build_status.hpp"

#include <iostream>
#include <optional>

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

class DiskStateFolder final : public StateFolder {
  public:
    DiskStateFolder(const Pipeline& p, const BuildOptions& opt, std::ostream& err) : p_(p), opt_(opt), err_(err) {}

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
        return std::make_shared<StateStore>(state_dir(p_), configuration(p_),
                                            opt_.dry_run ? StateStore::Mode::ReadOnly : StateStore::Mode::ReadWrite);
    }

  private:
    const Pipeline& p_;
    const BuildOptions& opt_;
    std::ostream& err_;
    std::optional<BuildLock> lock_;
    std::optional<RunMarker> marker_; // released first: this build was not killed
};

std::function<std::unique_ptr<remote::RemoteClient>()> remote_opener(const Pipeline& p, const BuildOptions& opt,
                                                                     BuildStatus& status) {
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
                         << ": remote cache: " << printable_name(msg) << "\n"
                         << std::flush;
            if (required) status.summary().remote_cache_fail = true;
        };
        std::string error;
        auto cache = remote::open_remote_client(std::move(ro), error);
        if (!cache) {
            status.err() << "assetforge: " << (opt.remote_cache_required ? "error" : "warning")
                         << ": remote cache: " << printable_name(error) << "\n";
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

BuildSummary run_build(const Pipeline& p, const StepTable& steps, const BuildOptions& opt) {
    BuildStatus status(opt, opt.out ? *opt.out : std::cout, opt.err ? *opt.err : std::cerr);
    RealDisk disk(p.root, p.output_root);
    DiskStateFolder state(p, opt, status.err());
    return run_build(p, steps, opt, {disk, state, status, file_system_glob(p.root), remote_opener(p, opt, status)});
}

} // namespace af::engine
