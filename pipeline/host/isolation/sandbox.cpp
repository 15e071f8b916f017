#include "host/isolation/sandbox.hpp"

#include "host/isolation/isolation.hpp"

#include <fcntl.h>
#include <malloc.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <sstream>
#include <thread>

namespace af::host::isolation {

bool limit_heap(uint64_t bytes, int status_fd, std::string& why) {
    // Read through a descriptor opened before the sandbox: once sealed, the worker opens nothing.
    std::string text;
    char buf[4096];
    for (ssize_t n; (n = ::pread(status_fd, buf, sizeof buf, off_t(text.size()))) > 0;) text.append(buf, size_t(n));
    uint64_t data_kib = 0, size_kib = 0;
    std::istringstream status(text);
    for (std::string line; std::getline(status, line);) {
        if (line.rfind("VmData:", 0) == 0) std::istringstream(line.substr(7)) >> data_kib;
        if (line.rfind("VmSize:", 0) == 0) std::istringstream(line.substr(7)) >> size_kib;
    }
    if (!data_kib || !size_kib) {
        why = "cannot read the worker's own memory use (/proc/self/status)";
        return false;
    }
    auto limit = [&](int resource, uint64_t value, const char* name) {
        const rlimit r{rlim_t(value), rlim_t(value)};
        if (::setrlimit(resource, &r) == 0) return true;
        why = std::string("setrlimit(") + name + "): " + std::strerror(errno);
        return false;
    };
    if (!limit(RLIMIT_DATA, data_kib * 1024 + bytes, "RLIMIT_DATA")) return false;
    // RLIMIT_DATA leaves out shared memory: a memory file mapped, or an anonymous shared mapping. The address
    // space counts every mapping: what is mapped now, the budget, and room for what threads reserve (a stack
    // each; one malloc arena for all, below, instead of 64 MiB of address space per thread).
    ::mallopt(M_ARENA_MAX, 1);
    if (!kSanitizerBuild) { // a sanitizer's shadow and allocator reserve terabytes as they go
        const uint64_t threads = std::max(1u, std::thread::hardware_concurrency());
        const uint64_t room = (uint64_t(256) << 20) + threads * (uint64_t(16) << 20);
        if (!limit(RLIMIT_AS, size_kib * 1024 + bytes + room, "RLIMIT_AS")) return false;
    }
    // A memory file written without being mapped is in no address space: no single file may outgrow the budget
    // (EFBIG, not the SIGXFSZ that would end the worker), and no worker may hold more than kWorkerFiles of them.
    // So such memory is bounded at kWorkerFiles times the budget, not at the budget; the descriptor limit it
    // inherits can be a million (root in a container). A worker opens nothing, blocks of 48 KiB or less are heap
    // memory, and a message hands over at most kMaxFds: kWorkerFiles is far more than a plugin's calls hold.
    ::signal(SIGXFSZ, SIG_IGN);
    rlimit files{};
    if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur > kWorkerFiles &&
        !limit(RLIMIT_NOFILE, kWorkerFiles, "RLIMIT_NOFILE"))
        return false;
    return limit(RLIMIT_FSIZE, bytes, "RLIMIT_FSIZE");
}

namespace {

// What a worker may do once it serves calls: compute on the descriptors it was handed and the memory it maps.
// Everything else fails with EACCES (a plugin sees an ordinary error, as from a read-only file system), so what
// the kernel adds later is refused too: a list of what to deny (the first version) missed tgkill, pidfd_getfd,
// ioctl(TIOCSTI), prlimit on the host, utime, open_tree and more. The list follows what glibc, libstdc++, the
// sanitizers' runtimes and OpenMP (libimagequant) call while computing; Chromium's baseline policy keeps the same
// families. Calls with arguments that reach beyond the worker are allowed only for the worker itself (below).
// clang-format off
const char* const kAllowed[] = {
    "read", "readv", "pread64", "preadv", "preadv2", "write", "writev", "pwrite64", "pwritev", "pwritev2",  // I/O
    "lseek", "close", "close_range", "dup", "dup3", "fstat", "ftruncate", "fallocate", "fsync", "fdatasync",
    "recvmsg", "sendmsg", "recvfrom", "sendto", "poll", "ppoll",                                // the host's socket
    "pipe", "pipe2", // a pipe within the worker: the sanitizers test whether memory is readable through one
    "mmap", "munmap", "mremap", "mprotect", "madvise", "brk", "msync", "mincore", "memfd_create", "membarrier",
    "futex", "set_robust_list", "get_robust_list", "rseq", "set_tid_address", "sched_yield",     // threads
    "sched_getaffinity", "sched_getparam", "sched_getscheduler", "getcpu",
    "exit", "exit_group", "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigsuspend", "sigaltstack",
    "restart_syscall", "pause",
    "gettid", "getpid", "getuid", "geteuid", "getgid", "getegid", "getrusage", "getrlimit", "uname",
    "clock_gettime", "clock_getres", "clock_nanosleep", "nanosleep", "gettimeofday", "time", "getrandom"};
// clang-format on

int allow(scmp_filter_ctx ctx, int nr, std::initializer_list<scmp_arg_cmp> args = {}) {
    return seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, nr, unsigned(args.size()), args.begin());
}

// One argument compared with `op` (SCMP_A0… leave the second datum to zero-filling, which clang's -Wextra reports).
constexpr scmp_arg_cmp arg(unsigned index, scmp_compare op, uint64_t a, uint64_t b = 0) { return {index, op, a, b}; }

// Loads the filter built in ctx (rc: the rules' added results, or-ed) and releases it.
bool load(scmp_filter_ctx ctx, int rc, std::string& why) {
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

} // namespace

bool enter_sandbox(bool load_phase, std::string& why) {
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EACCES));
    if (!ctx) {
        why = "seccomp_init failed";
        return false;
    }
    int rc = 0;
    for (const char* name : kAllowed) {
        const int nr = seccomp_syscall_resolve_name(name);
        if (nr == __NR_SCMP_ERROR) continue; // not on this architecture
        rc |= allow(ctx, nr);
    }
    const uint64_t self = uint64_t(::getpid());
    // Threads (CLONE_THREAD) only: glibc's fork is a clone without it. clone3 hides its flags in memory, so it
    // reports ENOSYS and glibc falls back to clone.
    rc |= allow(ctx, SCMP_SYS(clone), {arg(0, SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD)});
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    // Signals to itself only (abort raises SIGABRT with tgkill); kill and tgkill name the process, tkill does not.
    rc |= allow(ctx, SCMP_SYS(kill), {arg(0, SCMP_CMP_EQ, self)});
    rc |= allow(ctx, SCMP_SYS(tgkill), {arg(0, SCMP_CMP_EQ, self)});
    // Its own limits (getrlimit is prlimit64(0, resource, NULL, old) in glibc): read only once sealed; while the
    // plugin loads, set too, since the memory limits are measured after loading (limit_heap). Lowering a limit is
    // all a process may do to its own without privileges, and the sealing filter takes even that away.
    if (load_phase)
        rc |= allow(ctx, SCMP_SYS(prlimit64), {arg(0, SCMP_CMP_EQ, 0)});
    else
        rc |= allow(ctx, SCMP_SYS(prlimit64), {arg(0, SCMP_CMP_EQ, 0), arg(2, SCMP_CMP_EQ, 0)});
    // glibc's fstat is fstatat(fd, "", AT_EMPTY_PATH). The flag does not keep a path from being looked up, so a
    // plugin can learn a file's size and times by name (never its bytes): said in docs/plugin-isolation.md.
    rc |= allow(ctx, SCMP_SYS(newfstatat), {arg(3, SCMP_CMP_MASKED_EQ, AT_EMPTY_PATH, AT_EMPTY_PATH)});
    rc |= allow(ctx, SCMP_SYS(statx), {arg(2, SCMP_CMP_MASKED_EQ, AT_EMPTY_PATH, AT_EMPTY_PATH)});
    // fcntl for descriptor flags and the memory files' seals; F_SETOWN and leases could reach other processes.
    for (const int cmd : {F_GETFD, F_SETFD, F_GETFL, F_SETFL, F_ADD_SEALS, F_GET_SEALS, F_DUPFD_CLOEXEC})
        rc |= allow(ctx, SCMP_SYS(fcntl), {arg(1, SCMP_CMP_EQ, uint64_t(cmd))});
    // A thread's name (pthread_setname_np on itself, libgomp).
    for (const int op : {PR_SET_NAME, PR_GET_NAME})
        rc |= allow(ctx, SCMP_SYS(prctl), {arg(0, SCMP_CMP_EQ, uint64_t(op))});
    // The dynamic loader opens the library and its dependencies, read only; Landlock (confinement.cpp) has by
    // then narrowed what opens to the system's library folders. seal_after_load() takes opening away again.
    if (load_phase) {
        constexpr uint64_t kMode = O_ACCMODE | O_CREAT | O_TRUNC;
        rc |= allow(ctx, SCMP_SYS(openat), {arg(2, SCMP_CMP_MASKED_EQ, kMode, O_RDONLY)});
        rc |= allow(ctx, SCMP_SYS(open), {arg(1, SCMP_CMP_MASKED_EQ, kMode, O_RDONLY)});
        // For the sealing filter to be installed at all. A filter can only take more away (NO_NEW_PRIVS is set).
        rc |= allow(ctx, SCMP_SYS(seccomp));
    }
    return load(ctx, rc, why);
}

bool seal_after_load(std::string& why) {
    // A second filter, stacked on the first: the kernel applies the strictest answer of all of them, so this one
    // only needs to name what the first allowed for loading.
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx) {
        why = "seccomp_init failed";
        return false;
    }
    // NO_NEW_PRIVS is set already, and setting it again is a prctl the first filter refuses.
    int rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
    for (const int nr : {SCMP_SYS(open), SCMP_SYS(openat), SCMP_SYS(openat2), SCMP_SYS(seccomp)})
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), nr, 0);
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(prlimit64), 1, arg(2, SCMP_CMP_NE, 0));
    return load(ctx, rc, why);
}

} // namespace af::host::isolation
