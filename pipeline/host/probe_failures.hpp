// Probes that a plugin worker could not answer. Every file is probed by every container, so a plugin whose probe
// crashes or hangs would otherwise put a warning on every action of a build, files other plugins read included.
#pragma once

#include <string>
#include <vector>

namespace af::host {

struct LoadedPlugin;

enum class ProbeFailure {
    Crashed, // said only where no plugin claims the file: on a file another plugin reads it is noise
    TimedOut // said wherever it happened: it cost the build seconds, and the user should learn whose they were
};

// A probe by `plugin` failed; `probed` identifies what it was given (the file), `text` names the plugin, the call
// and the file. Said (as an af_host.log warning of the current action) once per plugin and kind in a build; inside
// a ProbeFailures scope only when the scope settles.
void report_probe_failure(const LoadedPlugin& plugin, ProbeFailure kind, const std::string& probed,
                          const std::string& text);

// Whether `plugin`'s probe of `probed` timed out already in this build: a file is probed more than once per action
// (while the action is sized, then when it is read), and each would cost the whole time limit again.
bool probe_timed_out_before(const LoadedPlugin& plugin, const std::string& probed);

// Collects this thread's probe failures while one file is probed by every container; settle() says them once the
// claimant is known (nullptr: no plugin claims the file).
class ProbeFailures {
  public:
    ProbeFailures();
    ~ProbeFailures(); // unsettled failures are dropped
    ProbeFailures(const ProbeFailures&) = delete;
    ProbeFailures& operator=(const ProbeFailures&) = delete;

    void settle(const LoadedPlugin* claimant);

    struct Pending {
        const LoadedPlugin* plugin;
        ProbeFailure kind;
        std::string text;
    };

  private:
    friend void report_probe_failure(const LoadedPlugin&, ProbeFailure, const std::string&, const std::string&);
    std::vector<Pending> pending_;
    ProbeFailures* previous_;
};

// A new build (watch): each plugin may warn once again, and every file is probed again.
void forget_probe_failures();

} // namespace af::host
