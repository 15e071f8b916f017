#include "engine/disk.hpp"

#include "assetforge/atomic_file.hpp"
#include "base/link_guard.hpp"
#include "engine/output_root_guard.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace af::engine {
namespace fs = std::filesystem;

RealDisk::RealDisk(const fs::path& root, fs::path output_root) : output_root_(std::move(output_root)) {
    root_fd_ = ::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (root_fd_ < 0) root_fd_ = AT_FDCWD; // then only absolute paths are stat'ed: see stat()
}

RealDisk::~RealDisk() {
    if (root_fd_ >= 0) ::close(root_fd_);
}

std::optional<FileStat> RealDisk::stat(const std::string& rel, const std::string& abs) const {
    return root_fd_ == AT_FDCWD ? stat_file(abs.c_str()) : stat_file_at(root_fd_, rel.c_str());
}

bool RealDisk::is_regular_file(const std::string& abs) const {
    struct stat lst;
    return ::lstat(abs.c_str(), &lst) == 0 && S_ISREG(lst.st_mode);
}

std::vector<uint8_t> RealDisk::read(const std::string& abs, const std::string& within) const {
    // O_NONBLOCK: a FIFO swapped in does not hang the build; it is refused below.
    const int fd = ::open(abs.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) throw std::runtime_error(abs + ": cannot open: " + std::strerror(errno));
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat st;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) throw std::runtime_error(abs + ": not a regular file");
    if (!within.empty()) {
        const std::string real = base::real_path("/proc/self/fd/" + std::to_string(fd));
        if (real.empty() || !base::real_inside(real, within))
            throw std::runtime_error(base::link_escape_message(abs, real, within));
    }
    std::vector<uint8_t> v(size_t(st.st_size));
    size_t got = 0;
    while (got < v.size()) {
        const ssize_t n = ::read(fd, v.data() + got, v.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw std::runtime_error(abs + ": read failed: " + std::strerror(errno));
        if (n == 0) break;
        got += size_t(n);
    }
    v.resize(got);
    return v;
}

Hash128 RealDisk::hash(const std::string& abs) const { return hash_file(abs); }

void RealDisk::write_atomic(const std::string& abs, std::span<const uint8_t> bytes) {
    sdk::AtomicFile f(fs::path(abs), {.within = output_root_});
    f.write(bytes.data(), bytes.size());
    f.commit();
}

bool RealDisk::remove(const std::string& abs) {
    std::error_code ec;
    return fs::remove(abs, ec);
}

void RealDisk::check_no_link_escape(const std::string& abs, const fs::path& output_root) const {
    af::engine::check_no_link_escape(abs, output_root);
}

std::optional<FileStat> MemoryDisk::stat(const std::string&, const std::string& abs) const {
    std::lock_guard lk(mu_);
    auto it = files_.find(abs);
    if (it == files_.end()) return std::nullopt;
    return it->second.st;
}

bool MemoryDisk::is_regular_file(const std::string& abs) const {
    std::lock_guard lk(mu_);
    return files_.count(abs) != 0;
}

std::vector<uint8_t> MemoryDisk::read(const std::string& abs, const std::string&) const {
    std::lock_guard lk(mu_);
    auto it = files_.find(abs);
    if (it == files_.end()) throw std::runtime_error(abs + ": cannot open");
    return it->second.bytes;
}

Hash128 MemoryDisk::hash(const std::string& abs) const { return hash_bytes(read(abs)); }

void MemoryDisk::write_atomic(const std::string& abs, std::span<const uint8_t> bytes) {
    std::lock_guard lk(mu_);
    File& f = files_[abs];
    f.bytes.assign(bytes.begin(), bytes.end());
    f.st = {uint64_t(bytes.size()), clock_++, next_inode_++}; // a rename: a new inode
    ++writes_;
}

bool MemoryDisk::remove(const std::string& abs) {
    std::lock_guard lk(mu_);
    return files_.erase(abs) != 0;
}

void MemoryDisk::put(const std::string& abs, std::string_view text) {
    write_atomic(abs, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

std::optional<std::string> MemoryDisk::text(const std::string& abs) const {
    std::lock_guard lk(mu_);
    auto it = files_.find(abs);
    if (it == files_.end()) return std::nullopt;
    return std::string(it->second.bytes.begin(), it->second.bytes.end());
}

size_t MemoryDisk::writes() const {
    std::lock_guard lk(mu_);
    return writes_;
}

} // namespace af::engine
