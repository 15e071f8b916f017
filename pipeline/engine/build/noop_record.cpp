#include "engine/build/noop_record.hpp"

#include "core/content_hash.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <thread>
#include <utility>

extern char** environ;

namespace af::engine {
namespace fs = std::filesystem;

namespace {

// 2: the environment variables the pipeline read.
constexpr char kMagic[8] = {'A', 'F', 'N', 'O', 'O', 'P', '2', '\n'};
// More records than this in the cache folder: the older half goes (one per
// command line and folder; test suites and scripts make many).
constexpr size_t kMaxRecords = 1024;

// Wrapping, not overflowing, for timestamps set centuries ahead (only compared for equality then).
int64_t ns_of(const timespec& t) { return int64_t(uint64_t(t.tv_sec) * 1000000000u + uint64_t(t.tv_nsec)); }

NoopRecord::Entry entry_of(const std::string& path, uint8_t kind, const struct stat& st) {
    NoopRecord::Entry e;
    e.path = path;
    e.kind = kind;
    if (kind == 2) return e;
    e.size = uint64_t(st.st_size);
    e.inode = uint64_t(st.st_ino);
    e.dev = uint64_t(st.st_dev);
    e.mtime_ns = ns_of(st.st_mtim);
    e.ctime_ns = ns_of(st.st_ctim);
    e.mode = uint32_t(st.st_mode);
    return e;
}

// Not older than the build's start, so a change in the same tick after it
// was looked at could hide behind the same stat. A filesystem that keeps
// whole seconds (no nanoseconds) gets two seconds' margin (FAT keeps two).
bool racy(const NoopRecord::Entry& e, int64_t started_ns) {
    auto late = [&](int64_t t) {
        const int64_t margin = t % 1000000000 == 0 ? 2000000000 : 0;
        return t >= started_ns - margin;
    };
    return late(e.mtime_ns) || late(e.ctime_ns);
}

// Variables that differ between shells with nothing to do with a build (cd sets OLDPWD, a nested shell
// SHLVL): in the key they would cost most records their answer. The host reads none of them; a pipeline that
// reads one through ${env:...} has it checked by the record like every variable it read (NoopRecord::env),
// so the record answers under exactly the values the loaded pipeline saw, whatever their names.
bool volatile_variable(std::string_view kv) {
    for (std::string_view name : {"_=", "OLDPWD=", "SHLVL=", "PWD="})
        if (kv.starts_with(name)) return true;
    return false;
}

std::string mode_octal(mode_t m) {
    char s[8];
    std::snprintf(s, sizeof s, "%04o", unsigned(m & 07777));
    return s;
}

void append_u64(std::string& s, uint64_t v) { s.append(reinterpret_cast<const char*>(&v), sizeof v); }

struct Reader {
    const char* p;
    const char* end;
    bool ok = true;
    uint64_t u64() {
        uint64_t v = 0;
        if (size_t(end - p) < sizeof v) return ok = false, 0;
        std::memcpy(&v, p, sizeof v);
        p += sizeof v;
        return v;
    }
    std::string str() {
        const uint64_t n = u64();
        if (!ok || n > uint64_t(end - p)) return ok = false, std::string();
        std::string s(p, size_t(n));
        p += n;
        return s;
    }
};

struct NoopFd {
    int fd = -1;
    NoopFd() = default;
    explicit NoopFd(int f) : fd(f) {}
    NoopFd(const NoopFd&) = delete;
    NoopFd& operator=(const NoopFd&) = delete;
    NoopFd(NoopFd&& o) noexcept : fd(std::exchange(o.fd, -1)) {}
    NoopFd& operator=(NoopFd&& o) noexcept {
        std::swap(fd, o.fd);
        return *this;
    }
    ~NoopFd() {
        if (fd >= 0) ::close(fd);
    }
};

// The record folder, opened one name at a time below the cache root (`create`: made 0700 where missing).
// Each is checked on its open descriptor and opened without following a link, so nothing swapped in between
// the check and the use gets through. The cache root itself is the user's choice (it may be a link) and
// holds more than ours. An invalid NoopFd with `why` empty: there is no folder (yet).
NoopFd open_record_folder(const fs::path& file, bool create, std::string& why) {
    const fs::path noop = file.parent_path(), ours = noop.parent_path(), root = ours.parent_path();
    if (create) {
        std::error_code ec;
        if (!fs::is_directory(root, ec)) {
            fs::create_directories(root.parent_path(), ec);
            ::mkdir(root.c_str(), 0700);
        }
    }
    NoopFd dir(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dir.fd < 0) return {};
    fs::path at = root;
    for (const fs::path& name : {ours.filename(), noop.filename()}) {
        at /= name;
        if (create) ::mkdirat(dir.fd, name.c_str(), 0700);
        NoopFd next(::openat(dir.fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (next.fd < 0) {
            if (errno == ELOOP || errno == ENOTDIR) why = at.native() + " is a link or not a folder";
            return {};
        }
        struct stat st {};
        if (::fstat(next.fd, &st) != 0) return {};
        if (st.st_uid != ::geteuid())
            why = at.native() + " is not the user's own (owner " + std::to_string(st.st_uid) + ")";
        else if (st.st_mode & (S_IWGRP | S_IWOTH))
            why = at.native() + " is writable by group or others (mode " + mode_octal(st.st_mode) + ")";
        if (!why.empty()) return {};
        dir = std::move(next);
    }
    return dir;
}

bool same(const NoopRecord::Entry& e) {
    struct stat st;
    if (::stat(e.path.c_str(), &st) != 0) return e.kind == 2 && (errno == ENOENT || errno == ENOTDIR);
    if (e.kind == 2 || (e.kind == 1) != S_ISDIR(st.st_mode)) return false;
    const NoopRecord::Entry now = entry_of(e.path, e.kind, st);
    return now.size == e.size && now.inode == e.inode && now.dev == e.dev && now.mtime_ns == e.mtime_ns &&
           now.ctime_ns == e.ctime_ns && now.mode == e.mode;
}

void prune(int dir) {
    std::vector<std::pair<int64_t, std::string>> found;
    const int64_t stale = coarse_now_ns() - int64_t(3600) * 1000000000;
    const int listed = ::dup(dir);
    if (listed < 0) return;
    if (DIR* d = ::fdopendir(listed)) {
        while (dirent* e = ::readdir(d)) {
            struct stat st;
            if (::fstatat(dir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
            if (e->d_name[0] != '.')
                found.emplace_back(ns_of(st.st_mtim), e->d_name);
            else if (std::string_view(e->d_name).starts_with(".tmp-") && ns_of(st.st_mtim) < stale)
                ::unlinkat(dir, e->d_name, 0); // a killed writer's temporary
        }
        ::closedir(d);
    } else {
        ::close(listed);
    }
    if (found.size() <= kMaxRecords) return;
    std::sort(found.begin(), found.end());
    for (size_t i = 0; i < found.size() / 2; ++i) ::unlinkat(dir, found[i].second.c_str(), 0);
}

} // namespace

int64_t coarse_now_ns() {
    timespec t{};
    ::clock_gettime(CLOCK_REALTIME_COARSE, &t);
    return ns_of(t);
}

std::string noop_key(int argc, const char* const* argv) {
    Hasher h;
    h.field("assetforge-noop-1");
    std::error_code ec;
    h.field(fs::current_path(ec).native());
    for (int i = 0; i < argc; ++i) h.field(argv[i]);
    std::vector<std::string_view> env;
    for (char** e = environ; e && *e; ++e)
        if (!volatile_variable(*e)) env.emplace_back(*e);
    std::sort(env.begin(), env.end());
    h.field("env");
    for (auto v : env) h.field(v);
    const char ttys[3] = {char('0' + ::isatty(0)), char('0' + ::isatty(1)), char('0' + ::isatty(2))};
    h.field(std::string_view(ttys, 3));
    return h.digest().hex();
}

fs::path noop_record_file(const std::string& key) {
    if (const char* off = std::getenv("ASSETFORGE_NOOP_RECORDS"); off && std::string_view(off) == "off") return {};
    fs::path base;
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x == '/')
        base = x;
    else if (const char* home = std::getenv("HOME"); home && *home == '/')
        base = fs::path(home) / ".cache";
    else
        return {};
    return base / "assetforge" / "noop" / key;
}

void forget_noop_record(const fs::path& file) {
    if (!file.empty()) ::unlink(file.c_str());
}

std::string encode_noop_record(const NoopRecord& rec) {
    std::string out(kMagic, sizeof kMagic);
    append_u64(out, rec.actions);
    append_u64(out, rec.quiet);
    append_u64(out, rec.state_dir.native().size());
    out += rec.state_dir.native();
    append_u64(out, rec.env.size());
    for (const auto& [name, value] : rec.env) {
        append_u64(out, name.size());
        out += name;
        append_u64(out, value.size());
        out += value;
    }
    append_u64(out, rec.entries.size());
    std::string_view prev;
    for (const auto& e : rec.entries) {
        size_t shared = 0;
        while (shared < prev.size() && shared < e.path.size() && prev[shared] == e.path[shared]) ++shared;
        append_u64(out, shared);
        append_u64(out, e.path.size() - shared);
        out.append(e.path, shared);
        out.push_back(char(e.kind));
        for (uint64_t v : {e.size, e.inode, e.dev, uint64_t(e.mtime_ns), uint64_t(e.ctime_ns), uint64_t(e.mode)})
            append_u64(out, v);
        prev = e.path;
    }
    return out;
}

bool write_noop_record(const fs::path& file, const NoopFacts& facts, int64_t started_ns, bool trust_racy,
                       std::string* distrust) {
    if (file.empty()) return false;
    // Sorted, each path once: a path shares its folder with the one before, which the file stores once
    // (a 100,000-file tree's record is a few MB, not 17), and the stats walk one folder at a time.
    std::vector<std::pair<std::string, uint8_t>> paths;
    for (const auto& f : facts.files) paths.emplace_back(f, 0);
    for (const auto& d : facts.dirs) paths.emplace_back(d, 1);
    for (const auto& a : facts.absent) paths.emplace_back(a, 2);
    std::sort(paths.begin(), paths.end());
    paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
    NoopRecord rec;
    rec.actions = facts.actions;
    rec.quiet = facts.quiet;
    rec.state_dir = facts.state_dir;
    for (const auto& [name, value] : facts.env)
        rec.env.emplace_back(name, env_fingerprint(value ? value->c_str() : nullptr));
    rec.entries.reserve(paths.size());
    for (const auto& [path, kind] : paths) {
        struct stat st {};
        const bool there = ::stat(path.c_str(), &st) == 0;
        // One path listed as two kinds fails here too: it cannot be both.
        bool ok = there == (kind != 2) && (!there || (kind == 1) == S_ISDIR(st.st_mode));
        rec.entries.push_back(entry_of(path, kind, st));
        ok = ok && (kind == 2 || trust_racy || !racy(rec.entries.back(), started_ns));
        if (!ok) {
            forget_noop_record(file);
            return false;
        }
    }
    const std::string out = encode_noop_record(rec);
    // Written where it would be read, or not at all: a record in a folder others can write would never be
    // believed, and what it tells of the build (paths, the state folder) is not theirs to see.
    std::string why;
    NoopFd dir = open_record_folder(file, true, why);
    if (distrust) *distrust = why;
    if (dir.fd < 0) return false; // no cache folder to write: builds run as before
    // A temporary of our own (O_EXCL, never through a link) renamed over the record: a reader sees the old
    // record or the new one, 0600 whatever the umask. Not synced: losing it costs one ordinary build.
    const std::string name = file.filename().native();
    const std::string temp = ".tmp-" + name.substr(0, 32) + "-" + std::to_string(::getpid());
    ::unlinkat(dir.fd, temp.c_str(), 0); // a killed writer's, with our pid again
    NoopFd f(::openat(dir.fd, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    bool ok = f.fd >= 0 && ::fchmod(f.fd, 0600) == 0;
    for (size_t done = 0; ok && done < out.size();) {
        const ssize_t n = ::write(f.fd, out.data() + done, out.size() - done);
        if (n < 0 && errno == EINTR) continue;
        ok = n > 0;
        done += ok ? size_t(n) : 0;
    }
    ok = ok && ::close(std::exchange(f.fd, -1)) == 0 && ::renameat(dir.fd, temp.c_str(), dir.fd, name.c_str()) == 0;
    if (!ok) {
        ::unlinkat(dir.fd, temp.c_str(), 0);
        return false;
    }
    prune(dir.fd);
    return true;
}

std::optional<NoopRecord> read_noop_record(const fs::path& file, std::string* distrust) {
    if (file.empty()) return std::nullopt;
    std::string why;
    auto refuse = [&](std::string reason) {
        if (distrust) *distrust = std::move(reason);
        return std::nullopt;
    };
    NoopFd dir = open_record_folder(file, false, why);
    if (dir.fd < 0) return refuse(why);
    // O_NONBLOCK: a fifo planted there must not hang the build (it fails the kind check below).
    NoopFd rec(::openat(dir.fd, file.filename().c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (rec.fd < 0) return refuse(errno == ELOOP ? file.native() + " is a link" : "");
    const int fd = rec.fd;
    std::string bytes;
    struct stat st {};
    if (::fstat(fd, &st) != 0) return std::nullopt;
    if (!S_ISREG(st.st_mode)) return refuse(file.native() + " is not a file");
    if (st.st_uid != ::geteuid())
        return refuse(file.native() + " is not the user's own (owner " + std::to_string(st.st_uid) + ")");
    if (st.st_mode & (S_IRWXG | S_IRWXO))
        return refuse(file.native() + " may be read or written by group or others (mode " + mode_octal(st.st_mode) +
                      ")");
    // Another name for the file is another key's record: one written in place, never linked.
    if (st.st_nlink != 1) return refuse(file.native() + " has other names (links)");
    if (st.st_size > 0 && st.st_size < (int64_t(1) << 32)) {
        bytes.resize(size_t(st.st_size));
        size_t got = 0;
        while (got < bytes.size()) {
            const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
            if (n <= 0) break;
            got += size_t(n);
        }
        bytes.resize(got);
    }
    return parse_noop_record(bytes);
}

std::optional<NoopRecord> parse_noop_record(std::string_view bytes) {
    if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) return std::nullopt;
    Reader r{bytes.data() + sizeof kMagic, bytes.data() + bytes.size()};
    NoopRecord rec;
    rec.actions = size_t(r.u64());
    rec.quiet = r.u64() != 0;
    rec.state_dir = r.str();
    const uint64_t vars = r.u64();
    // Two lengths at least each.
    if (!r.ok || vars > uint64_t(r.end - r.p) / 16) return std::nullopt;
    rec.env.resize(size_t(vars));
    for (auto& [name, value] : rec.env) {
        name = r.str();
        value = r.str();
        if (!r.ok || name.empty()) return std::nullopt;
    }
    const uint64_t count = r.u64();
    // Each entry takes at least 65 bytes: a count beyond that is damage, not a reason to allocate.
    if (!r.ok || count > uint64_t(r.end - r.p) / 65) return std::nullopt;
    rec.entries.resize(size_t(count));
    const std::string* prev = nullptr;
    for (auto& e : rec.entries) {
        const uint64_t shared = r.u64();
        if (!r.ok || shared > (prev ? prev->size() : 0)) return std::nullopt;
        e.path.assign(prev ? prev->data() : "", size_t(shared));
        e.path += r.str();
        if (!r.ok || r.p == r.end) return std::nullopt;
        e.kind = uint8_t(*r.p++);
        e.size = r.u64();
        e.inode = r.u64();
        e.dev = r.u64();
        e.mtime_ns = int64_t(r.u64());
        e.ctime_ns = int64_t(r.u64());
        e.mode = uint32_t(r.u64());
        if (!r.ok || e.kind > 2 || e.path.empty() || e.path[0] != '/') return std::nullopt;
        prev = &e.path;
    }
    if (r.p != r.end || rec.state_dir.empty() || rec.state_dir.native()[0] != '/') return std::nullopt;
    return rec;
}

std::string env_fingerprint(const char* value) {
    Hasher h;
    h.field("assetforge-noop-env-1");
    h.field(value ? "set" : "unset");
    h.field(value ? value : "");
    return h.digest().hex();
}

std::string first_difference(const NoopRecord& r) {
    for (const auto& [name, value] : r.env)
        if (env_fingerprint(std::getenv(name.c_str())) != value) return "${env:" + name + "}";
    // Large trees: two threads halve the stats (ninja's one thread takes as many).
    const size_t n = r.entries.size();
    if (n < 1024) {
        for (const auto& e : r.entries)
            if (!same(e)) return e.path;
        return "";
    }
    std::atomic<size_t> bad{n};
    auto scan = [&](size_t from, size_t to) {
        for (size_t i = from; i < to && bad.load(std::memory_order_relaxed) == n; ++i)
            if (!same(r.entries[i])) {
                size_t expected = n;
                bad.compare_exchange_strong(expected, i);
            }
    };
    std::thread other(scan, n / 2, n);
    scan(0, n / 2);
    other.join();
    return bad == n ? "" : r.entries[bad].path;
}

} // namespace af::engine
