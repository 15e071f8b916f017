// `assetforge clean`: removes what the state records this configuration (or,
// with --orphans, the others) wrote, keeping edited files.
#include "engine/build.hpp"

#include "engine/build_lock.hpp"
#include "engine/output_root_guard.hpp"
#include "engine/state_store.hpp"

#include <algorithm>
#include <iostream>

namespace af::engine {
namespace fs = std::filesystem;

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
