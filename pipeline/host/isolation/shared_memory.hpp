// Buffers that arrived from a plugin worker as shared memory and stand, in the
// host, for memory the plugin allocated with af_host.alloc: the host adopts
// them without copying and af_host.free unmaps them.
#pragma once

#include <cstdint>

namespace af::host::isolation {

// Maps the memfd frozen (map_frozen; taking ownership of fd) and records the mapping; nullptr on failure, and
// while the sender still has it mapped writable.
void* adopt_shared(int fd, uint64_t size);
// true when p was adopted (and is now unmapped); false leaves p to the caller.
bool release_shared(void* p);

} // namespace af::host::isolation
