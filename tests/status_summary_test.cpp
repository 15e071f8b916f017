// `status`: a summary per job by default (a tree of 8,000 files is a few
// lines), each action with -v, every action as JSON with --json.
#include "cli_run.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>

namespace fs = std::filesystem;
using af::test::run_cli;
using af::test::TempDir;

namespace {
const fs::path kSummaryData = AF_TEST_DATA;
}

TEST_CASE("status summarises per job, -v lists each action, --json every action", "[status][e2e]") {
    TempDir t("af-status-summary");
    t.copy(kSummaryData / "images" / "a_palm_b.png", "src/a.png");
    t.copy(kSummaryData / "images" / "g_caustics.png", "src/b.png");
    t.write("pipeline.yaml", "assetforge: 1\njobs:\n  dds:\n    inputs: \"src/*.png\"\n"
                             "    steps: [ { encode: { format: bc1 } } ]\n    output: \"out/{stem}.dds\"\n");
    auto r = run_cli("status", t.path());
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("  dds: 2 would run (2 new input)"));
    CHECK_THAT(r.out, Catch::Contains("2 action(s) would run, 0 up to date"));
    CHECK(r.out.find("src/a.png") == std::string::npos); // no file list by default
    r = run_cli("status -v", t.path());
    CHECK_THAT(r.out, Catch::Contains("explain: dds: src/a.png: new input"));
    REQUIRE(run_cli("build", t.path()).code == 0);
    t.copy(kSummaryData / "images" / "d_dark-wall-wood_crop256.png", "src/b.png");
    // Standard output is JSON alone (`status --json | jq` works); the kept warning goes to standard error.
    r = af::test::run_shell("(cd '" + t.path().string() + "' && " + AF_EXE + " status --json 2>/dev/null)");
    INFO(r.out);
    auto doc = nlohmann::json::parse(r.out);
    CHECK_THAT(af::test::run_shell("(cd '" + t.path().string() + "' && " + AF_EXE + " status --json >/dev/null)").out,
               Catch::Contains("warning: dds: src/a.png: alpha reduced"));
    CHECK(doc.at("would_run") == 1);
    CHECK(doc.at("up_to_date") == 1);
    bool seen = false;
    for (const auto& a : doc.at("actions"))
        if (a.at("input") == "src/b.png") seen = a.at("status") == "would-run" && a.at("reason") != "";
    CHECK(seen);
}

TEST_CASE("status counts stale outputs without a line each, -v lists them", "[status][e2e]") {
    TempDir t("af-status-stale");
    for (int i = 0; i < 6; ++i) t.copy(kSummaryData / "images" / "a_palm_b.png", "src/t" + std::to_string(i) + ".png");
    t.write("pipeline.yaml", "assetforge: 1\njobs:\n  dds:\n    inputs: \"src/*.png\"\n"
                             "    steps: [ { encode: { format: bc1 } } ]\n    output: \"out/{stem}.dds\"\n");
    REQUIRE(run_cli("build", t.path()).code == 0);
    for (int i = 0; i < 5; ++i) fs::remove(t.path() / ("src/t" + std::to_string(i) + ".png"));
    auto r = run_cli("status", t.path());
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("would remove") == std::string::npos);
    CHECK_THAT(r.out, Catch::Contains("5 stale to remove (-v lists them)"));
    r = run_cli("status -v", t.path());
    CHECK_THAT(r.out, Catch::Contains("would remove out/t3.dds: its input src/t3.png is gone"));
}
