#include "host/isolation/confinement.hpp"

#include "host/isolation/isolation.hpp"
#include "host/isolation/pid_namespace.hpp"

#include <fcntl.h>
#include <linux/landlock.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace af::host::isolation {
namespace {

// The ruleset attribute as the running kernel may read it: the system's header can be older than the kernel
// (Debian 12's knows ABI 2), and the size passed tells the kernel which fields are there.
struct RulesetAttr {
    uint64_t handled_access_fs = 0;
    uint64_t handled_access_net = 0; // ABI 4
    uint64_t scoped = 0;             // ABI 6
};

constexpr uint64_t kFsExecute = 1ull << 0;
constexpr uint64_t kFsReadFile = 1ull << 2;
constexpr uint64_t kFsReadDir = 1ull << 3;
constexpr uint64_t kNetBindTcp = 1ull << 0, kNetConnectTcp = 1ull << 1;
constexpr uint64_t kScopeAbstractUnix = 1ull << 0, kScopeSignal = 1ull << 1;

// Every file system right the kernel's ABI knows: a right left unhandled would be allowed everywhere.
uint64_t fs_rights(int abi) {
    uint64_t rights = (1ull << 13) - 1; // ABI 1: execute … make_sym
    if (abi >= 2) rights |= 1ull << 13; // refer
    if (abi >= 3) rights |= 1ull << 14; // truncate
    if (abi >= 5) rights |= 1ull << 15; // ioctl_dev
    return rights;
}

// Where the dynamic loader finds a plugin's dependencies (libstdc++, libgomp…); nothing else is readable.
constexpr const char* kLibraryDirs[] = {"/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/local/lib"};

bool add_rule(int ruleset, int fd, uint64_t allowed) {
    landlock_path_beneath_attr rule{};
    rule.allowed_access = allowed;
    rule.parent_fd = fd;
    return ::syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) == 0;
}

bool add_path(int ruleset, const char* path, uint64_t allowed, std::string& why) {
    const int fd = ::open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return true; // absent on this system: nothing to grant
    const bool ok = add_rule(ruleset, fd, allowed);
    const int err = errno;
    ::close(fd);
    if (!ok) why = std::string("landlock_add_rule(") + path + "): " + std::strerror(err);
    return ok;
}

// The ruleset, applied; the ABI on success, 0 with `why` set on failure, -1 when the kernel has no Landlock.
int apply_landlock(int library_fd, std::string& why) {
    const long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 0) {
        why = errno == ENOSYS       ? "this kernel has no Landlock (ENOSYS)"
              : errno == EOPNOTSUPP ? "Landlock is disabled on this kernel (EOPNOTSUPP)"
                                    : std::string("Landlock: ") + std::strerror(errno);
        return errno == ENOSYS || errno == EOPNOTSUPP ? -1 : 0;
    }
    RulesetAttr attr;
    attr.handled_access_fs = fs_rights(int(abi));
    size_t size = sizeof attr.handled_access_fs;
    if (abi >= 4) {
        attr.handled_access_net = kNetBindTcp | kNetConnectTcp; // no rule grants any: no TCP at all
        size = offsetof(RulesetAttr, scoped);
    }
    if (abi >= 6) {
        attr.scoped = kScopeAbstractUnix | kScopeSignal; // nothing outside the worker's own domain
        size = sizeof attr;
    }
    const int ruleset = int(::syscall(SYS_landlock_create_ruleset, &attr, size, 0));
    if (ruleset < 0) {
        why = std::string("landlock_create_ruleset: ") + std::strerror(errno);
        return 0;
    }
    bool ok = true;
    for (const char* dir : kLibraryDirs) ok = ok && add_path(ruleset, dir, kFsExecute | kFsReadFile | kFsReadDir, why);
    ok = ok && add_path(ruleset, "/etc/ld.so.cache", kFsReadFile, why);
    // A sanitizer's runtime reads its own process's maps when a library is loaded; only a test build has one.
    if (kSanitizerBuild) ok = ok && add_path(ruleset, "/proc/self", kFsReadFile | kFsReadDir, why);
    // The plugin's own file, through the descriptor the host opened. A memory file (the host's sealed copy of a
    // third-party library) lives on an internal mount, which Landlock neither takes a rule for nor restricts.
    if (ok && !add_rule(ruleset, library_fd, kFsExecute | kFsReadFile) && errno != EBADFD) {
        why = std::string("landlock_add_rule(the plugin's library): ") + std::strerror(errno);
        ok = false;
    }
    if (ok && ::syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) {
        why = std::string("landlock_restrict_self: ") + std::strerror(errno);
        ok = false;
    }
    ::close(ruleset);
    return ok ? int(abi) : 0;
}

} // namespace

// A user namespace first (it makes the others possible without privileges), then each of the rest on its own, so
// one the kernel refuses costs only itself. The PID namespace comes last: entering it starts new processes, and
// this one continues as the namespace's process 2.
void enter_namespaces(Confinement& out) {
    struct Ns {
        int flag;
        const char* name;
    };
    static constexpr Ns kNamespaces[] = {{CLONE_NEWUSER, "user"},
                                         {CLONE_NEWNET, "net"},
                                         {CLONE_NEWIPC, "ipc"},
                                         {CLONE_NEWUTS, "uts"},
                                         {CLONE_NEWNS, "mnt"}};
    std::string held;
    auto add = [&](const char* name) { held += (held.empty() ? "" : " ") + std::string(name); };
    for (const Ns& ns : kNamespaces)
        if (::unshare(ns.flag) == 0) add(ns.name);
    if (enter_pid_namespace()) add("pid");
    out.namespaces = held;
}

std::string Confinement::text() const {
    std::string t = landlock_abi ? "Landlock ABI " + std::to_string(landlock_abi) : "no Landlock";
    t += namespaces.empty() ? ", no namespaces" : ", namespaces " + namespaces;
    return t + ", seccomp";
}

bool confine_for_load(int library_fd, bool allow_unconfined, Confinement& out, std::string& why) {
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        why = std::string("PR_SET_NO_NEW_PRIVS: ") + std::strerror(errno);
        return false;
    }
    const int abi = apply_landlock(library_fd, why);
    if (abi > 0) {
        out.landlock_abi = abi;
        return true;
    }
    out.landlock_absent = abi < 0;
    if (abi < 0 && allow_unconfined) {
        why.clear();
        return true;
    }
    return false;
}

} // namespace af::host::isolation
