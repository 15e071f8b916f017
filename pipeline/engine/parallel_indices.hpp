#pragma once

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <cstddef>

namespace af::engine {

// body(begin, end) over [0, n) in chunks of about `grain` on TBB's threads, for work whose indices are independent.
// Isolated: a thread waiting for the chunks runs only them, never another of the build's tasks — the callers may
// hold the scheduler's lock, which those tasks take. Under ThreadSanitizer it runs on the calling thread:
// libtbb is not instrumented, so TSan sees neither its hand-overs nor its reuse of task objects and reports them
// as races (scripts/tsan.supp); the scheduler's own tasks still run concurrently and are checked.
template <class Body> void parallel_indices(std::size_t n, std::size_t grain, Body&& body) {
#if defined(AF_TSAN)
    (void)grain;
    if (n) body(std::size_t(0), n);
#else
    tbb::this_task_arena::isolate([&] {
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, grain),
                          [&](const tbb::blocked_range<std::size_t>& r) { body(r.begin(), r.end()); });
    });
#endif
}

} // namespace af::engine
