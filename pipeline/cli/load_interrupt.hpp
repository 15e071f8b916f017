// While a pipeline loads nothing has been written yet, so SIGINT and SIGTERM
// may end the process at once. The handlers a build uses only set a cancel
// flag, which loading (one long yaml-cpp call) never polls.
#pragma once

#include <signal.h>

namespace af::cli {

// For its lifetime SIGINT and SIGTERM end the process, by that signal, so the
// parent sees what ended it. Ends it at once if a Ctrl-C came before (the
// cancel flag is set). Restores the previous handlers when destroyed.
class EndOnInterruptWhileLoading {
  public:
    EndOnInterruptWhileLoading();
    ~EndOnInterruptWhileLoading();
    EndOnInterruptWhileLoading(const EndOnInterruptWhileLoading&) = delete;
    EndOnInterruptWhileLoading& operator=(const EndOnInterruptWhileLoading&) = delete;

  private:
    struct sigaction old_int_ {};
    struct sigaction old_term_ {};
};

} // namespace af::cli
