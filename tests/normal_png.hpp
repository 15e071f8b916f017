// PNGs shaped like a real game tree's, made by the project's independent
// generator (tests/tools/make_normal_png.py), for the tests that need them.
#pragma once

#include "cli_run.hpp"
#include "temp_dir.hpp"

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

// A project of one BC5 job over in/glass.png, a colour PNG whose alpha holds
// data: the encode drops the alpha, and warns that it does.
inline void lossy_project(const TempDir& dir) {
    make_normal_png(dir / "in/glass.png", "--kind colour --alpha data");
    dir.write("pipeline.yaml", "assetforge: 1\n"
                               "jobs:\n"
                               "  j:\n"
                               "    inputs: \"in/*.png\"\n"
                               "    steps: [ { encode: { format: bc5 } } ]\n"
                               "    output: \"out/{stem}.dds\"\n");
}

} // namespace af::test
