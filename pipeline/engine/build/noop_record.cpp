#include "engine/build/noop_record.hpp"

#include "assetforge/atomic_file.hpp"
#include "core/content_hash.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <thread>

extern char** environ;

namespace af::engine {
namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'A', 'F', 'N', 'O', 'O', 'P', '1', '\n'};
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

// Variables that differ between shells with nothing to do with a build.
bool volatile_variable(std::string_view kv) {
    for (std::string_view name : {"_=", "OLDPWD=", "SHLVL=", "PWD="})
        if (kv.starts_with(name)) return true;
    return false;
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

bool same(const NoopRecord::Entry& e) {
    struct stat st;
    if (::stat(e.path.c_str(), &st) != 0) return e.kind == 2 && (errno == ENOENT || errno == ENOTDIR);
    if (e.kind == 2 || (e.kind == 1) != S_ISDIR(st.st_mode)) return false;
    const NoopRecord::Entry now = entry_of(e.path, e.kind, st);
    return now.size == e.size && now.inode == e.inode && now.dev == e.dev && now.mtime_ns == e.mtime_ns &&
           now.ctime_ns == e.ctime_ns && now.mode == e.mode;
}

void prune(const fs::path& dir) {
    std::vector<std::pair<int64_t, std::string>> found;
    if (DIR* d = ::opendir(dir.c_str())) {
        while (dirent* e = ::readdir(d)) {
            struct stat st;
            if (e->d_name[0] != '.' && ::fstatat(dirfd(d), e->d_name, &st, 0) == 0)
                found.emplace_back(ns_of(st.st_mtim), e->d_name);
        }
        ::closedir(d);
    }
    if (found.size() <= kMaxRecords) return;
    std::sort(found.begin(), found.end());
    for (size_t i = 0; i < found.size() / 2; ++i) ::unlink((dir / found[i].second).c_str());
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

bool write_noop_record(const fs::path& file, const NoopFacts& facts, int64_t started_ns, bool trust_racy) {
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
    // The name hashes the environment, which may hold secrets: the folder is the user's alone.
    std::error_code ec;
    fs::create_directories(file.parent_path().parent_path(), ec);
    ::mkdir(file.parent_path().c_str(), 0700);
    try {
        sdk::AtomicFileOptions o;
        o.durable = false; // losing it costs one ordinary build
        sdk::AtomicFile f(file, o);
        f.write(reinterpret_cast<const uint8_t*>(out.data()), out.size());
        f.commit();
    } catch (const std::exception&) {
        return false; // no cache folder to write: builds run as before
    }
    prune(file.parent_path());
    return true;
}

std::optional<NoopRecord> read_noop_record(const fs::path& file) {
    if (file.empty()) return std::nullopt;
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    std::string bytes;
    struct stat st {};
    if (::fstat(fd, &st) == 0 && st.st_size > 0 && st.st_size < (int64_t(1) << 32)) {
        bytes.resize(size_t(st.st_size));
        size_t got = 0;
        while (got < bytes.size()) {
            const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
            if (n <= 0) break;
            got += size_t(n);
        }
        bytes.resize(got);
    }
    ::close(fd);
    return parse_noop_record(bytes);
}

std::optional<NoopRecord> parse_noop_record(std::string_view bytes) {
    if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) return std::nullopt;
    Reader r{bytes.data() + sizeof kMagic, bytes.data() + bytes.size()};
    NoopRecord rec;
    rec.actions = size_t(r.u64());
    rec.quiet = r.u64() != 0;
    rec.state_dir = r.str();
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

std::string first_difference(const NoopRecord& r) {
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
