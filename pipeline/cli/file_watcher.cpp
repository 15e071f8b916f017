#include "cli/file_watcher.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace af::cli {
namespace {

using Clock = std::chrono::steady_clock;

// IN_ATTRIB is left out: a touch changes no content, and the build decides by content.
constexpr uint32_t kMask = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE | IN_MODIFY |
                           IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_EXCL_UNLINK;

bool dot_name(const char* name) { return name[0] == '.'; }

std::string join(const std::string& dir, const char* name) {
    return dir == "/" ? "/" + std::string(name) : dir + "/" + name;
}

// Entries of a folder: name and whether it is a folder (d_type, lstat only when the file system does not say).
template <class Fn> void each_entry(const std::string& dir, Fn&& fn) {
    DIR* d = ::opendir(dir.c_str());
    if (!d) return;
    while (dirent* e = ::readdir(d)) {
        if (!std::strcmp(e->d_name, ".") || !std::strcmp(e->d_name, "..")) continue;
        bool folder = e->d_type == DT_DIR;
        if (e->d_type == DT_UNKNOWN) {
            struct stat st {};
            folder = ::lstat(join(dir, e->d_name).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
        }
        fn(e->d_name, folder);
    }
    ::closedir(d);
}

} // namespace

FileWatcher::FileWatcher(bool force_poll, int poll_ms) : poll_ms_(poll_ms) {
    if (force_poll) {
        poll_why_ = "--poll";
        return;
    }
    fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd_ < 0) poll_why_ = std::string("inotify is not available: ") + std::strerror(errno);
}

FileWatcher::~FileWatcher() {
    if (fd_ >= 0) ::close(fd_);
}

std::string FileWatcher::mechanism() const {
    if (fd_ >= 0) return "inotify on " + std::to_string(wds_.size()) + " folder(s)";
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.1f", poll_ms_ / 1000.0);
    return std::string("polling every ") + secs + " s (" + poll_why_ + ")";
}

bool FileWatcher::skipped(const std::string& path) const {
    for (const auto& s : skip_)
        if (path == s || path_is_below(path, s)) return true;
    return false;
}

void FileWatcher::start_polling(const std::string& why) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    wds_.clear();
    poll_why_ = why;
    last_ = snapshot();
    next_poll_ = Clock::now() + std::chrono::milliseconds(poll_ms_);
}

void FileWatcher::watch(const std::vector<WatchRoot>& roots, const std::set<std::string>& skip) {
    roots_ = roots;
    skip_ = skip;
    if (fd_ < 0) {
        last_ = snapshot();
        next_poll_ = Clock::now() + std::chrono::milliseconds(poll_ms_);
        return;
    }
    for (const auto& [wd, w] : wds_) ::inotify_rm_watch(fd_, wd);
    wds_.clear();
    for (const auto& r : roots_) {
        if (!add_one(r.dir.native(), r.recursive)) return start_polling("the inotify watch limit was reached");
        for (auto& [wd, w] : wds_)
            if (w.path == r.dir.native()) w.root = true; // losing it is losing every change below
        if (r.recursive && !add_tree(r.dir.native(), true, nullptr))
            return start_polling("the inotify watch limit was reached (fs.inotify.max_user_watches)");
    }
}

bool FileWatcher::add_one(const std::string& dir, bool recursive) {
    const int wd = ::inotify_add_watch(fd_, dir.c_str(), kMask);
    if (wd < 0) return errno != ENOSPC; // a folder gone or unreadable meanwhile is not a reason to stop
    auto& w = wds_[wd];                 // the same folder again (a root inside another) keeps one watch
    w.path = dir;
    w.recursive = w.recursive || recursive;
    return true;
}

// The folder's subfolders, watched; with `found`, its files too, as changes
// (they may have been written before the folder's watch existed).
bool FileWatcher::add_tree(const std::string& dir, bool recursive, WatchEvents* found) {
    bool ok = true;
    each_entry(dir, [&](const char* name, bool folder) {
        if (!ok) return;
        const std::string path = join(dir, name);
        if (skipped(path)) return;
        if (!folder) {
            if (found) found->paths.insert(path);
            return;
        }
        if (dot_name(name)) return;
        if (found) {
            found->paths.insert(path);
            found->new_folders.insert(path);
        }
        ok = add_one(path, recursive) && add_tree(path, recursive, found);
    });
    return ok;
}

void FileWatcher::forget_below(const std::string& dir) {
    for (auto it = wds_.begin(); it != wds_.end();)
        if (it->second.path == dir || path_is_below(it->second.path, dir)) {
            ::inotify_rm_watch(fd_, it->first);
            it = wds_.erase(it);
        } else {
            ++it;
        }
}

void FileWatcher::read_events(WatchEvents& ev) {
    alignas(inotify_event) char buf[64 * 1024];
    for (;;) {
        const ssize_t n = ::read(fd_, buf, sizeof buf);
        if (n <= 0) return; // EAGAIN: all read
        for (ssize_t off = 0; off < n && fd_ >= 0;) {
            const auto* e = reinterpret_cast<const inotify_event*>(buf + off);
            off += ssize_t(sizeof(inotify_event) + e->len);
            if (e->mask & IN_Q_OVERFLOW) {
                ev.rescan = "the kernel's event queue overflowed";
                continue;
            }
            auto it = wds_.find(e->wd);
            if (it == wds_.end()) continue; // a watch this watcher removed
            const Watched w = it->second;
            if (e->mask & IN_IGNORED) {
                wds_.erase(it);
                if (w.root) ev.rescan = "lost the watch on " + w.path;
                continue;
            }
            if (!e->len) { // the watched folder itself
                if (w.root && (e->mask & (IN_DELETE_SELF | IN_MOVE_SELF))) ev.rescan = w.path + " was moved or deleted";
                continue;
            }
            const std::string path = join(w.path, e->name);
            if (skipped(path)) continue;
            if (!(e->mask & IN_ISDIR)) {
                ev.paths.insert(path);
                continue;
            }
            if (!w.recursive || dot_name(e->name)) continue;
            ev.paths.insert(path);
            if (e->mask & (IN_CREATE | IN_MOVED_TO)) {
                ev.new_folders.insert(path);
                if (!add_one(path, true) || !add_tree(path, true, &ev)) {
                    start_polling("the inotify watch limit was reached (fs.inotify.max_user_watches)");
                    ev.rescan = "switched to polling";
                    return;
                }
            } else if (e->mask & (IN_DELETE | IN_MOVED_FROM)) {
                ev.gone_folders.insert(path);
                forget_below(path);
            }
        }
    }
}

void FileWatcher::scan(const WatchRoot& r, Snapshot& into) const {
    each_entry(r.dir.native(), [&](const char* name, bool folder) {
        const std::string path = join(r.dir.native(), name);
        if (skipped(path)) return;
        if (folder) {
            if (!r.recursive || dot_name(name)) return;
            Stamp s;
            s.dir = true; // a folder's own times change with its entries, which are compared one by one
            into[path] = s;
            scan({path, true}, into);
            return;
        }
        struct stat st {};
        if (::lstat(path.c_str(), &st) != 0) return;
        into[path] = {int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec, int64_t(st.st_size),
                      uint64_t(st.st_ino), int64_t(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec, false};
    });
}

FileWatcher::Snapshot FileWatcher::snapshot() const {
    Snapshot s;
    for (const auto& r : roots_) scan(r, s);
    return s;
}

void FileWatcher::poll_changes(WatchEvents& ev) {
    Snapshot now = snapshot();
    auto note = [&](const std::string& path, const Stamp* before, const Stamp* after) {
        ev.paths.insert(path);
        if (after && after->dir && !before) ev.new_folders.insert(path);
        if (before && before->dir && !after) ev.gone_folders.insert(path);
    };
    auto a = last_.begin();
    auto b = now.begin();
    while (a != last_.end() || b != now.end()) {
        if (b == now.end() || (a != last_.end() && a->first < b->first)) {
            note(a->first, &a->second, nullptr);
            ++a;
        } else if (a == last_.end() || b->first < a->first) {
            note(b->first, nullptr, &b->second);
            ++b;
        } else {
            if (!(a->second == b->second)) note(a->first, &a->second, &b->second);
            ++a;
            ++b;
        }
    }
    last_ = std::move(now);
}

WatchEvents FileWatcher::wait(int timeout_ms, int wake_fd) {
    WatchEvents ev;
    const auto deadline =
        timeout_ms < 0 ? Clock::time_point::max() : Clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
        const auto now = Clock::now();
        auto until = deadline;
        if (fd_ < 0) until = std::min(until, next_poll_);
        int wait_ms = -1;
        if (until != Clock::time_point::max())
            wait_ms = int(
                std::max<int64_t>(0, std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count() + 1));
        pollfd fds[2] = {{wake_fd, POLLIN, 0}, {fd_, POLLIN, 0}};
        const int r = ::poll(fds, fd_ >= 0 ? 2 : 1, wait_ms);
        if (r < 0 && errno != EINTR) return ev;
        if (r > 0 && (fds[0].revents & POLLIN)) ev.woken = true;
        if (fd_ >= 0 && r > 0 && (fds[1].revents & POLLIN)) read_events(ev);
        if (fd_ < 0 && Clock::now() >= next_poll_) {
            poll_changes(ev);
            next_poll_ = Clock::now() + std::chrono::milliseconds(poll_ms_);
        }
        if (!ev.empty() && ev.first == Clock::time_point{}) ev.first = Clock::now();
        if (ev.woken || !ev.empty() || Clock::now() >= deadline) return ev;
    }
}

} // namespace af::cli
