#include "cli/load_interrupt.hpp"

#include "host/host_services.hpp"

#include <unistd.h>

namespace af::cli {
namespace {

void end_by_signal(int sig) {
    // Both calls are async-signal-safe; the re-raised signal is delivered with
    // the default action (terminate) as soon as this handler returns.
    ::signal(sig, SIG_DFL);
    ::raise(sig);
}

} // namespace

EndOnInterruptWhileLoading::EndOnInterruptWhileLoading() {
    struct sigaction sa {};
    sa.sa_handler = end_by_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
    if (host::cancel_requested()) _exit(130); // 128 + SIGINT, as for a second Ctrl-C
}

EndOnInterruptWhileLoading::~EndOnInterruptWhileLoading() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
}

} // namespace af::cli
