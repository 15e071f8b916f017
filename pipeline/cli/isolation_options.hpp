// --isolate and --action-timeout: where plugin calls run and how long one may take.
#pragma once

#include "host/isolation/isolation.hpp"

#include <boost/program_options.hpp>

#include <cmath>
#include <string>

namespace af::cli {

// --action-timeout alone: `convert` takes it too (its plugin calls are isolated like a build's).
inline void add_action_timeout_option(boost::program_options::options_description& opts,
                                      const char* what = "stop a plugin call that runs longer than SECONDS (isolated "
                                                         "plugins; also `action_timeout:` in the pipeline)") {
    opts.add_options()("action-timeout", boost::program_options::value<double>(), what);
}

inline void add_isolation_options(boost::program_options::options_description& opts) {
    opts.add_options()("isolate", boost::program_options::value<std::string>()->default_value("third-party"),
                       "none|third-party|all: run plugin calls in sandboxed worker processes, where a crash, a hang or "
                       "a memory hog fails one action (third-party: plugins not installed with assetforge)");
    add_action_timeout_option(opts);
}

// Applies --action-timeout when given; "" or the usage error to print.
inline std::string apply_action_timeout_option(const boost::program_options::variables_map& vm) {
    if (!vm.count("action-timeout")) return "";
    const double t = vm["action-timeout"].as<double>();
    if (!(t > 0) || !std::isfinite(t)) return "--action-timeout expects a positive number of seconds";
    host::isolation::settings().action_timeout = t;
    return "";
}

// Applies the options; "" or the usage error to print.
inline std::string apply_isolation_options(const boost::program_options::variables_map& vm, uint64_t memory_budget,
                                           int threads) {
    auto& s = host::isolation::settings();
    const std::string mode = vm["isolate"].as<std::string>();
    const auto m = host::isolation::parse_mode(mode);
    if (!m) return "--isolate expects none, third-party or all, got '" + mode + "'";
    s.mode = *m;
    if (std::string why = apply_action_timeout_option(vm); !why.empty()) return why;
    if (memory_budget) s.memory_limit = memory_budget;
    s.workers = threads;
    return "";
}

} // namespace af::cli
