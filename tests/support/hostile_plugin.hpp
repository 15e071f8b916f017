// What the isolation tests share: the hostile test plugin (tests/isolation_plugins/hostile.cpp) on the plugin path,
// the words a crash is reported with, and a run of assetforge that a hang cannot outlive.
#pragma once

#include "../cli_run.hpp"

#include <cstdlib>
#include <filesystem>
#include <string>

namespace af::test {

// AddressSanitizer reports a SIGSEGV itself and then aborts (abort_on_error), so the worker dies of SIGABRT.
#if defined(AF_ASAN)
inline constexpr const char* kSegv = "crashed (SIG";
#else
inline constexpr const char* kSegv = "crashed (SIGSEGV)";
#endif

// The hostile plugin on $ASSETFORGE_PLUGIN_PATH for the test's lifetime: third-party, as a user's download is.
struct HostilePath {
    HostilePath() { setenv("ASSETFORGE_PLUGIN_PATH", AF_HOSTILE_PLUGIN_DIR, 1); }
    ~HostilePath() { unsetenv("ASSETFORGE_PLUGIN_PATH"); }
    HostilePath(const HostilePath&) = delete;
    HostilePath& operator=(const HostilePath&) = delete;
};

// `assetforge ARGS` in `dir`, stopped after `seconds`: a test of a hang ends even when the hang is back.
inline Run run_bounded(const std::filesystem::path& dir, const std::string& args, int seconds) {
    return run_shell("cd '" + dir.string() + "' && timeout -k 5 " + std::to_string(seconds) + " " + AF_EXE + " " +
                     args);
}

} // namespace af::test
