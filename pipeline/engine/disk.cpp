#include "engine/disk.hpp"

#include "core/atomic_file.hpp"
#include "engine/output_root_guard.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <stdexcept>

namespace af::engine {
namespace fs = std::filesystem;

RealDisk::RealDisk(const fs::path& root) {
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

std::vector<uint8_t> RealDisk::read(const std::string& abs) const {
    std::ifstream in(abs, std::ios::binary);
    if (!in) throw std::runtime_error(abs + ": cannot open");
    in.seekg(0, std::ios::end);
    auto n = in.tellg();
    in.seekg(0);
    std::vector<uint8_t> v(n < 0 ? size_t(0) : size_t(n));
    if (!v.empty() && !in.read(reinterpret_cast<char*>(v.data()), std::streamsize(v.size())))
        throw std::runtime_error(abs + ": read failed");
    return v;
}

Hash128 RealDisk::hash(const std::string& abs) const { return hash_file(abs); }

void RealDisk::write_atomic(const std::string& abs, std::span<const uint8_t> bytes) {
    write_file_atomic(fs::path(abs), bytes);
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

std::vector<uint8_t> MemoryDisk::read(const std::string& abs) const {
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
