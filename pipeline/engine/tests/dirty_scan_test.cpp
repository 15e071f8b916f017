// The dirty scan on a MemoryDisk with an in-memory state: an action's key
// follows its inputs' names and bytes, and out_of_date names the first
// reason an action must run, or refreshes a record whose output was only touched.
#include "engine/build/action_record.hpp"
#include "engine/dirty_scan.hpp"
#include "test_project.hpp"

#include <catch2/catch.hpp>

using namespace af::steps;
using namespace af::load;
using namespace af::engine;
using namespace af::engine::test;

namespace {

constexpr const char* kScanRoot = "/assetforge-dirty-scan";

struct Scan {
    StepTable steps = png_test_steps();
    Pipeline p = parse_pipeline(R"(assetforge: 1
jobs:
  copy:
    inputs: "src/*.txt"
    steps: [ copy ]
    output: "out/{name}"
)",
                                std::string(kScanRoot) + "/pipeline.yaml", {}, steps);
    MemoryDisk disk;
    StateStore store{StateStore::InMemory{}, {"scan", "pipeline.yaml"}};
    DirtyScan scan{store, disk, ProjectPaths{kScanRoot}, kScanRoot, {}};
    JobRun run;

    Scan() {
        run.job = &p.jobs.at(0);
        run.signature = job_signature(*run.job);
    }
    std::string abs(const std::string& rel) const { return std::string(kScanRoot) + "/" + rel; }
    DirtyScan::Key key_of(const std::string& rel) {
        Input in;
        in.rel = rel;
        in.abs = abs(rel);
        in.name = rel.substr(rel.find('/') + 1);
        std::vector<Input> inputs{in};
        return scan.key(run, inputs);
    }
    // The record a build leaves for `out` written from `rel`.
    std::shared_ptr<const ActionRecord> built(const std::string& rel, const std::string& out) {
        auto k = key_of(rel);
        auto st = disk.stat(out, abs(out));
        BuiltAction a{"copy", rel, k.key, k.input_hash, run.signature, {}, {{out, disk.hash(abs(out)), *st}}, {}, 1};
        return std::make_shared<const ActionRecord>(built_record(std::move(a)));
    }
    // The reason in words, and `edited`: the output whose content differs from what the build wrote.
    std::string why(const std::shared_ptr<const ActionRecord>& rec, const std::string& rel,
                    std::optional<ActionRecord>& refreshed, std::string& edited) {
        const Staleness s = scan.out_of_date(*run.job, rec, run.signature, key_of(rel).input_hash, refreshed);
        if (s.kind == Staleness::OutputEdited) edited = s.detail;
        return s.text();
    }
};

} // namespace

TEST_CASE("the dirty scan's key follows the inputs' bytes, through the disk") {
    Scan s;
    s.disk.put(s.abs("src/a.txt"), "alpha");
    const auto k1 = s.key_of("src/a.txt");
    CHECK(s.key_of("src/a.txt").key == k1.key);
    s.disk.put(s.abs("src/a.txt"), "ALPHA");
    CHECK(!(s.key_of("src/a.txt").key == k1.key));
    s.disk.put(s.abs("src/a.txt"), "alpha"); // the same bytes again: the same key
    CHECK(s.key_of("src/a.txt").key == k1.key);
    CHECK_THROWS_WITH(s.key_of("src/missing.txt"), Catch::Contains("file not found"));
}

TEST_CASE("the dirty scan names why an action must run") {
    Scan s;
    s.disk.put(s.abs("src/a.txt"), "alpha");
    s.disk.put(s.abs("out/a.txt"), "alpha");
    std::optional<ActionRecord> refreshed;
    std::string edited;
    CHECK(s.why(nullptr, "src/a.txt", refreshed, edited) == "new input");

    auto rec = s.built("src/a.txt", "out/a.txt");
    CHECK(s.why(rec, "src/a.txt", refreshed, edited) == "");
    CHECK(!refreshed);

    auto failed = std::make_shared<const ActionRecord>(failed_record("copy", "src/a.txt", {}, rec, "copy: broken", 1));
    CHECK(s.why(failed, "src/a.txt", refreshed, edited) == "failed last time");

    s.disk.put(s.abs("src/a.txt"), "ALPHA");
    CHECK(s.why(rec, "src/a.txt", refreshed, edited) == "input changed");
    s.disk.put(s.abs("src/a.txt"), "alpha");

    s.disk.remove(s.abs("out/a.txt"));
    CHECK(s.why(rec, "src/a.txt", refreshed, edited) == "output missing: out/a.txt");

    s.disk.put(s.abs("out/a.txt"), "edited");
    CHECK(s.why(rec, "src/a.txt", refreshed, edited) == "output edited: out/a.txt");
    CHECK(edited == "out/a.txt");
}

TEST_CASE("the dirty scan refreshes the record of an output touched but not changed") {
    Scan s;
    s.disk.put(s.abs("src/a.txt"), "alpha");
    s.disk.put(s.abs("out/a.txt"), "alpha");
    auto rec = s.built("src/a.txt", "out/a.txt");
    s.disk.put(s.abs("out/a.txt"), "alpha"); // a new mtime and inode, the same bytes
    std::optional<ActionRecord> refreshed;
    std::string edited;
    CHECK(s.why(rec, "src/a.txt", refreshed, edited) == "");
    REQUIRE(refreshed);
    CHECK(refreshed->outputs.at(0).st == *s.disk.stat("out/a.txt", s.abs("out/a.txt")));
    CHECK(edited.empty());
}

TEST_CASE("action records are made one way: tools sorted once, a failure keeps earlier outputs") {
    BuiltAction a;
    a.job = "j";
    a.input = "i";
    a.tools = {"b@1", "a@1", "b@1"};
    a.written = {{"out/x", {}, {}}};
    auto r = built_record(a);
    CHECK(r.tools == "a@1;b@1");
    CHECK(r.status == ActionRecord::Status::Built);
    auto prev = std::make_shared<const ActionRecord>(r);
    auto f = failed_record("j", "i", {{"out/y", {}, {}}}, prev, "step: why", 2);
    CHECK(f.status == ActionRecord::Status::Failed);
    CHECK(f.error == "step: why");
    REQUIRE(f.outputs.size() == 2);
    CHECK(f.outputs[0].path == "out/y");
    CHECK(f.outputs[1].path == "out/x");
    CHECK(f.key == af::Hash128{});
}
