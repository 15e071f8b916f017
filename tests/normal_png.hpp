// PNGs shaped like a real game tree's, made by the project's independent
// generator (tests/tools/make_normal_png.py), for the tests that need them.
#pragma once

#include "cli_run.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

namespace af::test {

inline std::string quoted(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

// `args` as make_normal_png.py takes them (--kind, --alpha, …).
inline void make_normal_png(const std::filesystem::path& out, const std::string& args) {
    std::filesystem::create_directories(out.parent_path());
    const std::filesystem::path tool = std::filesystem::path(AF_SOURCE_DIR) / "tests/tools/make_normal_png.py";
    auto r = run_shell("/usr/bin/python3 " + quoted(tool) + " " + quoted(out) + " " + args);
    REQUIRE(r.code == 0);
}

} // namespace af::test
