// Plugin isolation: which plugins' calls run in worker processes, and the
// settings the workers run under. See docs/plugin-isolation.md.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

struct af_stage;

namespace af::host {
class PluginRegistry;
struct LoadedPlugin;
} // namespace af::host

namespace af::host::isolation {

enum class Mode { None, ThirdParty, All };

struct Settings {
    Mode mode = Mode::ThirdParty;
    double action_timeout = 0;             // seconds one plugin call may take; 0 = no limit
    uint64_t memory_limit = 2048ull << 20; // bytes a worker's heap may hold (the memory budget)
    int workers = 0;                       // workers per plugin; 0 = one per core
    // --allow-unconfined-load: on a kernel without Landlock, load third-party plugins in workers anyway (with
    // namespaces and seccomp, but the file system open to their loading) instead of refusing them.
    bool allow_unconfined_load = false;
};

Settings& settings();

// A sanitizer build (AF_SANITIZE in CMakeLists.txt): its runtime reserves terabytes of address space and reads its
// options from the environment, which workers otherwise do not get.
#if defined(AF_ASAN) || defined(AF_TSAN)
inline constexpr bool kSanitizerBuild = true;
#else
inline constexpr bool kSanitizerBuild = false;
#endif

// How long a probe in a worker may take, with or without --action-timeout (a shorter one applies). Every file of a
// build is probed by every container, so a probe that never returns would hang every build, and nothing asks the
// user for a limit first; a probe looks at 4 KiB and a path, which takes microseconds, so 5 s is only ever hit by
// a plugin that is stuck.
constexpr double kProbeTimeoutSeconds = 5;

std::optional<Mode> parse_mode(std::string_view text);
const char* mode_name(Mode m);

// A plugin that did not come from the host's own plugin directory (nor is built in).
bool third_party(const LoadedPlugin& p);
// A plugin library that is not in the host's own plugin directory.
bool third_party(const std::filesystem::path& library);
// One of the folders the host's own plugins are installed or built in.
bool own_plugin_dir(const std::filesystem::path& dir);
// Whether calls into p go to a worker under the current settings.
bool isolated(const LoadedPlugin& p);

// Makes the host process non-dumpable (PR_SET_DUMPABLE 0): a process of the same user that is not its ancestor, a
// plugin worker before its filter is on included, can then not take the host's descriptors (pidfd_getfd), read or
// write its memory (/proc/PID/mem, process_vm_*) or trace it, without CAP_SYS_PTRACE. It also means no core file.
// Left out of sanitizer builds: LeakSanitizer stops the process's threads from a traced helper, which this refuses
// unless run as root.
void protect_host();

// A stage that declares a file or folder parameter (AF_PARAM_FILE, AF_PARAM_DIR) opens what it names itself,
// which a sealed worker cannot: under --isolate all such a stage of a bundled plugin stays in process. A
// third-party one still runs in a worker, where opening the file fails (and its error says so).
bool stage_reads_files(const af_stage& s);
// For a call running in process: the --isolate value that would run it in a worker instead, or nullptr when none
// would (a bundled stage that reads files, a codec, or --isolate all already given). Static text.
const char* in_process_remedy(bool third_party, bool isolatable);

// Routes every call into the registry's plugins (containers' probe, read,
// write, info, stages' run) through the isolation layer, which runs it in a
// worker or, in process, under the crash handler. Call once, after loading.
void install(PluginRegistry& registry);

} // namespace af::host::isolation
