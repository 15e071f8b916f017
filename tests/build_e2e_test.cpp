// `assetforge build` end to end with the real plugins: the texture steps
// (mips, encode, extract, decode), plugin stages (xtf.write, pages.extract),
// --job, and Ctrl-C in the middle of a build.
#include "cli_run.hpp"
#include "support/project.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <spawn.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace fs = std::filesystem;

namespace {

using namespace af::test;

// Width and height from a PNG's IHDR.
std::pair<uint32_t, uint32_t> png_size(const fs::path& p) {
    std::string s = slurp(p);
    REQUIRE(s.size() >= 24);
    REQUIRE(s.compare(1, 3, "PNG") == 0);
    auto be32 = [&](size_t o) {
        return uint32_t(uint8_t(s[o])) << 24 | uint32_t(uint8_t(s[o + 1])) << 16 | uint32_t(uint8_t(s[o + 2])) << 8 |
               uint32_t(uint8_t(s[o + 3]));
    };
    return {be32(16), be32(20)};
}

const char* kPipeline = R"(assetforge: 1
jobs:
  dds:
    inputs: "src/**/*.png"
    steps: [ { mips: { filter: box } }, { encode: { format: bc1 } } ]
    output: "out/dds/{dir}/{stem}.dds"
  mips:
    from: dds
    steps: [ { extract: { what: mips } }, decode ]
    output: "out/mips/{dir}/{stem}_{mip}.png"
  xbox:
    inputs: "src/**/*.png"
    steps: [ xtf.write ]
    output: "out/xbox/{dir}/{stem}.xtf"
  pages:
    inputs: "src/*.pages"
    steps: [ { pages.extract: { what: payload } } ]
    output: "out/pages/{input_stem}/{level}_{x}_{y}.bin"
)";

} // namespace

TEST_CASE("build runs mips, encode, extract, decode and plugin stages", "[build][e2e]") {
    TempDir t;
    t.copy(kBcData + "g_caustics_128.png", "src/fx/caustics.png");
    t.copy(kBcData + "d_rock_128.png", "src/rock.png");
    t.copy(kPagesData + "l3_s2_bfs.pages", "src/level.pages");
    t.write("pipeline.yaml", kPipeline);

    Run r = run_in(t.path(), "build --report report.json");
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("7 built, 0 up to date, 0 failed"));

    // mips + encode: a BC1 DDS with the full chain, read back through `info`.
    Run info = run_in(t.path(), "info out/dds/fx/caustics.dds");
    CHECK(info.code == 0);
    CHECK_THAT(info.out, Catch::Contains("BC1_UNORM"));
    CHECK_THAT(info.out, Catch::Contains("8 mips"));
    // extract (what: mips) + decode, fed file by file from the dds job: one PNG per level.
    for (uint32_t m = 0; m < 8; ++m) {
        INFO("mip " << m);
        auto [w, h] = png_size(t / ("out/mips/fx/caustics_" + std::to_string(m) + ".png"));
        CHECK(w == (128u >> m));
        CHECK(h == (128u >> m));
    }
    CHECK(files_under(t / "out/mips").size() == 16);
    // xtf.write (a plugin stage): the XTF container reads it back.
    Run xtf = run_in(t.path(), "info out/xbox/rock.xtf");
    CHECK(xtf.code == 0);
    CHECK_THAT(xtf.out, Catch::Contains("container: xtf"));
    CHECK_THAT(xtf.out, Catch::Contains("size: 128x128x1"));
    // pages.extract (a plugin stage, 1 → N with level/x/y metadata). The pages
    // and their node ranges are those of l3_s2_bfs.pages.json, written by the
    // independent generator (plugins/vtpages/tests/data/SOURCE.md).
    CHECK(files_under(t / "out/pages") ==
          std::vector<std::string>{"level/0_0_2.bin", "level/1_0_1.bin", "level/2_0_0.bin"});
    std::string pages = slurp(t / "src/level.pages");
    struct Node {
        const char* file;
        size_t offset, length;
    };
    for (Node n : {Node{"level/2_0_0.bin", 72, 11302}, Node{"level/1_0_1.bin", 11374, 7584},
                   Node{"level/0_0_2.bin", 18958, 5614}}) {
        INFO(n.file);
        std::string payload = slurp(t / "out/pages" / n.file);
        REQUIRE(!payload.empty());
        CHECK(payload.size() < n.length);
        // The payload is the tail of its page node.
        CHECK(pages.compare(n.offset + n.length - payload.size(), payload.size(), payload) == 0);
    }

    // Nothing changed: nothing runs.
    Run again = run_in(t.path(), "build");
    CHECK(again.code == 0);
    CHECK_THAT(again.out, Catch::Contains("0 built, 7 up to date"));
}

TEST_CASE("build --job builds the named jobs and what they take inputs from", "[build][e2e]") {
    TempDir t;
    t.copy(kBcData + "g_caustics_128.png", "src/caustics.png");
    t.copy(kPagesData + "l3_s2_bfs.pages", "src/level.pages");
    t.write("pipeline.yaml", kPipeline);

    Run r = run_in(t.path(), "build --job mips --job pages");
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK(fs::exists(t / "out/dds/caustics.dds")); // mips takes its inputs from dds
    CHECK(fs::exists(t / "out/mips/caustics_0.png"));
    CHECK(fs::exists(t / "out/pages/level/2_0_0.bin"));
    CHECK_FALSE(fs::exists(t / "out/xbox"));
    Run status = run_in(t.path(), "status");
    CHECK_THAT(status.out, Catch::Contains("1 action(s) would run"));
    Run bad = run_in(t.path(), "build --job mipz");
    CHECK(bad.code == 2);
    CHECK_THAT(bad.out, Catch::Contains("'mipz' is not a valid job"));
    CHECK_THAT(bad.out, Catch::Contains("did you mean 'mips'?"));
}

TEST_CASE("Ctrl-C mid-build: complete outputs only, consistent state, the next build finishes",
          "[build][e2e][cancel]") {
    // Slow enough to interrupt: BC7 at high quality on 30 textures.
    const char* yaml = R"(assetforge: 1
jobs:
  dds:
    inputs: "src/*.png"
    steps: [ mips, { encode: { format: bc7, quality: high } } ]
    output: "out/{stem}.dds"
)";
    const std::vector<std::string> sources = {"a_palm_128.png", "d_rock_128.png", "d_wallpaper_128.png",
                                              "g_caustics_128.png", "n_rock_128.png"};
    auto populate = [&](const TempDir& d) {
        for (int copy = 0; copy < 6; ++copy)
            for (const auto& s : sources) d.copy(kBcData + s, "src/" + std::to_string(copy) + "_" + s);
        d.write("pipeline.yaml", yaml);
    };
    const size_t n = 6 * sources.size();
    TempDir t, clean;
    populate(t);
    populate(clean);

    std::string exe = AF_EXE, yaml_path = (t / "pipeline.yaml").string();
    char* argv[] = {
        exe.data(), const_cast<char*>("build"), const_cast<char*>("-q"), const_cast<char*>("-j2"), yaml_path.data(),
        nullptr};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 2, (t / "stderr.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid;
    REQUIRE(posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv, environ) == 0);
    posix_spawn_file_actions_destroy(&fa);
    auto count_outputs = [&] {
        size_t c = 0;
        for (const auto& f : files_under(t / "out"))
            if (f.find(".af-tmp-") == std::string::npos) ++c;
        return c;
    };
    for (int i = 0; i < 2000 && count_outputs() < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    REQUIRE(kill(pid, SIGINT) == 0);
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    std::string err = slurp(t / "stderr.txt");
    INFO(err);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 1);
    CHECK_THAT(err, Catch::Contains("build cancelled"));
    // Actions stopped by Ctrl-C were cancelled, not failed.
    CHECK(err.find("failed") == std::string::npos);
    CHECK(err.find("FAILED") == std::string::npos);

    // The reference: the same tree built without interruption.
    Run ref = run_in(clean.path(), "build -q");
    REQUIRE(ref.code == 0);

    auto after_cancel = files_under(t / "out");
    size_t kept = 0;
    for (const auto& f : after_cancel) {
        INFO(f);
        CHECK(f.find(".af-tmp-") == std::string::npos); // temporaries are removed on cancel
        // Every output present is complete: byte for byte what a clean build writes.
        CHECK(slurp(t / "out" / f) == slurp(clean / "out" / f));
        ++kept;
    }
    CHECK(kept >= 2);
    CHECK(kept < n); // it really stopped early

    // The state database opens and agrees with the files: what is kept is up to date.
    Run st = run_in(t.path(), "status");
    CHECK(st.code == 0);
    CHECK_THAT(st.out, Catch::Contains(std::to_string(n - kept) + " action(s) would run, " + std::to_string(kept) +
                                       " up to date"));
    Run next = run_in(t.path(), "build");
    CHECK(next.code == 0);
    CHECK_THAT(next.out, Catch::Contains(std::to_string(n - kept) + " built, " + std::to_string(kept) + " up to date"));
    CHECK(files_under(t / "out") == files_under(clean / "out"));
    for (const auto& f : files_under(clean / "out")) {
        INFO(f);
        CHECK(slurp(t / "out" / f) == slurp(clean / "out" / f));
    }
}
