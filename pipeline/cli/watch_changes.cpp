#include "cli/watch_changes.hpp"

#include "assetforge/user_text.hpp"

#include <sys/stat.h>

namespace af::cli {

const char* to_string(WatchChanges::Kind k) {
    switch (k) {
    case WatchChanges::Kind::Content:
        return "content";
    case WatchChanges::Kind::New:
        return "new";
    case WatchChanges::Kind::Deleted:
        return "deleted";
    case WatchChanges::Kind::FolderGone:
        return "folder deleted or moved away";
    }
    return "";
}

WatchChanges::WatchChanges(const WatchEvents& ev, const WatchPlan& plan) : plan_(plan) {
    bool only_content = true;
    for (const auto& path : ev.paths) {
        if (ev.gone_folders.count(path)) {
            // The build owns what was below: inputs gone, their outputs removed.
            by_rel_[plan.rel(path) + "/"] = Kind::FolderGone;
            continue;
        }
        if (ev.new_folders.count(path) || !plan.matters(path)) continue; // a new folder's files are listed
        struct stat st {};
        const bool here = ::lstat(path.c_str(), &st) == 0 && !S_ISDIR(st.st_mode);
        const bool known = plan.known_input(path) || plan.is_pipeline_file(path);
        // Made and removed again between two looks (an editor's scratch file): nothing to say.
        if (!here && !known) continue;
        const Kind k = !here ? Kind::Deleted : known ? Kind::Content : Kind::New;
        by_rel_[plan.rel(path)] = k;
        if (k == Kind::Content && plan.known_input(path) && !plan.is_pipeline_file(path))
            contents_only_.insert(path);
        else
            only_content = false;
    }
    if (!only_content || !ev.gone_folders.empty() || !ev.new_folders.empty()) contents_only_.clear();
}

std::string WatchChanges::describe() const {
    constexpr size_t kShown = 3;
    std::string s;
    size_t n = 0;
    for (const auto& [rel, kind] : by_rel_) {
        if (n++ == kShown) {
            s += " and " + std::to_string(by_rel_.size() - kShown) + " more";
            break;
        }
        s += (s.empty() ? "" : ", ") + sdk::printable(rel) + " (" + to_string(kind) + ")";
    }
    return s;
}

std::string WatchChanges::why(const std::vector<std::string>& inputs) const {
    std::string s;
    size_t n = 0; // a gather of 10,000 files says the first few
    auto add = [&](const std::string& rel, Kind k) {
        if (n++ >= 3) return;
        const char* how = k == Kind::Content ? "content changed" : k == Kind::New ? "new file" : to_string(k);
        s += (s.empty() ? "" : "; ") + sdk::printable(rel) + ": " + how;
    };
    for (const auto& in : inputs) {
        // An upstream output: follow it to the source it was made from (a chain is short; bounded anyway).
        std::string from = in;
        for (int hops = 0; hops < 16 && !from.empty() && !by_rel_.count(from); ++hops) from = plan_.source_of(from);
        if (auto it = by_rel_.find(from); !from.empty() && it != by_rel_.end())
            add(from == in ? in : in + " from " + from, it->second);
    }
    if (s.empty())
        for (const auto& [rel, kind] : by_rel_)
            if (kind == Kind::Deleted || kind == Kind::FolderGone) add(rel, kind);
    if (n > 3) s += "; and " + std::to_string(n - 3) + " more";
    return s;
}

} // namespace af::cli
