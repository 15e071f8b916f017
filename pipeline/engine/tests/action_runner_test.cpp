// run_action as the pure function action_runner.hpp says it is: input bytes
// and the job's steps in, output bytes, places and hashes out; the same
// every time, and nothing read or written on the way.
#include "base/output_template.hpp"
#include "engine/action_runner.hpp"
#include "test_project.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

using namespace af::base;
using namespace af::steps;
using namespace af::load;
using namespace af::report;
using namespace af::engine;
using namespace af::engine::test;

namespace {

constexpr const char* kRoot = "/assetforge-pure-action";

struct Runner {
    StepTable steps = png_test_steps();
    Pipeline p;
    ProjectPaths paths{kRoot};
    TraceLog trace;

    explicit Runner(const std::string& jobs_yaml)
        : p(parse_pipeline("assetforge: 1\njobs:\n" + jobs_yaml, std::string(kRoot) + "/pipeline.yaml", {}, steps)) {}

    std::vector<ActionOutput> run(std::vector<std::pair<std::string, std::string>> inputs, ActionTrail& trail,
                                  const std::string& input_name) {
        const Job& job = p.jobs.at(0);
        const OutputTemplate tpl = OutputTemplate::parse(job.output);
        ActionRun r{job, tpl, steps, std::filesystem::path(kRoot), paths, trace, {}};
        std::vector<Item> items;
        for (auto& [name, text] : inputs)
            items.push_back(bytes_item(name, std::vector<uint8_t>(text.begin(), text.end())));
        return run_action(r, std::move(items), input_name, input_name, trail);
    }
};

std::string text_of(const ActionOutput& o) { return std::string(o.data().begin(), o.data().end()); }

} // namespace

TEST_CASE("run_action turns input bytes into output bytes, places and hashes, touching no file") {
    Runner r(R"(  copy:
    inputs: "src/*.txt"
    steps: [ copy ]
    output: "out/{dir}/{stem}.bin"
)");
    ActionTrail trail;
    auto outs = r.run({{"sub/a.txt", "alpha"}}, trail, "sub/a.txt");
    REQUIRE(outs.size() == 1);
    CHECK(outs[0].abs == std::string(kRoot) + "/out/sub/a.bin");
    CHECK(outs[0].rel == "out/sub/a.bin");
    CHECK(text_of(outs[0]) == "alpha");
    CHECK(outs[0].hash == af::hash_bytes(outs[0].data()));
    CHECK(trail.step == "write");
    CHECK(!std::filesystem::exists(kRoot));
}

TEST_CASE("run_action gives the same bytes and hashes for the same inputs") {
    Runner r(R"(  split:
    inputs: "src/*.txt"
    steps: [ split ]
    output: "out/{stem}_{part}.txt"
)");
    ActionTrail t1, t2;
    auto a = r.run({{"a.txt", "alpha"}}, t1, "a.txt");
    auto b = r.run({{"a.txt", "alpha"}}, t2, "a.txt");
    REQUIRE(a.size() == 2);
    REQUIRE(b.size() == 2);
    for (size_t i = 0; i < a.size(); ++i) {
        CHECK(a[i].abs == b[i].abs);
        CHECK(a[i].hash == b[i].hash);
        CHECK(text_of(a[i]) == text_of(b[i]));
    }
    CHECK(a[0].rel == "out/a_0.txt");
    CHECK(a[1].rel == "out/a_1.txt");
    auto other = r.run({{"a.txt", "other"}}, t1, "a.txt");
    CHECK(!(other[0].hash == a[0].hash));
}

TEST_CASE("run_action refuses two items for one output, naming the step it was in") {
    Runner r(R"(  split:
    inputs: "src/*.txt"
    steps: [ split ]
    output: "out/{stem}.txt"
)");
    ActionTrail trail;
    CHECK_THROWS_WITH(r.run({{"a.txt", "alpha"}}, trail, "a.txt"),
                      Catch::Contains("two items map to the same output out/a.txt"));
    CHECK(trail.step == "write");
}

TEST_CASE("run_action stops between steps once cancelled") {
    Runner r(R"(  copy:
    inputs: "src/*.txt"
    steps: [ copy ]
    output: "out/{name}"
)");
    const Job& job = r.p.jobs.at(0);
    const OutputTemplate tpl = OutputTemplate::parse(job.output);
    ActionRun run{job, tpl, r.steps, std::filesystem::path(kRoot), r.paths, r.trace, [] { return true; }};
    ActionTrail trail;
    std::vector<Item> items;
    items.push_back(bytes_item("a.txt", std::vector<uint8_t>{'x'}));
    CHECK_THROWS_AS(run_action(run, std::move(items), "a.txt", "a.txt", trail), Cancelled);
    CHECK(trail.step == "copy");
}
