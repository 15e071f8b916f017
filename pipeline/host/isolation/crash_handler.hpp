// For plugins that run in the host's process: which plugin call a thread is
// in, so that a crash there names the plugin, the call and the input before
// the process dies, and a plugin's log line can name the file it concerns.
#pragma once

#include <functional>
#include <memory>

namespace af::host::isolation {

struct PluginCall {
    const char* plugin = nullptr; // plugin name
    const char* call = nullptr;   // "read", "write", "run", …
    const char* input = nullptr;  // file or item name, or nullptr
    // The option that would run this call in a worker ("--isolate all"), or nullptr when none would: the crash
    // message recommends only what changes something.
    const char* remedy = nullptr;
};

// Marks the calling thread as inside a plugin call for its lifetime. The
// strings must outlive the scope.
class CallScope {
  public:
    CallScope(const char* plugin, const char* call, const char* input, const char* remedy = nullptr);
    ~CallScope();
    CallScope(const CallScope&) = delete;
    CallScope& operator=(const CallScope&) = delete;

  private:
    PluginCall previous_;
};

// The call the calling thread is in (plugin == nullptr when none).
PluginCall current_call();

// While it lives, a plugin that ends the process during a call (a crash or exit(), below) first has `keep` run
// on a thread of its own, for at most a few seconds: a build commits the actions that finished, which would
// otherwise be lost with the state's last batch. One scope at a time.
class RescueScope {
  public:
    explicit RescueScope(std::function<void()> keep);
    ~RescueScope();
    RescueScope(const RescueScope&) = delete;
    RescueScope& operator=(const RescueScope&) = delete;

  private:
    struct Waiter;
    std::unique_ptr<Waiter> waiter_;
};

// The exit status of a process a plugin ended with exit() during a call.
constexpr int kExitInPlugin = 70;

// SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT: on a thread inside a plugin call,
// says so on stderr (async-signal-safe writes only), then dies of the same
// signal. exit() inside a plugin call: says so and ends with kExitInPlugin, never
// the plugin's status. Both run the RescueScope's work first, so finished work stays.
void install_crash_handler();

} // namespace af::host::isolation
