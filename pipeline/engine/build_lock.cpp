#include "engine/build_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace af::engine {
namespace fs = std::filesystem;

namespace {

std::string holder(int fd) {
    char buf[32] = {};
    ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    std::string s(buf, n > 0 ? size_t(n) : 0);
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s.empty() ? "another process" : "process " + s;
}

} // namespace

BuildLock::BuildLock(const fs::path& state_dir, const std::function<void(const std::string&)>& waiting,
                     const std::function<bool()>& cancelled) {
    std::error_code ec;
    fs::create_directories(state_dir, ec);
    // Said as it is: the lock's "No such file or directory" would hide a read-only or missing project folder.
    if (ec)
        throw std::runtime_error(state_dir.string() + ": cannot create the build's state folder: " + ec.message() +
                                 " (--state-dir puts it elsewhere)");
    const fs::path file = state_dir / "lock";
    // flock, not fcntl locks: released by the kernel when the holder dies,
    // however it dies, and not shared between threads of one process.
    fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd_ < 0) throw std::runtime_error(file.string() + ": cannot open the build lock: " + std::strerror(errno));
    bool told = false;
    while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK && errno != EINTR) {
            int e = errno;
            ::close(fd_);
            fd_ = -1;
            throw std::runtime_error(file.string() + ": cannot take the build lock: " + std::strerror(e));
        }
        if (!told && waiting) {
            waiting("waiting for the build in " + holder(fd_) + " to finish (it holds " + file.string() + ")");
            told = true;
        }
        if (cancelled && cancelled()) {
            ::close(fd_);
            fd_ = -1;
            throw Cancelled{};
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    std::string pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(fd_, 0) == 0) {
        [[maybe_unused]] ssize_t n = ::pwrite(fd_, pid.data(), pid.size(), 0);
    }
}

BuildLock::~BuildLock() {
    if (fd_ >= 0) ::close(fd_); // releases the flock
}

} // namespace af::engine
