#include "output_batch.hpp"

#include "assetforge/atomic_file.hpp"
#include "assetforge/error.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <random>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace af::evr {

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kEarlyWritebackBytes = 64 << 10;

[[noreturn]] void io_fail(const fs::path& p, const char* what) {
    sdk::fail(AF_ERR_IO, AF_NO_OFFSET, p.string() + ": " + what + ": " + strerror(errno));
}

void write_all(int fd, const fs::path& p, std::span<const uint8_t> b) {
    const uint8_t* q = b.data();
    uint64_t n = b.size();
    while (n) {
        const ssize_t w = ::write(fd, q, n > (1u << 30) ? (1u << 30) : n);
        if (w < 0) {
            if (errno == EINTR) continue;
            io_fail(p, "write failed");
        }
        q += w;
        n -= uint64_t(w);
    }
}

} // namespace

OutputBatch::~OutputBatch() {
    for (const auto& [temp, target] : pending_) ::unlink(temp.c_str());
}

void OutputBatch::add(const fs::path& target, std::span<const uint8_t> head, std::span<const uint8_t> body) {
    add(target, {head, body});
}

void OutputBatch::add(const fs::path& target, const std::vector<std::span<const uint8_t>>& pieces) {
    // The SDK's temporary prefix, so the engine and cleanup recognise leftovers.
    static thread_local std::mt19937_64 rng{std::random_device{}() ^ uint64_t(getpid())};
    const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
    fs::path temp;
    int fd = -1;
    for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
        char name[32];
        snprintf(name, sizeof name, "%s%016llx", sdk::kTempPrefix, (unsigned long long)rng());
        temp = dir / name;
        fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST) io_fail(temp, "cannot create temporary file");
    }
    if (fd < 0) io_fail(temp, "cannot create temporary file");
    {
        std::lock_guard lock(mutex_);
        pending_.emplace_back(temp, target); // from here the destructor removes it on failure
    }
    uint64_t written = 0;
    try {
        for (const auto& piece : pieces) {
            write_all(fd, temp, piece);
            written += piece.size();
        }
    } catch (...) {
        ::close(fd);
        throw;
    }
    // Start writing a large file to disk now, without waiting: the disk then
    // works while later frames decode, and commit()'s syncfs finds less left to
    // do. Only a hint; the syncfs still makes every output durable (and reports
    // errors). Small files are left to the batch: a disk write of its own for
    // each of hundreds of thousands of tiny files is not worth starting early.
    if (written >= kEarlyWritebackBytes) ::sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
    if (::close(fd) != 0) io_fail(temp, "close failed");
}

void OutputBatch::commit() {
    std::lock_guard lock(mutex_);
    if (pending_.empty()) return;
    // syncfs flushes the whole file system holding the outputs in one call.
    // Outputs under one --out folder share it (a mount point inside it would
    // not be flushed by this call, hence one call per distinct device below).
    // A file is on its folder's file system, so the folders are examined, not
    // every temporary: one stat per folder instead of one per output file.
    std::set<fs::path> dirs;
    for (const auto& [temp, target] : pending_) dirs.insert(temp.parent_path());
    std::vector<dev_t> synced;
    for (const fs::path& dir : dirs) {
        struct stat st {};
        if (::stat(dir.c_str(), &st) != 0) io_fail(dir, "cannot stat output folder");
        if (std::find(synced.begin(), synced.end(), st.st_dev) != synced.end()) continue;
        const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) io_fail(dir, "cannot open output folder");
        const int rc = ::syncfs(fd);
        ::close(fd);
        if (rc != 0) io_fail(dir, "syncfs failed");
        synced.push_back(st.st_dev);
    }
    for (size_t i = 0; i < pending_.size(); ++i) {
        if (::rename(pending_[i].first.c_str(), pending_[i].second.c_str()) != 0) {
            const int e = errno;
            const fs::path target = pending_[i].second;
            pending_.erase(pending_.begin(), pending_.begin() + long(i)); // renamed ones are no longer ours
            errno = e;
            io_fail(target, "rename failed");
        }
    }
    pending_.clear();
}

} // namespace af::evr
