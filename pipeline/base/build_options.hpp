// What a build is asked to do: the options of `build`, `status` and the
// reports. A leaf: the reports and the status printer read it without
// reaching into the engine.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace af::base {

// --memory-budget when none is given, in MiB: the same for every command, so a machine's limit is set one way.
inline constexpr uint64_t kDefaultMemoryBudgetMiB = 2048;

struct GlobWitness;

struct BuildOptions {
    int threads = 0;        // 0 = all cores
    bool explain = false;   // print why each action runs
    bool fail_fast = false; // stop starting actions after the first failure
    // An action that discarded information (warnings: alpha, a channel, bit
    // depth) fails the build's exit code, for CI; its outputs are still written.
    bool warnings_as_errors = false;
    bool quiet = false;
    bool dry_run = false;          // `status`: decide, never run
    bool status_json = false;      // `status --json`: every action as JSON instead of the per-job summary
    bool overwrite_edited = false; // replace outputs that differ from what the build last wrote
    int progress = -1;             // 1 refreshing line, 0 plain lines, -1 decide by isatty
    int color = -1;                // 1 always, 0 never, -1 on a terminal unless NO_COLOR is set
    bool verbose = false;          // build -v: each step of each action, with its time
    int heartbeat_ms = 10000;      // piped: the longest silence before a line says what is running
    std::string trace_file, report_file;
    // The report is HTML: texture actions also leave pictures of their source
    // and result, and per-channel PSNR, in `<report_file>.d/`. Off, nothing
    // is decoded for it and no texture outlives its step.
    bool report_images = false;
    // --report-pictures: the full-size pictures' longest side at most (0: mip 0 as it is; 96: thumbnails only).
    uint32_t report_picture_side = 0;
    uint64_t memory_budget = kDefaultMemoryBudgetMiB << 20; // bytes of images in flight
    std::function<bool()> cancelled;                        // polled between steps (Ctrl-C)
    // Given the work that commits the state, once it is open; the build holds what it returns until it ends. The
    // command line makes a plugin that ends the process (a crash, exit()) run that work first, so the actions that
    // finished are not lost with the state's last batch.
    std::function<std::shared_ptr<void>(std::function<void()> commit)> keep_on_crash;
    // `watch`: how the files among an action's inputs changed since the last build, as the watcher saw them
    // ("src/a.png: content changed"), appended to why the action runs when its inputs are the reason.
    std::function<std::string(const std::vector<std::string>& inputs)> input_changes;
    // Print the warnings an up-to-date action's outputs carry (they are counted, and reported, either way).
    // `watch` said them at its first build: each rebuild says only those of the actions it runs.
    bool repeat_kept_warnings = true;
    // Current identity ("name@version#hash") of a plugin by name; "" when not loaded.
    std::function<std::string(const std::string&)> tool_identity;
    std::ostream* out = nullptr; // progress, explain, summary (default std::cout)
    std::ostream* err = nullptr; // failures (default std::cerr)
    // The process exits right after this build (the CLI): the state database
    // is closed, but the in-memory state (10,000s of records) is left for the
    // OS to reclaim; freeing it piece by piece was a visible part of a no-op build.
    bool exiting_after = false;
    // A shared cache speaking Bazel's HTTP remote-cache protocol ("" = none):
    // an out-of-date action first looks its key up there; built outputs are
    // uploaded unless remote_upload is false (read-only consumers).
    std::string remote_cache;
    bool remote_upload = true;
    // CI that must notice a broken cache: any cache failure (unreachable, refused uploads, bad entries) fails the
    // build, whose outputs are still written (--remote-cache-required, `remote_cache_required: true`).
    bool remote_cache_required = false;
    // The URL came from the pipeline file, which anyone who can change the
    // project controls: the environment's credentials are not sent to it
    // unless its host is trusted (RemoteCacheOptions::url_from_pipeline).
    bool remote_cache_from_pipeline = false;
    // The input globs give only some of each job's files (BuildSession's
    // rebuild of files that changed): the records of the others are not stale.
    bool some_inputs_only = false;
    // --shard I/N: only the actions of shard I of N run (count 0: all).
    int shard_index = 0, shard_count = 0;
    // Every loaded plugin's identity ("name@version#hash"), sorted and joined:
    // part of the remote cache key, which must not depend on what a machine
    // happens to record locally.
    std::string plugin_identities;
    // Told every folder the real file system's globs list (for the no-op record; may be null).
    GlobWitness* glob_witness = nullptr;
};

} // namespace af::base
