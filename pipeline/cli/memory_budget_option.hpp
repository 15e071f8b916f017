// --memory-budget, one option for every command (build and its kin, compare, convert) with one default, so a
// machine's limit is given one way everywhere; `what` says what it bounds in that command's help.
#pragma once

#include "base/build_options.hpp"

#include <boost/program_options.hpp>

#include <cstdint>
#include <string>

namespace af::cli {

inline void add_memory_budget_option(boost::program_options::options_description& opts,
                                     const char* what = "MiB the command may hold (refused up front when its "
                                                        "estimate is larger)") {
    opts.add_options()("memory-budget",
                       boost::program_options::value<uint64_t>()->default_value(base::kDefaultMemoryBudgetMiB), what);
}

// Bytes; 0 when the value given is 0 (a usage error for the caller to report).
inline uint64_t memory_budget_bytes(const boost::program_options::variables_map& vm) {
    const uint64_t mib = vm["memory-budget"].as<uint64_t>();
    return mib > (UINT64_MAX >> 20) ? UINT64_MAX : mib << 20;
}

inline std::string mib_text(uint64_t bytes) { return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB"; }

} // namespace af::cli
