#include "host/isolation/sealed_library.hpp"

#include "host/isolation/plugin_description.hpp"
#include "host/isolation/worker_pool.hpp"
#include "host/plugin_registry.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <span>

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U // Linux 6.3: executable even where vm.memfd_noexec makes memory files non-executable
#endif

namespace af::host::isolation {
namespace {

// How long a worker may take to load and describe a plugin: what the worker's hello already waits.
constexpr double kDescribeSeconds = 30;

// Named after the library ("/memfd:af_dds.so" in /proc/PID/maps, a debugger's and a sanitizer's stack traces), as
// the loader knows it only by its descriptor.
int exec_memfd(const std::filesystem::path& file) {
    const std::string name = file.filename().string().substr(0, 200);
    const int fd = ::memfd_create(name.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);
    if (fd >= 0 || errno != EINVAL) return fd;
    return ::memfd_create(name.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING); // a kernel before 6.3
}

} // namespace

bool seal_library(const std::filesystem::path& file, int& fd, Hash128& hash, std::string& why) {
    fd = -1;
    const int in = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st {};
    if (in < 0 || ::fstat(in, &st) != 0) {
        why = std::string("cannot open: ") + std::strerror(errno);
        if (in >= 0) ::close(in);
        return false;
    }
    const int out = exec_memfd(file);
    bool ok = out >= 0 && ::ftruncate(out, st.st_size) == 0;
    void* map = MAP_FAILED;
    if (ok && st.st_size) {
        map = ::mmap(nullptr, size_t(st.st_size), PROT_READ | PROT_WRITE, MAP_SHARED, out, 0);
        ok = map != MAP_FAILED;
    }
    // Read, not mapped, from the library: a file cut short under a mapping is SIGBUS, and the size may change.
    size_t got = 0;
    while (ok && got < size_t(st.st_size)) {
        const ssize_t n = ::pread(in, static_cast<char*>(map) + got, size_t(st.st_size) - got, off_t(got));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) ok = false;
        got += n > 0 ? size_t(n) : 0;
    }
    const int err = errno;
    ::close(in);
    if (ok) hash = hash_bytes(std::span(static_cast<const uint8_t*>(map), got));
    if (map != MAP_FAILED) ::munmap(map, size_t(st.st_size));
    // Sealed once no mapping can write it any more: from here, the bytes hashed are the bytes every worker loads.
    if (ok && ::fcntl(out, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) ok = false;
    if (!ok) {
        why = std::string("cannot copy the library for its workers: ") + std::strerror(errno ? errno : err);
        if (out >= 0) ::close(out);
        return false;
    }
    fd = out;
    return true;
}

bool describe_sealed(const std::filesystem::path& file, int image_fd, LoadedPlugin& out, std::string& why) {
    CallOutcome o = call_once(file, image_fd, Op::Describe, {}, kDescribeSeconds, out.confinement);
    if (!o.ok) {
        why = o.failure;
        return false;
    }
    return description_reply(o.reply, out, why);
}

} // namespace af::host::isolation
