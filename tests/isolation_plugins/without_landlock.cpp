// Runs a command as on a kernel without Landlock: a seccomp filter, inherited by the command and every process it
// starts, answers the three Landlock calls with ENOSYS, as a kernel built without it does. The rest of the
// kernel is untouched. For the tests of what assetforge does there (tests/plugin_loading_test.cpp).
//   without_landlock PROGRAM ARGS…
#include <seccomp.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <initializer_list>

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: without_landlock PROGRAM ARGS…\n");
        return 2;
    }
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx) return 2;
    int rc = 0;
    for (const char* name : {"landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self"})
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), seccomp_syscall_resolve_name(name), 0);
    if (rc != 0 || seccomp_load(ctx) != 0) {
        std::fprintf(stderr, "without_landlock: cannot install the filter\n");
        return 2;
    }
    seccomp_release(ctx);
    ::execvp(argv[1], argv + 1);
    std::perror("without_landlock: exec");
    return 127;
}
