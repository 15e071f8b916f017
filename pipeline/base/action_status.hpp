// What became of one action in a build. One enum rather than strings: the
// scheduler, the summary, `status` and the reports all branch on it.
#pragma once

#include <cstdint>
#include <string_view>

namespace af::base {

enum class ActionStatus : uint8_t {
    Built,       // its steps ran and its outputs were written
    Cached,      // its outputs came from the remote cache, hash-checked, as if built
    UpToDate,    // its recorded outputs are current
    Failed,      // a step, a check or the commit failed; nothing partial was written
    Removed,     // the stale outputs of a vanished input or job were removed
    NotRun,      // the build stopped first (fail-fast, Ctrl-C) or an upstream job failed
    Skipped,     // another shard's action (--shard)
    WouldRun,    // `status`: out of date
    WouldFetch,  // `status`: out of date, and the remote cache holds its outputs
    WouldRemove, // `status`: stale outputs it would remove
};

// "built", "cached", "up-to-date", "failed", "removed", "not-run", "skipped",
// "would-run", "would-fetch", "would-remove": the words of --report and --json.
std::string_view to_string(ActionStatus s);

// Actions the progress line counts as work done (the rest are counted quietly).
inline bool ran(ActionStatus s) {
    return s == ActionStatus::Built || s == ActionStatus::Cached || s == ActionStatus::Failed;
}

} // namespace af::base
