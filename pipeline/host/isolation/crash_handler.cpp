#include "host/isolation/crash_handler.hpp"

#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <thread>

namespace af::host::isolation {
namespace {

thread_local PluginCall t_call;

// The rescue: a thread waiting on a pipe, woken by one async-signal-safe write from the thread that is ending the
// process, which then waits (nanosleep, also safe) until it is done or kRescueWait has passed. The work runs in an
// ordinary context (locks, allocation, SQLite), not in the signal handler. A heap the plugin damaged could make it
// hang or crash: the wait bounds the first, and the second ends the process as the crash would have.
std::atomic<int> g_rescue_fd{-1};
std::atomic<bool> g_rescued{false};
constexpr long kRescueWaitMs = 5000;

void rescue() {
    const int fd = g_rescue_fd.exchange(-1);
    if (fd < 0) return; // none set, or another thread already asked
    const char go = 'r';
    if (::write(fd, &go, 1) != 1) return;
    for (long waited = 0; waited < kRescueWaitMs && !g_rescued.load(); waited += 10) {
        const timespec ten_ms{0, 10 * 1000 * 1000};
        ::nanosleep(&ten_ms, nullptr);
    }
}

void put(const char* s) {
    if (!s) return;
    size_t n = std::strlen(s);
    while (n > 0) {
        ssize_t w = ::write(STDERR_FILENO, s, n);
        if (w <= 0) return;
        s += w;
        n -= size_t(w);
    }
}

const char* signal_name(int sig) {
    switch (sig) {
    case SIGSEGV:
        return "SIGSEGV";
    case SIGBUS:
        return "SIGBUS";
    case SIGFPE:
        return "SIGFPE";
    case SIGILL:
        return "SIGILL";
    case SIGABRT:
        return "SIGABRT";
    }
    return "a fatal signal";
}

void on_fatal_signal(int sig) {
    const PluginCall c = t_call;
    if (c.plugin) {
        put("assetforge: plugin '");
        put(c.plugin);
        put("' crashed (");
        put(signal_name(sig));
        put(") in ");
        put(c.call);
        if (c.input) {
            put(" of ");
            put(c.input);
        }
        put("; it runs inside assetforge, so the build stops here. Actions that finished are kept");
        if (c.remedy) {
            put("; run with ");
            put(c.remedy);
            put(" to fail only this action");
        }
        put(".\n");
        rescue();
    }
    // SA_RESETHAND restored the default action: dying of the same signal keeps the exit status honest.
    ::raise(sig);
}

// exit() from a thread inside a plugin call: the build did not finish, whatever status the plugin gave. atexit
// handlers run on the thread that called exit, so its call scope is the plugin's.
void on_exit_in_plugin() {
    const PluginCall c = t_call;
    if (!c.plugin) return;
    put("assetforge: plugin '");
    put(c.plugin);
    put("' ended the process (exit) in ");
    put(c.call);
    if (c.input) {
        put(" of ");
        put(c.input);
    }
    put("; the build stops here, unfinished. Actions that finished are kept.\n");
    rescue();
    ::_exit(kExitInPlugin);
}

} // namespace

CallScope::CallScope(const char* plugin, const char* call, const char* input, const char* remedy) : previous_(t_call) {
    t_call = {plugin, call, input, remedy};
}

CallScope::~CallScope() { t_call = previous_; }

PluginCall current_call() { return t_call; }

struct RescueScope::Waiter {
    int pipe[2] = {-1, -1};
    std::function<void()> keep;
    std::thread thread;
};

RescueScope::RescueScope(std::function<void()> keep) : waiter_(new Waiter) {
    waiter_->keep = std::move(keep);
    if (::pipe2(waiter_->pipe, O_CLOEXEC) != 0) return; // no rescue: the crash loses the last batch, as before
    g_rescued = false;
    Waiter* w = waiter_.get();
    w->thread = std::thread([w] {
        char c = 0;
        ssize_t n;
        do n = ::read(w->pipe[0], &c, 1);
        while (n < 0 && errno == EINTR);
        if (n != 1) return; // the scope ended
        try {
            w->keep();
        } catch (...) {
        }
        g_rescued = true;
    });
    g_rescue_fd = w->pipe[1];
}

RescueScope::~RescueScope() {
    int expected = waiter_->pipe[1];
    // A crash that already took the descriptor is ending the process: its rescue runs; do not wait for it here.
    if (expected >= 0 && !g_rescue_fd.compare_exchange_strong(expected, -1)) {
        waiter_.release();
        return;
    }
    if (waiter_->pipe[1] >= 0) ::close(waiter_->pipe[1]);
    if (waiter_->thread.joinable()) waiter_->thread.join();
    if (waiter_->pipe[0] >= 0) ::close(waiter_->pipe[0]);
}

void install_crash_handler() {
    std::atexit(on_exit_in_plugin);
    struct sigaction sa {};
    sa.sa_handler = on_fatal_signal;
    sa.sa_flags = SA_RESETHAND | SA_NODEFER | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) {
        // A handler already there (a sanitizer's) reports more than this one would: leave it.
        struct sigaction old {};
        if (::sigaction(sig, nullptr, &old) == 0 && !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL)
            ::sigaction(sig, &sa, nullptr);
    }
}

} // namespace af::host::isolation
