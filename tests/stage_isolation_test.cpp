// Plugin stages in workers: a third-party stage (tests/isolation_plugins/hostile.cpp, `hostile.stage`) that
// crashes, hogs memory, hangs, exits or lies about what it emits fails one action, and the build goes on; one that
// behaves gives what it gives in process. Bundled stages that open files keep working under --isolate all.
#include "cli_run.hpp"
#include "support/hostile_plugin.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <map>

namespace fs = std::filesystem;
using namespace af::test;

namespace {

// Raw files through the stage, and the same files decoded first (a texture crossing to the worker and back).
constexpr const char* kStagePipeline = R"(assetforge: 1
jobs:
  staged:
    inputs: "src/*.hostile"
    steps: [ hostile.stage ]
    output: "out/{name}"
  decoded:
    inputs: "src/*.hostile"
    steps: [ decode, hostile.stage ]
    output: "tex/{name}"
)";

constexpr const char* kStageOnlyPipeline = R"(assetforge: 1
jobs:
  staged:
    inputs: "src/*.hostile"
    steps: [ hostile.stage ]
    output: "out/{name}"
)";

// `good` well-behaved files and one whose stage call does `behaviour`, named x.hostile.
void stage_project(const TempDir& t, int good, char behaviour, const char* pipeline = kStageOnlyPipeline) {
    t.write("pipeline.yaml", pipeline);
    for (int i = 0; i < good; ++i)
        t.write("src/ok" + std::to_string(i) + ".hostile", std::string("HSTLo") + char('A' + i));
    if (behaviour) t.write("src/x.hostile", std::string("HSTL") + behaviour + "Z");
}

// Every file under `dir`, by its path relative to it, with its bytes.
std::map<std::string, std::string> tree_of(const fs::path& dir) {
    std::map<std::string, std::string> files;
    std::error_code ec;
    for (const auto& e : fs::recursive_directory_iterator(dir, ec))
        if (e.is_regular_file()) files[fs::relative(e.path(), dir).generic_string()] = slurp(e.path());
    return files;
}

// The .bin and .png each good file's stage call leaves in out/.
size_t stage_outputs(const TempDir& t) { return tree_of(t / "out").size(); }

} // namespace

TEST_CASE("isolation: a third-party stage in a worker emits bytes and textures as it does in process, sealed",
          "[isolation][stage]") {
    HostilePath path;
    std::map<std::string, std::string> in_process, isolated;
    // Small calls and items cross inside messages, one past 48 KiB as memory files: both ways give the same bytes.
    const std::string big = "HSTLo" + std::string(200000, 'b');
    for (const char* mode : {"none", "third-party"}) {
        TempDir t;
        stage_project(t, 3, 0, kStagePipeline);
        t.write("src/big.hostile", big);
        Run r = run_in(t.path(), std::string("build -j2 --isolate ") + mode);
        INFO(mode << "\n" << r.out);
        REQUIRE(r.code == 0);
        auto out = tree_of(t / "out"), tex = tree_of(t / "tex");
        CHECK(out.size() == 8); // okN.bin and okN.png for each of 3 files, and big's
        CHECK(tex.size() == 4); // okN-inv.png, big-inv.png
        CHECK(out["big.bin"] == "stage:" + big);
        for (auto& [k, v] : tex) out["tex/" + k] = v;
        (std::string(mode) == "none" ? in_process : isolated) = std::move(out);
    }
    CHECK(isolated == in_process);
    REQUIRE(in_process.count("ok0.bin"));
    CHECK(in_process["ok0.bin"] == "stage:HSTLoA");

    // Sealed: the same stage cannot open a file in its worker; in process it can.
    TempDir t;
    stage_project(t, 1, 'f');
    Run sealed = run_in(t.path(), "build -j1");
    INFO(sealed.out);
    CHECK(sealed.code == 1);
    CHECK_THAT(sealed.out, Catch::Contains("cannot open /etc/hostname: Permission denied"));
    CHECK(stage_outputs(t) == 2);
}

TEST_CASE("isolation: a third-party stage that segfaults on one of 21 inputs fails that action only",
          "[isolation][stage]") {
    HostilePath path;
    TempDir t;
    stage_project(t, 20, 's');
    Run r = run_in(t.path(), "build -j2 --report report.json");
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK(stage_outputs(t) == 40);
    CHECK_THAT(r.out, Catch::Contains(std::string("plugin 'hostile' ") + kSegv) &&
                          Catch::Contains("in stage hostile.stage of x.hostile"));
    CHECK_THAT(r.out, Catch::Contains("20 built, 0 up to date, 1 failed"));
    REQUIRE(fs::exists(t / "report.json"));
    CHECK_THAT(slurp(t / "report.json"), Catch::Contains(kSegv));
    // The finished actions were recorded: the next build redoes only the one that failed.
    Run again = run_in(t.path(), "build -j2");
    INFO(again.out);
    CHECK(again.code == 1);
    CHECK_THAT(again.out, Catch::Contains("0 built, 20 up to date, 1 failed"));
}

#if !defined(AF_ASAN) // the sanitizer's shadow reservation leaves the worker's heap unbounded
TEST_CASE("isolation: a third-party stage taking 10 GiB under --memory-budget 256 fails that action, RSS stays low",
          "[isolation][stage]") {
    HostilePath path;
    TempDir t;
    stage_project(t, 3, 'm');
    MeasuredRun r = run_cli_measured({"build", "-j2", "--memory-budget", "256"}, t.path());
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK(stage_outputs(t) == 6);
    CHECK_THAT(r.out, Catch::Contains("x.hostile") && Catch::Contains("malloc of 10 GiB returned NULL"));
    CHECK(r.peak_rss_kib <= 320 * 1024);
}
#endif

TEST_CASE("isolation: --action-timeout and `action_timeout:` stop a third-party stage that never returns",
          "[isolation][stage]") {
    HostilePath path;
    TempDir t;
    stage_project(t, 2, 'h');
    const auto start = std::chrono::steady_clock::now();
    Run r = run_bounded(t.path(), "build -j2 --action-timeout 2", 60);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK(stage_outputs(t) == 4);
    CHECK_THAT(r.out, Catch::Contains("plugin 'hostile' did not finish stage hostile.stage of x.hostile within 2 s "
                                      "(--action-timeout); stopped it"));
    CHECK(seconds >= 2);
    CHECK(seconds < 30);
    t.write("pipeline.yaml", std::string("action_timeout: 2\n") + kStageOnlyPipeline);
    Run from_pipeline = run_bounded(t.path(), "build -j2", 60);
    INFO(from_pipeline.out);
    CHECK(from_pipeline.code == 1);
    CHECK_THAT(from_pipeline.out, Catch::Contains("within 2 s (--action-timeout)"));
}

TEST_CASE("isolation: a third-party stage calling exit(0) fails that action, the build goes on", "[isolation][stage]") {
    HostilePath path;
    TempDir t;
    stage_project(t, 4, 'e');
    Run r = run_in(t.path(), "build -j1");
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK(stage_outputs(t) == 8);
    CHECK_THAT(r.out, Catch::Contains("plugin 'hostile' exited with status 0 in stage hostile.stage of x.hostile"));
    CHECK_THAT(r.out, Catch::Contains("4 built, 0 up to date, 1 failed"));
}

TEST_CASE("isolation: an emitted item claiming more bytes than its memory file holds fails that action, no SIGBUS",
          "[isolation][stage]") {
    HostilePath path;
    TempDir t;
    stage_project(t, 3, 'L');
    Run r = run_in(t.path(), "build -j2");
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK(stage_outputs(t) == 6);
    CHECK_THAT(r.out, Catch::Contains("x.hostile") && Catch::Contains("plugin 'hostile' worker answered badly") &&
                          Catch::Contains("not a sealed memory file of the size claimed"));
    CHECK_FALSE(fs::exists(t / "out/forged.bin"));
}

#if !defined(AF_ASAN) // the sanitizer's own SIGSEGV handler reports in-process crashes there
TEST_CASE("isolation: an in-process stage crash recommends --isolate only where it would isolate the stage",
          "[isolation][stage]") {
    HostilePath path;
    TempDir t;
    stage_project(t, 0, 's');
    Run none = run_in(t.path(), "build -j1 --isolate none");
    INFO(none.out);
    CHECK(none.code == 128 + SIGSEGV);
    CHECK_THAT(none.out, Catch::Contains("plugin 'hostile' crashed (SIGSEGV) in hostile.stage of x.hostile") &&
                             Catch::Contains("--isolate third-party"));
}
#endif

TEST_CASE("isolation: convert takes --action-timeout for its plugin calls", "[isolation][stage]") {
    HostilePath path;
    TempDir t;
    t.write("x.hostile", "HSTLh");
    const auto start = std::chrono::steady_clock::now();
    Run r = run_bounded(t.path(), "convert x.hostile x.png --action-timeout 2", 60);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("plugin 'hostile' did not finish read of") &&
                          Catch::Contains("within 2 s (--action-timeout)"));
    CHECK(seconds < 30);
    CHECK_FALSE(fs::exists(t / "x.png"));
}

TEST_CASE("isolation: under --isolate all a bundled stage that reads the files its parameters name stays in "
          "process and works, and says so",
          "[isolation][stage]") {
    const std::string world = std::string(AF_SOURCE_DIR) + "/examples/quickstart/pages/world.pages";
    TempDir blocks;
    Run b = run_cli("pages blocks '" + world + "' 0 7 0 --out '" + blocks.path().string() + "'");
    INFO(b.out);
    REQUIRE(b.code == 0);
    std::map<std::string, std::string> by_mode;
    for (const char* mode : {"none", "all"}) {
        TempDir t;
        t.copy(world, "pages/world.pages");
        t.copy(blocks / "0_7_0.payload.bin", "repl/0_6_0.bin");
        t.write("pipeline.yaml", R"(assetforge: 1
jobs:
  repack:
    inputs: "pages/*.pages"
    steps: [ { pages.repack: { replacements: repl } } ]
    output: "out/{name}"
  pages:
    inputs: "pages/*.pages"
    steps: [ { pages.extract: { what: payload } } ]
    output: "payload/{name}"
)");
        Run r = run_in(t.path(), std::string("build -j2 --isolate ") + mode);
        INFO(mode << "\n" << r.out);
        REQUIRE(r.code == 0);
        by_mode[mode] = slurp(t / "out/world.pages");
        CHECK(tree_of(t / "payload").size() > 1);
    }
    CHECK(by_mode["all"] == by_mode["none"]);
    Run steps = run_cli("steps pages.repack");
    INFO(steps.out);
    CHECK_THAT(steps.out, Catch::Contains("runs inside assetforge under --isolate all"));
}

TEST_CASE("isolation: under --isolate all the quickstart builds as in process, xtf.write encoding BC in its worker",
          "[isolation][stage]") {
    // xtf.write encodes DXT1/DXT5 through af_host.convert, whose codecs are another bundled plugin's (bc).
    std::map<std::string, std::map<std::string, std::string>> by_mode;
    for (const char* mode : {"none", "all"}) {
        TempDir t;
        fs::copy(std::string(AF_SOURCE_DIR) + "/examples/quickstart", t.path(), fs::copy_options::recursive);
        fs::remove_all(t / "build");
        Run r = run_in(t.path(), std::string("build -j2 --isolate ") + mode);
        INFO(mode << "\n" << r.out);
        CHECK(r.code == 0);
        by_mode[mode] = tree_of(t / "build/xbox");
    }
    CHECK(by_mode["all"].size() == 4);
    CHECK(by_mode["all"] == by_mode["none"]);
}

TEST_CASE("isolation: under --isolate all a gather stage (evr.build) runs in a worker and makes the set it makes in "
          "process",
          "[isolation][stage]") {
    // evr.extract opens the set's packages folder (in process under --isolate all); evr.build gathers the
    // extracted tree, every file one input item of one call in a worker.
    const std::string set = "91b7584a2265b1f5";
    std::map<std::string, std::map<std::string, std::string>> by_mode;
    for (const char* mode : {"none", "all"}) {
        TempDir t;
        fs::copy(std::string(AF_SOURCE_DIR) + "/plugins/evr/tests/data/s1", t / "s1", fs::copy_options::recursive);
        t.write("pipeline.yaml", R"(assetforge: 1
jobs:
  x:
    inputs: "s1/manifests/)" + set + R"("
    steps:
      - evr.extract: { packages: s1/packages, groups: true }
    output: "out/tree/{path}"
  pack:
    needs: [ x ]
    inputs: "out/tree/**/*"
    gather:
      evr.build: { name: 00000000000000aa, groups: true }
    output: "out/new/{path}"
)");
        Run r = run_in(t.path(), std::string("build -j2 --isolate ") + mode);
        INFO(mode << "\n" << r.out);
        CHECK(r.code == 0);
        by_mode[mode] = tree_of(t / "out/new");
    }
    CHECK(by_mode["all"].size() >= 2); // a manifest and its parts
    CHECK(by_mode["all"] == by_mode["none"]);
}

TEST_CASE("isolation: a rebuilt stage plugin is the reason its actions run again, not their parameters",
          "[isolation][stage]") {
    // A copy of the hostile plugin of the test's own, so it can be "rebuilt": bytes appended after the ELF's
    // contents change its identity (its hash) and nothing of what it does.
    TempDir plugins;
    const fs::path so = plugins / "hostile.so";
    fs::copy_file(fs::path(AF_HOSTILE_PLUGIN_DIR) / "hostile.so", so);
    setenv("ASSETFORGE_PLUGIN_PATH", plugins.path().c_str(), 1);
    TempDir t;
    stage_project(t, 2, 0);
    Run first = run_in(t.path(), "build");
    INFO(first.out);
    REQUIRE(first.code == 0);
    // Recorded with its actions, the stage's identity still leaves an unchanged build with nothing to do.
    CHECK_THAT(run_in(t.path(), "build").out, Catch::Contains("0 built, 2 up to date"));
    {
        std::ofstream more(so, std::ios::app | std::ios::binary);
        more << "rebuilt";
    }
    Run again = run_in(t.path(), "build --explain");
    unsetenv("ASSETFORGE_PLUGIN_PATH");
    INFO(again.out);
    CHECK(again.code == 0);
    CHECK_THAT(again.out,
               Catch::Contains("plugin hostile changed (hostile@1.0#") && !Catch::Contains("parameters changed"));
}
