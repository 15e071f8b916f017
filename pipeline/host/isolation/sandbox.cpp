#include "host/isolation/sandbox.hpp"

#include <sched.h>
#include <seccomp.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace af::host::isolation {

namespace {
// The first argument compared with `op`: SCMP_A0 leaves the second datum to zero-filling, which clang's -Wextra
// reports as a missing initializer.
constexpr scmp_arg_cmp first_arg(scmp_compare op, uint64_t a, uint64_t b = 0) { return {0, op, a, b}; }
} // namespace

bool limit_heap(uint64_t bytes, std::string& why) {
    uint64_t data_kib = 0;
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("VmData:", 0) == 0) std::istringstream(line.substr(7)) >> data_kib;
    rlimit r{};
    r.rlim_cur = r.rlim_max = rlim_t(data_kib * 1024 + bytes);
    if (::setrlimit(RLIMIT_DATA, &r) != 0) {
        why = std::string("setrlimit: ") + std::strerror(errno);
        return false;
    }
    return true;
}

// System calls a worker may not make; each fails with EACCES.
// clang-format off
const char* const kDenied[] = {
    "open", "openat", "openat2", "creat", "open_by_handle_at", "name_to_handle_at",              // files
    "socket", "socketpair", "connect", "bind", "listen", "accept", "accept4",                    // network
    "execve", "execveat", "fork", "vfork", "ptrace", "process_vm_readv", "process_vm_writev",    // processes
    "unlink", "unlinkat", "rename", "renameat", "renameat2", "mkdir", "mkdirat", "rmdir",        // file system
    "link", "linkat", "symlink", "symlinkat", "chmod", "fchmodat", "chown", "lchown", "fchownat",
    "truncate", "mknod", "mknodat", "utimes", "utimensat",
    "mount", "umount2", "chroot", "pivot_root", "unshare", "setns",                              // the system
    "init_module", "finit_module", "bpf", "perf_event_open", "io_uring_setup"};
// clang-format on

bool enter_sandbox(std::string& why) {
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx) {
        why = "seccomp_init failed";
        return false;
    }
    int rc = 0;
    for (const char* name : kDenied) {
        const int nr = seccomp_syscall_resolve_name(name);
        if (nr == __NR_SCMP_ERROR) continue; // not on this architecture
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), nr, 0);
    }
    // Threads (CLONE_THREAD) only: glibc's fork is a clone without it. clone3
    // hides its flags in memory, so it reports ENOSYS and glibc falls back to clone.
    rc |=
        seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(clone), 1, first_arg(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    // Signals to itself only (abort raises SIGABRT).
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(kill), 1, first_arg(SCMP_CMP_NE, uint64_t(::getpid())));
    if (rc != 0) {
        seccomp_release(ctx);
        why = "seccomp_rule_add failed";
        return false;
    }
    rc = seccomp_load(ctx);
    seccomp_release(ctx);
    if (rc != 0) {
        why = std::string("seccomp_load: ") + std::strerror(-rc);
        return false;
    }
    return true;
}

} // namespace af::host::isolation
