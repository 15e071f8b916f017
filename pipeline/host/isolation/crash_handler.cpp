#include "host/isolation/crash_handler.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace af::host::isolation {
namespace {

thread_local PluginCall t_call;

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
        put("; it runs inside assetforge (--isolate none, or a plugin installed with it), so the build stops here. "
            "Actions that finished are kept; run with --isolate all to fail only this action.\n");
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
    ::_exit(kExitInPlugin);
}

} // namespace

CallScope::CallScope(const char* plugin, const char* call, const char* input) : previous_(t_call) {
    t_call = {plugin, call, input};
}

CallScope::~CallScope() { t_call = previous_; }

PluginCall current_call() { return t_call; }

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
