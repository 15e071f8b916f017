// Loading a hostile pipeline file in a test: the ConfigError message ("" if
// it loads), checked to come within a time bound (it must not stall loading).
#pragma once

#include "test_project.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <string>

namespace af::engine::test {

inline std::string load_error(const std::filesystem::path& file, std::chrono::seconds within) {
    steps::StepTable steps = png_test_steps();
    const auto start = std::chrono::steady_clock::now();
    std::string message;
    try {
        load::load_pipeline(file, {}, steps);
    } catch (const base::ConfigError& e) {
        message = e.what();
    }
    // The bound tells a linear refusal from an exponential walk; instrumented
    // code runs 5–20× slower (ThreadSanitizer took 6 s for a 0.3 s load on a
    // busy machine), which says nothing about which of the two it is.
#if defined(AF_TSAN) || defined(AF_ASAN)
    within *= 6;
#endif
    CHECK(std::chrono::steady_clock::now() - start < within);
    return message;
}

} // namespace af::engine::test
