// A minimal af_host for the BC tests: malloc-backed allocation and a
// parallel_for that really runs on TBB (or serially), so determinism across
// thread counts is tested through the same path the real host uses.
#pragma once

#include "assetforge/plugin_abi.h"

#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

#include <cstdlib>

namespace bc_test {

inline void tbb_parallel_for(uint64_t begin, uint64_t end, uint64_t grain, af_range_fn fn, void* ctx) {
    tbb::parallel_for(tbb::blocked_range<uint64_t>(begin, end, grain ? grain : 1),
                      [&](const tbb::blocked_range<uint64_t>& r) { fn(ctx, r.begin(), r.end()); });
}

inline void serial_for(uint64_t begin, uint64_t end, uint64_t, af_range_fn fn, void* ctx) { fn(ctx, begin, end); }

inline af_host make_host(bool parallel) {
    af_host h{};
    h.struct_size = sizeof h;
    h.api_major = AF_API_MAJOR;
    h.api_minor = AF_API_MINOR;
    h.host_version = "bc-test";
    h.alloc = [](uint64_t n) { return std::malloc(n); };
    h.free = [](void* p) { std::free(p); };
    h.log = [](int32_t, const char*) {};
    h.cancelled = [] { return int32_t(0); };
    h.progress = [](uint64_t, uint64_t) {};
    h.parallel_for = parallel ? tbb_parallel_for : serial_for;
    return h;
}

} // namespace bc_test
