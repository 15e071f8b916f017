#include "host/isolation/pid_namespace.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

namespace af::host::isolation {
namespace {

// Closes every descriptor but `keep`: a relay holding the worker's socket or output pipe would keep the host from
// seeing them close when the worker ends.
void close_all_but(int keep) {
    if (keep > 0) ::close_range(0, unsigned(keep) - 1, 0);
    ::close_range(unsigned(keep) + 1, ~0u, 0);
}

// Ends this process as `status` says the worker ended.
[[noreturn]] void end_like(int status) {
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        const rlimit none{0, 0};
        ::setrlimit(RLIMIT_CORE, &none); // the worker's crash is the one to report; no core file of a relay
        struct sigaction dfl {};
        dfl.sa_handler = SIG_DFL;
        ::sigaction(sig, &dfl, nullptr);
        sigset_t only;
        sigemptyset(&only);
        sigaddset(&only, sig);
        ::sigprocmask(SIG_UNBLOCK, &only, nullptr);
        ::raise(sig);
        ::_exit(128 + sig); // a signal whose default is to go on (SIGCHLD, SIGCONT…) cannot have ended the worker
    }
    ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

int wait_status(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return 1 << 8; // exit code 1
    return status;
}

// The process the host started: waits for the worker's end as process 1 reports it, and ends the same way. When
// process 1 ended without a report (killed), its own end is the answer.
[[noreturn]] void relay(pid_t init, int report) {
    close_all_but(report);
    int status = 0;
    ssize_t n;
    do n = ::read(report, &status, sizeof status);
    while (n < 0 && errno == EINTR);
    const int init_status = wait_status(init);
    end_like(n == ssize_t(sizeof status) ? status : init_status);
}

// Process 1: reaps whatever ends in the namespace (an orphan is its to reap) until the worker itself ends, then
// reports how. Its own end takes the namespace down with it.
[[noreturn]] void serve_as_init(pid_t worker, int report) {
    close_all_but(report);
    for (;;) {
        int status = 0;
        const pid_t ended = ::waitpid(-1, &status, 0);
        if (ended == worker) {
            [[maybe_unused]] const ssize_t n = ::write(report, &status, sizeof status);
            ::_exit(0);
        }
        if (ended < 0 && errno != EINTR) ::_exit(1);
    }
}

} // namespace

bool enter_pid_namespace() {
    if (::unshare(CLONE_NEWPID) != 0) return false;
    int report[2];
    if (::pipe2(report, O_CLOEXEC) != 0) return false;
    // From here the next process this one starts is the namespace's process 1; this one stays where it was.
    const pid_t init = ::fork();
    if (init < 0) {
        ::close(report[0]);
        ::close(report[1]);
        return false;
    }
    if (init > 0) {
        ::close(report[1]);
        relay(init, report[0]);
    }
    // Process 1. Its parent's end (the host killing it) ends it, and so the namespace.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    ::close(report[0]);
    const pid_t worker = ::fork();
    if (worker < 0) ::_exit(1);
    if (worker > 0) serve_as_init(worker, report[1]);
    ::close(report[1]);
    return true;
}

} // namespace af::host::isolation
