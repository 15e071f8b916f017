// For plugins that run in the host's process: which plugin call a thread is
// in, so that a crash there names the plugin, the call and the input before
// the process dies, and a plugin's log line can name the file it concerns.
#pragma once

namespace af::host::isolation {

struct PluginCall {
    const char* plugin = nullptr; // plugin name
    const char* call = nullptr;   // "read", "write", "run", …
    const char* input = nullptr;  // file or item name, or nullptr
};

// Marks the calling thread as inside a plugin call for its lifetime. The
// strings must outlive the scope.
class CallScope {
  public:
    CallScope(const char* plugin, const char* call, const char* input);
    ~CallScope();
    CallScope(const CallScope&) = delete;
    CallScope& operator=(const CallScope&) = delete;

  private:
    PluginCall previous_;
};

// The call the calling thread is in (plugin == nullptr when none).
PluginCall current_call();

// The exit status of a process a plugin ended with exit() during a call.
constexpr int kExitInPlugin = 70;

// SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT: on a thread inside a plugin call,
// says so on stderr (async-signal-safe writes only), then dies of the same
// signal. exit() inside a plugin call: says so and ends with kExitInPlugin, never
// the plugin's status. Outputs and state are committed per action, so finished work stays.
void install_crash_handler();

} // namespace af::host::isolation
