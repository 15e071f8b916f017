// What `assetforge watch` listens to: folders, recursively or not, through
// inotify, or by polling when inotify cannot be used (no inotify, the watch
// limit reached, or --poll for network mounts whose changes inotify never
// sees). It reports paths that changed, never what they mean: the watch loop
// decides which matter and the build decides what to redo.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace af::cli {

// Whether `path` lies strictly inside folder `dir` (both absolute and normal; "/" holds every other path).
inline bool path_is_below(const std::string& path, const std::string& dir) {
    return path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 && (path[dir.size()] == '/' || dir == "/");
}

struct WatchRoot {
    std::filesystem::path dir; // absolute, normal
    bool recursive = true;
};

struct WatchEvents {
    std::set<std::string> paths;        // absolute: files or folders created, written, deleted or moved
    std::set<std::string> new_folders;  // of `paths`, folders that appeared (their files are in `paths` too)
    std::set<std::string> gone_folders; // of `paths`, folders that were deleted or moved away
    // The kernel's queue overflowed or a root's watch was lost: anything may
    // have changed, so the caller rebuilds from a full scan.
    std::string rescan;
    bool woken = false;                          // the wake-up descriptor became readable (a signal)
    std::chrono::steady_clock::time_point first; // when the first of them was seen
    bool empty() const { return paths.empty() && rescan.empty(); }
};

class FileWatcher {
  public:
    // `poll_ms`: the interval when polling. `force_poll`: do not try inotify.
    FileWatcher(bool force_poll, int poll_ms);
    ~FileWatcher();
    FileWatcher(const FileWatcher&) = delete;
    FileWatcher& operator=(const FileWatcher&) = delete;

    // Replaces what is watched (after a pipeline reload or a rescan); `skip`:
    // folders never walked or watched (the build state, the report's
    // pictures). May switch to polling when the inotify watch limit is reached.
    void watch(const std::vector<WatchRoot>& roots, const std::set<std::string>& skip);

    // Waits up to `timeout_ms` (-1: forever) for changes or for `wake_fd`
    // to become readable; returns what was seen, possibly nothing.
    WatchEvents wait(int timeout_ms, int wake_fd);

    // "inotify (N folders)" or "polling every X s (why)", for the terminal.
    std::string mechanism() const;
    bool polling() const { return fd_ < 0; }

  private:
    struct Stamp {
        int64_t mtime_ns = 0, size = 0;
        uint64_t ino = 0;
        int64_t ctime_ns = 0; // `cp -p` of a same-size file keeps size, mtime and inode: only this moves
        bool dir = false;
        bool operator==(const Stamp&) const = default;
    };
    using Snapshot = std::map<std::string, Stamp>;

    void start_polling(const std::string& why);
    bool add_tree(const std::string& dir, bool recursive, WatchEvents* found);
    bool add_one(const std::string& dir, bool recursive);
    void forget_below(const std::string& dir);
    void read_events(WatchEvents& ev);
    void scan(const WatchRoot& r, Snapshot& into) const;
    Snapshot snapshot() const;
    void poll_changes(WatchEvents& ev);
    bool skipped(const std::string& path) const;

    int fd_ = -1;
    int poll_ms_;
    std::string poll_why_;
    std::vector<WatchRoot> roots_;
    std::set<std::string> skip_;
    struct Watched {
        std::string path;
        bool recursive = false, root = false;
    };
    std::map<int, Watched> wds_;
    Snapshot last_; // polling: what the previous look saw
    std::chrono::steady_clock::time_point next_poll_{};
};

} // namespace af::cli
