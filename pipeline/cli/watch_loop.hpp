// `assetforge watch`: a build, then a rebuild each time an input, a file a
// parameter names, or the pipeline changes. Each rebuild is a normal
// incremental build (every promise of `build` holds, only what changed runs),
// which takes the build lock for its own duration: between rebuilds the lock
// is free, so a `build` from another shell runs, and `status` never needs it.
#pragma once

#include "base/build_options.hpp"
#include "load/config.hpp"
#include "steps/step.hpp"

#include <filesystem>
#include <functional>
#include <memory>
#include <vector>

namespace af::cli {

// A pipeline with the step table its steps point into and the options the
// command line, the environment and the pipeline give its builds.
struct LoadedPipeline {
    steps::StepTable steps;
    load::Pipeline p;
    base::BuildOptions opt;
};
// Loads (or reloads) the pipeline; null after printing why it cannot be loaded.
using PipelineLoader = std::function<std::unique_ptr<LoadedPipeline>()>;

struct WatchOptions {
    bool poll = false;    // --poll: look every poll_ms instead of inotify
    int poll_ms = 500;    // the polling interval
    int debounce_ms = 60; // quiet time after the last change before a rebuild
    // The files the loaded plugins came from: a change to one starts the process again (exec), so that what is
    // built next is made by, and recorded under, the plugin now on disk.
    std::vector<std::filesystem::path> plugin_files;
};

// Runs until SIGINT (exit 130) or SIGTERM (exit 0); 2 when the first load fails.
int run_watch(const PipelineLoader& load, const WatchOptions& w);

} // namespace af::cli
