#include "test_project.hpp"

#include "core/png_io.hpp"
#include "engine/state_store.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

using namespace af::base;
using namespace af::steps;
using namespace af::load;
using namespace af::engine;
using namespace af::engine::test;
using Strings = std::vector<std::string>;

namespace {
const char* kTwoJobs = R"(assetforge: 1
vars: { out: build }
jobs:
  first:
    inputs: "src/**/*.png"
    steps: [ invert ]
    output: "${out}/first/{dir}/{stem}.png"
  second:
    from: first
    steps:
      - invert: { amount: 200 }
    output: "${out}/second/{dir}/{stem}.png"
)";

void three_inputs(TestProject& t) {
    t.write_png("src/a.png", 8, 8, 1);
    t.write_png("src/sub/b.png", 4, 4, 2);
    t.write_png("src/sub/c.png", 2, 6, 3);
}
// pngs (invert every src/**/*.png) gathered by package into build/mod.zip with `gather`.
std::string pngs_then_package(const std::string& gather) {
    return R"(assetforge: 1
jobs:
  pngs:
    inputs: "src/**/*.png"
    steps: [ invert ]
    output: "build/png/{dir}/{stem}.png"
  package:
    from: pngs
    gather: )" +
           gather + R"(
    output: "build/mod.zip"
)";
}

// The three inputs, built once: the start of every test of what a change rebuilds.
void built_once(TestProject& t) {
    three_inputs(t);
    t.build(kTwoJobs);
}
} // namespace

TEST_CASE("first build runs every action, a second does nothing", "[incremental]") {
    TestProject t;
    three_inputs(t);
    auto s1 = t.build(kTwoJobs);
    CHECK(s1.built == 6);
    CHECK(s1.failed == 0);
    CHECK(t.exists("build/first/sub/b.png"));
    CHECK(t.exists("build/second/sub/c.png"));
    // Content check: second = 200 - (255 - x) for colour channels.
    auto src = af::read_png_file(t.path("src/a.png"));
    auto out = af::read_png_file(t.path("build/second/a.png"));
    CHECK(int(out.data[0]) == int(uint8_t(200 - (255 - src.data[0]))));

    auto s2 = t.build(kTwoJobs);
    CHECK(s2.built == 0);
    CHECK(s2.up_to_date == 6);
    CHECK(with_status(s2, "built").empty());
}

TEST_CASE("the report records each action", "[incremental][report]") {
    TestProject t;
    three_inputs(t);
    BuildOptions opt;
    opt.report_file = t.path("report.json").string();
    opt.trace_file = t.path("trace.json").string();
    t.build(kTwoJobs, opt);
    auto report = nlohmann::json::parse(t.read("report.json"));
    REQUIRE(report["actions"].size() == 6);
    for (const auto& a : report["actions"]) {
        CHECK(a["status"] == "built");
        CHECK(a["key"].get<std::string>().size() == 32);
        CHECK(a["outputs"].size() == 1);
        CHECK(a["reason"] == "new input");
    }
    auto trace = nlohmann::json::parse(t.read("trace.json"));
    CHECK(trace["traceEvents"].size() >= 12); // a step and a commit per action
    CHECK(std::any_of(trace["traceEvents"].begin(), trace["traceEvents"].end(),
                      [](const auto& e) { return e["ph"] == "X"; }));
    t.build(kTwoJobs, opt);
    report = nlohmann::json::parse(t.read("report.json"));
    for (const auto& a : report["actions"]) CHECK(a["status"] == "up-to-date");
}

TEST_CASE("changing one input rebuilds exactly its chain", "[incremental]") {
    TestProject t;
    built_once(t);
    t.write_png("src/sub/b.png", 4, 4, 9);
    auto s = t.build(kTwoJobs);
    CHECK(with_status(s, "built") == Strings{"first:src/sub/b.png", "second:build/first/sub/b.png"});
    CHECK(s.up_to_date == 4);
}

TEST_CASE("touching an input without changing it rebuilds nothing", "[incremental]") {
    TestProject t;
    built_once(t);
    std::string bytes = t.read("src/a.png");
    std::filesystem::remove(t.path("src/a.png"));
    t.write("src/a.png", bytes); // new inode and mtime, same content
    auto s = t.build(kTwoJobs);
    CHECK(s.built == 0);
}

TEST_CASE("changing a step parameter rebuilds that job only", "[incremental]") {
    TestProject t;
    built_once(t);
    std::string changed = kTwoJobs;
    changed.replace(changed.find("amount: 200"), 11, "amount: 100");
    BuildOptions opt;
    opt.explain = true;
    std::ostringstream out;
    opt.out = &out;
    auto s = t.build(changed, opt);
    CHECK(with_status(s, "built") ==
          Strings{"second:build/first/a.png", "second:build/first/sub/b.png", "second:build/first/sub/c.png"});
    CHECK(out.str().find("parameters changed") != std::string::npos);
}

TEST_CASE("a deleted output is rebuilt", "[incremental]") {
    TestProject t;
    built_once(t);
    std::filesystem::remove(t.path("build/second/sub/c.png"));
    auto s = t.build(kTwoJobs);
    CHECK(with_status(s, "built") == Strings{"second:build/first/sub/c.png"});
    CHECK(t.exists("build/second/sub/c.png"));
    for (const auto& a : s.actions)
        if (a.status == af::base::ActionStatus::Built) CHECK(a.reason == "output missing: build/second/sub/c.png");
}

TEST_CASE("an output edited by hand is never replaced silently", "[incremental][promise]") {
    TestProject t;
    built_once(t);
    std::string good = t.read("build/first/a.png");
    t.write("build/first/a.png", "edited by hand");
    // The action fails, naming the file and the way out; the edit stays.
    auto s = t.build(kTwoJobs);
    CHECK(with_status(s, "built").empty());
    REQUIRE(with_status(s, "failed") == Strings{"first:src/a.png"});
    for (const auto& a : s.actions)
        if (a.status == af::base::ActionStatus::Failed)
            CHECK_THAT(a.error, Catch::Contains("build/first/a.png") && Catch::Contains("--overwrite-edited"));
    CHECK(t.read("build/first/a.png") == "edited by hand");
    CHECK(s.exit_code() == 1);
    // Again: still refused (the failure is remembered, the edit still there).
    s = t.build(kTwoJobs);
    CHECK(with_status(s, "failed") == Strings{"first:src/a.png"});
    CHECK(t.read("build/first/a.png") == "edited by hand");
    // The user decides to discard it.
    BuildOptions o;
    o.overwrite_edited = true;
    s = t.build(kTwoJobs, o);
    CHECK(with_status(s, "built") == Strings{"first:src/a.png"});
    CHECK(t.read("build/first/a.png") == good);
    CHECK(t.build(kTwoJobs).built == 0);
}

TEST_CASE("removing an input removes its outputs", "[incremental]") {
    TestProject t;
    built_once(t);
    std::filesystem::remove(t.path("src/sub/b.png"));
    auto s = t.build(kTwoJobs);
    CHECK(s.removed == 2);
    CHECK(with_status(s, "removed") == Strings{"first:src/sub/b.png", "second:build/first/sub/b.png"});
    CHECK_FALSE(t.exists("build/first/sub/b.png"));
    CHECK_FALSE(t.exists("build/second/sub/b.png"));
    CHECK(t.exists("build/second/sub/c.png"));
    auto s2 = t.build(kTwoJobs);
    CHECK(s2.removed == 0);
    CHECK(s2.built == 0);
}

TEST_CASE("bad files mid-batch: the others complete, failures are listed", "[failure]") {
    TestProject t;
    three_inputs(t);
    t.write("src/broken.png", "not a png at all");
    BuildOptions opt;
    std::ostringstream err;
    opt.err = &err;
    auto s = t.build(kTwoJobs, opt);
    CHECK(s.failed == 1);
    CHECK(s.built == 6);
    CHECK(s.exit_code() == 1);
    CHECK(with_status(s, "failed") == Strings{"first:src/broken.png"});
    CHECK(err.str().find("first: src/broken.png: step 'invert'") != std::string::npos);
    // A failed action runs again next time; the good ones do not.
    auto s2 = t.build(kTwoJobs);
    CHECK(with_status(s2, "failed") == Strings{"first:src/broken.png"});
    CHECK(s2.built == 0);
}

TEST_CASE("fail-fast stops starting new actions", "[failure]") {
    TestProject t;
    for (int i = 0; i < 20; ++i) t.write("src/bad" + std::to_string(i) + ".png", "broken");
    BuildOptions opt;
    opt.fail_fast = true;
    opt.threads = 1;
    auto s = t.build(kTwoJobs, opt);
    CHECK(s.failed >= 1);
    CHECK(s.not_run >= 1);
    CHECK(s.failed + s.not_run == 20);
}

TEST_CASE("cancellation leaves no partial outputs and a consistent state", "[cancel]") {
    TestProject t;
    for (int i = 0; i < 12; ++i) t.write_png("src/f" + std::to_string(i) + ".png", 4, 4, uint8_t(i));
    const char* yaml = R"(assetforge: 1
jobs:
  slow:
    inputs: "src/*.png"
    steps: [ { slow: { ms: 30 } }, invert ]
    output: "out/{stem}.png"
)";
    // "Ctrl-C" once a few outputs exist (polls also happen while checking, so
    // counting polls would not say how far the build got).
    BuildOptions opt;
    opt.threads = 2;
    opt.cancelled = [&] {
        std::error_code ec;
        std::filesystem::directory_iterator it(t.path("out"), ec);
        return !ec && std::distance(it, std::filesystem::directory_iterator{}) >= 3;
    };
    auto s = t.build(yaml, opt);
    CHECK(s.cancelled);
    CHECK(s.exit_code() == 1);
    CHECK(s.built >= 3);
    CHECK(s.built < 12);
    for (const auto& e : std::filesystem::directory_iterator(t.path("out")))
        CHECK(e.path().filename().string().rfind(".af-tmp-", 0) != 0);
    auto s2 = t.build(yaml);
    CHECK(s2.built == 12 - s.built);
    CHECK(s2.up_to_date == s.built);
}

TEST_CASE("status (dry run) reports what would run without running", "[status]") {
    TestProject t;
    three_inputs(t);
    BuildOptions dry;
    dry.dry_run = true;
    auto s = t.build(kTwoJobs, dry);
    CHECK(with_status(s, "would-run") == Strings{"first:src/a.png", "first:src/sub/b.png", "first:src/sub/c.png"});
    CHECK_FALSE(t.exists("build/first/a.png"));
    t.build(kTwoJobs);
    t.write_png("src/a.png", 8, 8, 42);
    s = t.build(kTwoJobs, dry);
    CHECK(with_status(s, "would-run") == Strings{"first:src/a.png", "second:build/first/a.png"});
}

TEST_CASE("globs with spaces and unicode names", "[glob]") {
    TestProject t;
    t.write_png("src/with space/ü ñ 漢字.png", 2, 2, 5);
    t.write_png("src/plain.png", 2, 2, 6);
    auto s = t.build(R"(assetforge: 1
jobs:
  j:
    inputs: "src/**/*.png"
    steps: [ invert ]
    output: "out/{dir}/{stem}.png"
)");
    CHECK(s.built == 2);
    CHECK(t.exists("out/with space/ü ñ 漢字.png"));
    CHECK(t.exists("out/plain.png"));
}

TEST_CASE("1 → N items use metadata in the output template", "[template]") {
    TestProject t;
    t.write("src/x.bin", "hello");
    const char* yaml = R"(assetforge: 1
jobs:
  j:
    inputs: "src/*.bin"
    steps: [ split ]
    output: "out/{stem}_{part}.{ext}"
)";
    auto s = t.build(yaml);
    CHECK(s.built == 1);
    CHECK(t.read("out/x_0.bin") == "hello");
    CHECK(t.read("out/x_1.bin") == "hello");
    // Same output for two items: refused.
    auto s2 = t.build(R"(assetforge: 1
jobs:
  j:
    inputs: "src/*.bin"
    steps: [ split ]
    output: "out2/{stem}.{ext}"
)");
    CHECK(s2.failed == 1);
    CHECK(s2.actions[0].error.find("same output") != std::string::npos);
}

TEST_CASE("item names that climb out of the output directory are refused", "[template]") {
    TestProject t;
    t.write("src/x.bin", "x");
    StepTable steps = png_test_steps();
    steps.add({.name = "evil", .provider = "test", .run = [](StepContext&, std::vector<Item> items) {
                   for (auto& it : items) it.name = "../../escaped.bin";
                   return items;
               }});
    t.write("pipeline.yaml", R"(assetforge: 1
jobs:
  j:
    inputs: "src/*.bin"
    steps: [ evil ]
    output: "out/{dir}/{name}"
)");
    BuildOptions opt;
    std::ostringstream sink;
    opt.out = opt.err = &sink;
    auto s = run_build(load_pipeline(t.path("pipeline.yaml"), {}, steps), steps, opt);
    CHECK(s.failed == 1);
    CHECK(s.actions[0].error.find("..") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(t.root().parent_path() / "escaped.bin"));
}

TEST_CASE("zip gather is byte-identical across clean builds and tracks its inputs", "[zip]") {
    TestProject t;
    three_inputs(t);
    const std::string yaml = pngs_then_package("{ zip: { manifest: manifest.json } }");
    auto s1 = t.build(yaml);
    CHECK(s1.built == 4);
    std::string zip1 = t.read("build/mod.zip");
    REQUIRE(zip1.size() > 100);
    CHECK(zip1.find("sub/b.png") != std::string::npos);
    CHECK(zip1.find("manifest.json") != std::string::npos);
    std::filesystem::remove_all(t.path("build"));
    std::filesystem::remove_all(t.path(".assetforge"));
    // Different mtimes for the inputs the second time round.
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    t.write_png("src/a.png", 8, 8, 1);
    auto s2 = t.build(yaml);
    CHECK(s2.built == 4);
    CHECK(t.read("build/mod.zip") == zip1);
    auto s3 = t.build(yaml);
    CHECK(s3.built == 0);
    t.write_png("src/sub/c.png", 2, 6, 77);
    auto s4 = t.build(yaml);
    CHECK(with_status(s4, "built") == Strings{"package:*", "pngs:src/sub/c.png"});
    CHECK(t.read("build/mod.zip") != zip1);
}

TEST_CASE("a zip gather updates only the members whose inputs changed, into the bytes of a fresh zip", "[zip]") {
    TestProject t;
    for (int i = 0; i < 12; ++i) t.write_png("src/t" + std::to_string(i) + ".png", 16, 16, i + 1);
    const std::string yaml = pngs_then_package("{ zip: { manifest: manifest.json } }");
    auto package = [](const BuildSummary& s) {
        for (const auto& a : s.actions)
            if (a.job == "package") return a;
        FAIL("no package action");
        return ActionResult{};
    };
    auto s1 = t.build(yaml);
    CHECK(package(s1).results.zip_reused == 0u);
    t.write_png("src/t3.png", 16, 16, 99);
    t.write_png("src/t12.png", 8, 8, 5);
    auto s2 = t.build(yaml);
    CHECK(with_status(s2, "built") == Strings{"package:*", "pngs:src/t12.png", "pngs:src/t3.png"});
    // 11 PNGs kept as stored; t3, t12 and the manifest compressed.
    CHECK(package(s2).results.zip_reused == 11u);
    CHECK(package(s2).results.zip_entries == 13u);
    const std::string updated = t.read("build/mod.zip");
    std::filesystem::remove_all(t.path("build"));
    std::filesystem::remove_all(t.path(".assetforge"));
    auto fresh = t.build(yaml);
    CHECK(package(fresh).results.zip_reused == 0u);
    CHECK(t.read("build/mod.zip") == updated);
    // Nothing left in the scratch folder.
    CHECK(std::filesystem::is_empty(t.path(".assetforge/scratch")));
}

TEST_CASE("gather does not run when an upstream action failed", "[zip][failure]") {
    TestProject t;
    three_inputs(t);
    t.write("src/bad.png", "broken");
    auto s = t.build(pngs_then_package("zip"));
    CHECK(s.failed == 1);
    CHECK(with_status(s, "not-run") == Strings{"package:*"});
    CHECK_FALSE(t.exists("build/mod.zip"));
}

TEST_CASE("needs: a glob job waits for the job it needs", "[graph]") {
    TestProject t;
    three_inputs(t);
    auto s = t.build(R"(assetforge: 1
jobs:
  pack:
    needs: [ pngs ]
    inputs: "build/png/**/*.png"
    gather: { step: zip, compression: store }
    output: "build/mod.zip"
  pngs:
    inputs: "src/**/*.png"
    steps: [ copy ]
    output: "build/png/{dir}/{name}"
)");
    CHECK(s.built == 4);
    CHECK(s.failed == 0);
    std::string zip = t.read("build/mod.zip");
    // Stored entries keep the PNG bytes verbatim.
    CHECK(zip.find(t.read("src/sub/c.png")) != std::string::npos);
}

TEST_CASE("clean removes recorded outputs", "[clean]") {
    TestProject t;
    built_once(t);
    Pipeline p = load_pipeline(t.path("pipeline.yaml"), {}, t.steps());
    auto c = clean_outputs(p, {});
    CHECK(c.removed_files == 6);
    CHECK_FALSE(t.exists("build/first/a.png"));
    auto s = t.build(kTwoJobs);
    CHECK(s.built == 6);
}

TEST_CASE("a changed plugin identity rebuilds what it produced", "[incremental]") {
    TestProject t;
    built_once(t);
    BuildOptions opt;
    opt.report_file = t.path("r.json").string();
    t.write("pipeline.yaml", kTwoJobs);
    std::ostringstream sink;
    opt.out = opt.err = &sink;
    opt.tool_identity = [](const std::string&) { return std::string("testpng@2#1"); };
    auto s = run_build(load_pipeline(t.path("pipeline.yaml"), {}, t.steps()), t.steps(), opt);
    CHECK(s.built == 6);
    CHECK(s.actions[0].reason.find("plugin testpng changed") == 0);
}

TEST_CASE("files a step parameter names are part of the action's key", "[incremental][promise]") {
    TestProject t;
    t.write("src/a.txt", "a");
    t.write("extra/1.bin", "one");
    const char* yaml =
        "assetforge: 1\njobs:\n  j:\n    inputs: \"src/*.txt\"\n    steps: [ { append: { from: extra } } ]\n"
        "    output: \"out/{name}\"\n";
    REQUIRE(t.build(yaml).built == 1);
    CHECK(t.read("out/a.txt") == "aone");
    CHECK(t.build(yaml).built == 0);
    t.write("extra/1.bin", "ONE"); // edited
    auto s = t.build(yaml);
    CHECK(s.built == 1);
    CHECK(t.read("out/a.txt") == "aONE");
    t.write("extra/2.bin", "two"); // added
    CHECK(t.build(yaml).built == 1);
    CHECK(t.read("out/a.txt") == "aONEtwo");
    std::filesystem::remove(t.path("extra/2.bin")); // removed
    CHECK(t.build(yaml).built == 1);
    CHECK(t.read("out/a.txt") == "aONE");
    // A file in the folder that links out of the project fails the action, unread.
    TestProject outside;
    outside.write("secret", "SECRET");
    std::filesystem::create_symlink(outside.path("secret"), t.path("extra/3.bin"));
    s = t.build(yaml);
    REQUIRE(s.failed == 1);
    for (const auto& a : s.actions)
        if (a.status == af::base::ActionStatus::Failed)
            CHECK_THAT(a.error, Catch::Contains("extra/3.bin") && Catch::Contains("follow_links"));
    CHECK(t.read("out/a.txt") == "aONE");
}
