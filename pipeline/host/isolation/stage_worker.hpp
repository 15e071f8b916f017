// The worker's side of a plugin stage's call (stage_wire.hpp): runs the stage on the inputs the host shared, and
// sends each item it emits to the host as it is emitted, its bytes (or texture data and palette) in memfds from
// the worker's allocator, then the stage's status.
#pragma once

#include "host/isolation/wire.hpp"

#include <cstdint>
#include <vector>

namespace af::host {
struct LoadedPlugin;
}

namespace af::host::isolation {

// The worker's af_host.alloc blocks (worker_main.cpp), which are memfds.
struct WorkerBlocks {
    void* (*alloc)(uint64_t size); // a block backed by a memory file
    void (*free)(void* p);
    int (*fd_of)(const void* p, uint64_t size); // the memfd of a block alloc returned, or -1
};

void serve_stage(const LoadedPlugin& plugin, Reader& request, const std::vector<int>& fds, int sock,
                 const WorkerBlocks& blocks);

} // namespace af::host::isolation
