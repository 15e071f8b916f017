// Files that appear complete or not at all (POSIX, header-only): data goes to
// a temporary file in the target's directory, is flushed, and is renamed over
// the target on commit(); without commit() the temporary is removed. For
// plugin commands that write files themselves (containers and stages never
// do: they hand bytes to an af_sink or emit items, and the host writes).
//
// A header rather than a host service: a command streams files of any size
// (gigabytes of repacked pages) and needs nothing from the host to do it.
// The host's own outputs use this same class, so a temporary a crash leaves
// behind has the prefix the engine recognises (kTempPrefix).
#pragma once

#include "assetforge/error.hpp"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <random>
#include <span>
#include <string>
#include <unistd.h>

namespace af::sdk {

// Prefix of temporaries, so cleanup and the engine can recognise them.
inline constexpr const char* kTempPrefix = ".af-tmp-";

// How an AtomicFile may reach its folder.
struct AtomicFileOptions {
    // Flush to disk before the rename (off for throwaway files: report pictures).
    bool durable = true;
    // Non-empty: the folder, as resolved once it is open, must lie inside
    // this one (itself resolved): a link on the way that leads elsewhere
    // fails the write instead of writing there.
    std::filesystem::path within;
    // Do not create missing folders (the caller made the one it wants).
    bool create_folders = true;
};

class AtomicFile {
    // Closed however the constructor ends.
    struct Fd {
        int fd = -1;
        Fd() = default;
        Fd(const Fd&) = delete;
        Fd& operator=(const Fd&) = delete;
        ~Fd() {
            if (fd >= 0) ::close(fd);
        }
    };

  public:
    explicit AtomicFile(std::filesystem::path target, const AtomicFileOptions& opt = {})
        : target_(std::move(target)), durable_(opt.durable) {
        auto dir = target_.parent_path();
        if (!dir.empty() && opt.create_folders) {
            std::error_code ec;
            std::filesystem::create_directories(dir, ec);
            if (ec) fail(AF_ERR_IO, AF_NO_OFFSET, dir.string() + ": cannot create directory: " + ec.message());
        }
        // Everything below happens relative to the folder opened once: a
        // link swapped in on the way afterwards changes nothing, the
        // temporary and the rename stay in the folder that was checked, and
        // O_EXCL|O_NOFOLLOW never opens whatever a planted name points at.
        const std::filesystem::path d = dir.empty() ? std::filesystem::path(".") : dir;
        dir_.fd = ::open(d.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dir_.fd < 0) io_fail(d, "cannot open folder");
        if (!opt.within.empty()) check_within(d, opt.within);
        name_ = target_.filename().native();
        // The temporary's name has a fixed length (prefix and 16 random hex
        // digits, 24 bytes) rather than growing with the target's, so it fits
        // wherever the target's name fits. O_EXCL makes it ours alone.
        static thread_local std::mt19937_64 rng{std::random_device{}() ^ uint64_t(getpid())};
        for (int attempt = 0; attempt < 16 && fd_ < 0; ++attempt) {
            char name[32];
            snprintf(name, sizeof name, "%s%016llx", kTempPrefix, (unsigned long long)rng());
            temp_name_ = name;
            temp_ = d / name;
            fd_ = ::openat(dir_.fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
            if (fd_ < 0 && errno != EEXIST) io_fail(temp_, "cannot create temporary file");
        }
        if (fd_ < 0) io_fail(temp_, "cannot create temporary file");
    }
    ~AtomicFile() {
        if (fd_ >= 0) {
            ::close(fd_);
            ::unlinkat(dir_.fd, temp_name_.c_str(), 0);
        }
    }
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    void write(const void* data, uint64_t size) {
        const char* p = static_cast<const char*>(data);
        while (size) {
            ssize_t n = ::write(fd_, p, size > (1u << 30) ? (1u << 30) : size);
            if (n < 0) {
                if (errno == EINTR) continue;
                io_fail(temp_, "write failed");
            }
            p += n;
            size -= uint64_t(n);
        }
    }

    void commit() {
        // fsync before rename: after a crash the name either points at the old
        // file or at complete new contents, never at a hole.
        if (durable_ && ::fsync(fd_) != 0) io_fail(temp_, "fsync failed");
        if (::close(fd_) != 0) {
            fd_ = -1;
            ::unlinkat(dir_.fd, temp_name_.c_str(), 0);
            io_fail(temp_, "close failed");
        }
        fd_ = -1;
        // A link at the target's name is replaced, never followed.
        if (::renameat(dir_.fd, temp_name_.c_str(), dir_.fd, name_.c_str()) != 0) {
            int e = errno;
            ::unlinkat(dir_.fd, temp_name_.c_str(), 0);
            errno = e;
            io_fail(target_, "rename failed");
        }
    }

    const std::filesystem::path& target() const { return target_; }

  private:
    [[noreturn]] static void io_fail(const std::filesystem::path& p, const char* what) {
        fail(AF_ERR_IO, AF_NO_OFFSET, p.string() + ": " + what + ": " + strerror(errno));
    }

    // The open folder's real path (what the kernel resolved) against `within`'s.
    void check_within(const std::filesystem::path& d, const std::filesystem::path& within) {
        std::error_code ec;
        const auto real = std::filesystem::read_symlink("/proc/self/fd/" + std::to_string(dir_.fd), ec);
        const auto root = std::filesystem::canonical(within, ec);
        bool inside = false;
        if (!real.empty() && !root.empty()) {
            const std::string r = real.native(), w = root.native();
            inside =
                r == w || w == "/" || (r.size() > w.size() && r.compare(0, w.size(), w) == 0 && r[w.size()] == '/');
        }
        if (!inside)
            fail(AF_ERR_IO, AF_NO_OFFSET,
                 d.string() + ": resolves to '" + real.string() + "', outside '" + within.string() +
                     "' (a symbolic link on the way?); not written");
    }

    std::filesystem::path target_, temp_;
    std::string name_, temp_name_;
    Fd dir_;
    int fd_ = -1;
    bool durable_ = true;
};

inline void write_file_atomic(const std::filesystem::path& path, std::span<const uint8_t> data) {
    AtomicFile f(path);
    f.write(data.data(), data.size());
    f.commit();
}

inline void write_file_atomic(const std::filesystem::path& path, const std::string& text) {
    write_file_atomic(path, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

} // namespace af::sdk
