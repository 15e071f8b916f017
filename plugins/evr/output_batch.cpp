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
constexpr size_t kOpenFolders = 128;

[[noreturn]] void io_fail_errno(const fs::path& p, const char* what) { sdk::io_fail(p.string(), what, errno); }

void write_all(int fd, const fs::path& p, std::span<const uint8_t> b) {
    const uint8_t* q = b.data();
    uint64_t n = b.size();
    while (n) {
        const ssize_t w = ::write(fd, q, n > (1u << 30) ? (1u << 30) : n);
        if (w < 0) {
            if (errno == EINTR) continue;
            io_fail_errno(p, "write failed");
        }
        q += w;
        n -= uint64_t(w);
    }
}

bool inside(const std::string& r, const std::string& w) {
    return r == w || w == "/" || (r.size() > w.size() && r.compare(0, w.size(), w) == 0 && r[w.size()] == '/');
}

} // namespace

OutputBatch::OutputBatch(fs::path within) : within_(std::move(within)) {}

OutputBatch::~OutputBatch() {
    for (const auto& p : pending_) {
        const int dfd = ::open(p.dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0) continue;
        ::unlinkat(dfd, p.temp.c_str(), 0); // a random name of ours: harmless wherever the folder leads now
        ::close(dfd);
    }
    close_folders();
}

void OutputBatch::close_folders() {
    for (const auto& [path, fd] : folders_) ::close(fd);
    folders_.clear();
}

int OutputBatch::folder(const fs::path& dir) {
    if (auto it = folders_.find(dir); it != folders_.end()) return it->second;
    // A bounded number stay open: `extract --groups` writes into thousands of folders.
    if (folders_.size() >= kOpenFolders) close_folders();
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) io_fail_errno(dir, "cannot open output folder");
    folders_.emplace(dir, fd);
    if (!within_.empty()) {
        // Resolved on first use: the caller creates the folder after making the batch.
        if (within_real_.empty()) {
            std::error_code ec;
            within_real_ = fs::canonical(within_, ec);
            if (ec)
                sdk::fail(AF_ERR_IO, AF_NO_OFFSET,
                          within_.string() + ": cannot resolve the output folder: " + ec.message());
        }
        // What the kernel resolved for the open folder: a link swapped in
        // later changes nothing, the temporaries and renames use this fd.
        std::error_code ec;
        const fs::path real = fs::read_symlink("/proc/self/fd/" + std::to_string(fd), ec);
        if (ec || !inside(real.native(), within_real_.native())) {
            folders_.erase(dir); // never handed out unchecked later
            ::close(fd);
            sdk::fail(AF_ERR_IO, AF_NO_OFFSET,
                      dir.string() + ": resolves to '" + real.string() + "', outside the output folder '" +
                          within_real_.string() + "' (a symbolic link inside it?); nothing is written through one");
        }
    }
    return fd;
}

void OutputBatch::add(const fs::path& target, std::span<const uint8_t> head, std::span<const uint8_t> body) {
    add(target, {head, body});
}

void OutputBatch::add(const fs::path& target, const std::vector<std::span<const uint8_t>>& pieces) {
    // The SDK's temporary prefix, so the engine and cleanup recognise leftovers.
    static thread_local std::mt19937_64 rng{std::random_device{}() ^ uint64_t(getpid())};
    const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
    std::string temp;
    int fd = -1;
    {
        // Under the lock: another thread may close the folder's descriptor.
        std::lock_guard lock(mutex_);
        const int dfd = folder(dir);
        for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
            char name[32];
            snprintf(name, sizeof name, "%s%016llx", sdk::kTempPrefix, (unsigned long long)rng());
            temp = name;
            fd = ::openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
            if (fd < 0 && errno != EEXIST) io_fail_errno(dir / temp, "cannot create temporary file");
        }
        if (fd < 0) io_fail_errno(dir / temp, "cannot create temporary file");
        pending_.push_back({dir, temp, target.filename().native()}); // from here the destructor removes it
    }
    uint64_t written = 0;
    try {
        for (const auto& piece : pieces) {
            write_all(fd, dir / temp, piece);
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
    if (::close(fd) != 0) io_fail_errno(dir / temp, "close failed");
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
    for (const auto& p : pending_) dirs.insert(p.dir);
    std::vector<dev_t> synced;
    for (const fs::path& dir : dirs) {
        struct stat st {};
        if (::stat(dir.c_str(), &st) != 0) io_fail_errno(dir, "cannot stat output folder");
        if (std::find(synced.begin(), synced.end(), st.st_dev) != synced.end()) continue;
        if (::syncfs(folder(dir)) != 0) io_fail_errno(dir, "syncfs failed");
        synced.push_back(st.st_dev);
    }
    for (size_t i = 0; i < pending_.size(); ++i) {
        // In the folder as checked (again, if its descriptor was closed meanwhile):
        // a link at the target's name is replaced, never followed.
        const Pending& p = pending_[i];
        const int dfd = folder(p.dir);
        if (::renameat(dfd, p.temp.c_str(), dfd, p.name.c_str()) != 0) {
            const int e = errno;
            const fs::path target = p.dir / p.name;
            pending_.erase(pending_.begin(), pending_.begin() + long(i)); // renamed ones are no longer ours
            errno = e;
            io_fail_errno(target, "rename failed");
        }
    }
    pending_.clear();
    close_folders();
}

} // namespace af::evr
