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

class AtomicFile {
  public:
    explicit AtomicFile(std::filesystem::path target) : target_(std::move(target)) {
        auto dir = target_.parent_path();
        if (!dir.empty()) {
            std::error_code ec;
            std::filesystem::create_directories(dir, ec);
            if (ec) fail(AF_ERR_IO, AF_NO_OFFSET, dir.string() + ": cannot create directory: " + ec.message());
        }
        // The temporary's name has a fixed length (prefix and 16 random hex
        // digits, 24 bytes) rather than growing with the target's, so it fits
        // wherever the target's name fits. O_EXCL makes it ours alone.
        static thread_local std::mt19937_64 rng{std::random_device{}() ^ uint64_t(getpid())};
        for (int attempt = 0; attempt < 16 && fd_ < 0; ++attempt) {
            char name[32];
            snprintf(name, sizeof name, "%s%016llx", kTempPrefix, (unsigned long long)rng());
            temp_ = (dir.empty() ? std::filesystem::path(".") : dir) / name;
            fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
            if (fd_ < 0 && errno != EEXIST) io_fail(temp_, "cannot create temporary file");
        }
        if (fd_ < 0) io_fail(temp_, "cannot create temporary file");
    }
    ~AtomicFile() {
        if (fd_ >= 0) {
            ::close(fd_);
            ::unlink(temp_.c_str());
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
        if (::fsync(fd_) != 0) io_fail(temp_, "fsync failed");
        if (::close(fd_) != 0) {
            fd_ = -1;
            ::unlink(temp_.c_str());
            io_fail(temp_, "close failed");
        }
        fd_ = -1;
        if (::rename(temp_.c_str(), target_.c_str()) != 0) {
            int e = errno;
            ::unlink(temp_.c_str());
            errno = e;
            io_fail(target_, "rename failed");
        }
    }

    const std::filesystem::path& target() const { return target_; }

  private:
    [[noreturn]] static void io_fail(const std::filesystem::path& p, const char* what) {
        fail(AF_ERR_IO, AF_NO_OFFSET, p.string() + ": " + what + ": " + strerror(errno));
    }

    std::filesystem::path target_, temp_;
    int fd_ = -1;
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
