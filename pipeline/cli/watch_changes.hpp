// What changed between two builds of `assetforge watch`, said the way a user
// thinks of it: a file's content, a new file, a deleted file, a folder gone.
// It makes the rebuild's one line and the "why it ran" of its actions (issue
// 31, item 3), which the engine appends to "input changed" / "new input".
#pragma once

#include "cli/watch_plan.hpp"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace af::cli {

class WatchChanges {
  public:
    enum class Kind { Content, New, Deleted, FolderGone };

    // The paths the watcher reported, kept when they matter to the plan and
    // classified by what the last build read and what is on disk now.
    WatchChanges(const WatchEvents& ev, const WatchPlan& plan);

    bool empty() const { return by_rel_.empty(); }
    // The files (absolute) when every change is new content of a file the last
    // build read (an editor's save): what a rebuild of only those may take.
    // Empty when anything else changed (new, deleted, the pipeline).
    const std::set<std::string>& contents_only() const { return contents_only_; }
    // "src/a.png (content), src/new.png (new)"; the first few, then a count.
    std::string describe() const;
    // How the files among an action's inputs changed ("src/a.png: content
    // changed"), or the sources they were made from (a `from` job, a
    // gather); when none did, the deletions (a gather lost an input).
    std::string why(const std::vector<std::string>& inputs) const;

  private:
    const WatchPlan& plan_; // outlives the build that asks why()
    std::map<std::string, Kind> by_rel_;
    std::set<std::string> contents_only_;
};

const char* to_string(WatchChanges::Kind k);

} // namespace af::cli
