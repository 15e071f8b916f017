// job(i) for i in [0, n) on the host's arena (serially without a host).
// Exceptions must not cross the host's C boundary: each job's error is kept
// and the lowest job's rethrown, so a message never depends on which thread
// happened to fail first.
#pragma once

#include "assetforge/plugin.hpp"

#include <exception>
#include <vector>

namespace af::evr {

template <class F> void run_jobs(const af_host* host, uint64_t n, F&& job) {
    std::vector<std::exception_ptr> errors(n);
    sdk::parallel_for(host, n, 1, [&](uint64_t b, uint64_t e) {
        for (uint64_t i = b; i < e; ++i) {
            try {
                job(i);
            } catch (...) {
                errors[i] = std::current_exception();
            }
        }
    });
    for (auto& e : errors)
        if (e) std::rethrow_exception(e);
}

} // namespace af::evr
