// What a plugin worker may do once its plugin is loaded.
#pragma once

#include <cstdint>
#include <string>

namespace af::host::isolation {

// The most descriptors a worker holds at once (RLIMIT_NOFILE, where the inherited limit is higher).
constexpr uint64_t kWorkerFiles = 256;

// Caps the heap (RLIMIT_DATA: brk and private mappings) at what the process
// holds now plus `bytes`, the address space (RLIMIT_AS, shared mappings too)
// at what is mapped now plus `bytes` and room for threads, any one file
// (a memory file written, not mapped) at `bytes`, and the files it holds at
// kWorkerFiles. Shared memory from af_host.alloc is counted by the worker's
// allocator as well. `status_fd` is /proc/self/status, opened before the sandbox.
bool limit_heap(uint64_t bytes, int status_fd, std::string& why);

// seccomp-bpf: no opening of files, no sockets, no exec or fork, no file
// system changes, no signals to other processes. A denied call fails with
// EACCES (the plugin sees an ordinary error, not a kill). In the load phase,
// opening read only and setting its own limits are allowed too, for the
// dynamic loader and limit_heap; seal_after_load() then takes both away.
bool enter_sandbox(bool load_phase, std::string& why);
bool seal_after_load(std::string& why);

} // namespace af::host::isolation
