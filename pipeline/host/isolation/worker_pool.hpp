// Host side of the plugin workers: one pool per plugin, sized to the build's
// parallelism; a worker is started on first need, reused, and replaced after
// it crashed or was stopped.
#pragma once

#include "host/isolation/wire.hpp"

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace af::host {
struct LoadedPlugin;
}

namespace af::host::isolation {

struct CallOutcome {
    bool ok = false; // reply holds the worker's answer
    Message reply;
    int status = 0;         // af_status when !ok
    std::string failure;    // when !ok: "plugin 'x' crashed (SIGSEGV) in read of f"
    bool timed_out = false; // when !ok: stopped for running past its time limit
};

// Sends one request and waits for its reply, passing the worker's log and
// warning messages (and a stage's emitted items) to on_note meanwhile; on_note
// may take the message's descriptors (leaving -1), the rest are closed after it. `what` names the call for messages
// ("read of src/x.tga"). Never throws for a worker's failure. A probe is stopped after kProbeTimeoutSeconds
// (isolation.hpp) when --action-timeout gives it no shorter limit.
CallOutcome call_worker(const LoadedPlugin& plugin, Op op, const std::vector<uint8_t>& body,
                        const std::vector<int>& fds, const std::string& what,
                        const std::function<void(Message&)>& on_note);

// Starts a worker for `library` (its bytes in image_fd), sends it one request and returns the reply, then ends the
// worker: the describe of a plugin being loaded, which has no pool yet. A worker that does not answer within
// `seconds` is stopped. `confinement` gets what held around the worker's loading.
CallOutcome call_once(const std::filesystem::path& library, int image_fd, Op op, const std::vector<uint8_t>& body,
                      double seconds, std::string& confinement);

// Ends and reaps every idle worker: before `watch` replaces its process image (exec) to load changed plugins,
// whose workers would otherwise be children the new image never waits for.
void end_idle_workers();

} // namespace af::host::isolation
