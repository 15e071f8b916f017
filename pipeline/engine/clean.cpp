// `assetforge clean`: removes what the state records this configuration (or,
// with --orphans, the others) wrote, keeping edited files.
#include "engine/build.hpp"

#include "engine/build_lock.hpp"
#include "engine/disk.hpp"
#include "engine/output_commit.hpp"
#include "engine/project_paths.hpp"
#include "engine/state_store.hpp"

#include <algorithm>
#include <iostream>

namespace af::engine {

CleanSummary clean_outputs(const load::Pipeline& p, const CleanOptions& o) {
    CleanSummary s;
    BuildLock lock(state_dir(p), [](const std::string& msg) { std::cerr << "assetforge: " << msg << "\n"; }, {});
    StateStore store(state_dir(p), configuration(p));
    RealDisk disk(p.root, p.output_root);
    const ProjectPaths paths{p.root.native()};
    for (const auto& rec : store.every_action()) {
        bool own = rec.owner == store.self();
        if (o.orphans ? own : !own) continue;
        if (!o.jobs.empty() && std::find(o.jobs.begin(), o.jobs.end(), rec.job) == o.jobs.end()) continue;
        std::vector<OutputRecord> left;
        for (const auto& out : rec.outputs) {
            const std::string abs = paths.abs_of(out.path);
            try {
                disk.check_no_link_escape(abs, p.output_root);
            } catch (const std::exception& e) {
                s.refused.push_back(e.what());
                left.push_back(out);
                continue;
            }
            if (!o.overwrite_edited && !holds_what_was_written(disk, out, abs)) {
                s.refused.push_back(out.path + " was edited since the build wrote it (--overwrite-edited removes it)");
                left.push_back(out);
                continue;
            }
            if (disk.remove(abs))
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
            kept.status = ActionRecord::Status::Failed;
            kept.key = Hash128{};
            store.put_action(kept);
        }
        ++s.actions;
    }
    store.flush();
    return s;
}

} // namespace af::engine
