// The plugin worker: `assetforge __plugin-worker PLUGIN LIMIT…` with its
// socket as fd 3. Loads one plugin, then sandboxes itself (memory limit,
// seccomp-bpf) and serves the host's calls until the host goes away.
#pragma once

namespace af::host::isolation {

constexpr const char* kWorkerCommand = "__plugin-worker";

// The process's exit code.
int run_plugin_worker(int argc, char** argv);

} // namespace af::host::isolation
