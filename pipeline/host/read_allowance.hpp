// The most a container's read may take from af_host.alloc: what its `dims`
// declared for the file, plus a little. A plugin that trusts a hostile header
// past what it declared (or declares small and takes much) gets NULL from
// alloc and its read fails with a message naming the plugin; the file is
// named by the caller, as for every read error.
#pragma once

#include "assetforge/plugin_abi.h"

#include <atomic>
#include <cstdint>
#include <string>

namespace af::host {

// Bytes of the texture `d` describes (every mip, face, layer; a P8 palette
// per layer); a format the host does not know counts 16 bytes a texel.
uint64_t declared_bytes(const af_dims& d);
// declared_bytes plus the slack a reader may need for its own buffers
// (row scratch, RLE runs): 1/16 more and 1 MiB.
uint64_t read_allowance(const af_dims& d);
// "8192x8192 R8G8B8A8_UNORM_SRGB", "64x64x4 BC1_UNORM, 6 faces, 3 mips".
std::string dims_text(const af_dims& d);
// "plugin 'x' asked af_host.alloc for 1.0 GiB in read, past what its dims declared (2x2 …: at most 1.0 MiB in all)".
std::string over_allowance_text(const std::string& plugin, const af_dims& d, uint64_t allowance, uint64_t asked);

// Counts af_host.alloc on the calling thread against `limit` bytes held at
// once, for its lifetime (nested scopes: the innermost counts). Threads of
// the plugin's parallel_for count against the same scope (AllowanceShare).
class AllowanceScope {
  public:
    explicit AllowanceScope(uint64_t limit);
    ~AllowanceScope();
    AllowanceScope(const AllowanceScope&) = delete;
    AllowanceScope& operator=(const AllowanceScope&) = delete;
    // The size of the first allocation refused, 0 when none was.
    uint64_t refused() const { return refused_.load(); }

  private:
    friend bool allowance_take(uint64_t, uint64_t);
    friend void allowance_give(uint64_t);
    uint64_t limit_;
    std::atomic<uint64_t> held_{0}, refused_{0};
    AllowanceScope* previous_;
};

// The scope of this thread (nullptr: none), and another thread's made this
// thread's for the lifetime of an AllowanceShare.
AllowanceScope* current_allowance();
class AllowanceShare {
  public:
    explicit AllowanceShare(AllowanceScope* scope);
    ~AllowanceShare();
    AllowanceShare(const AllowanceShare&) = delete;
    AllowanceShare& operator=(const AllowanceShare&) = delete;

  private:
    AllowanceScope* previous_;
};

// For af_host.alloc: false (the allocation must fail) when `size` more bytes
// would pass the current scope's limit; true, and counted, otherwise or
// when no scope is open. `asked` (0: size) is what refused() reports, the
// plugin's request rather than the allocator's rounded-up block.
bool allowance_take(uint64_t size, uint64_t asked = 0);
// For af_host.free: `size` bytes are no longer held.
void allowance_give(uint64_t size);

} // namespace af::host
