#include "load/job_selection.hpp"
#include "test_project.hpp"

#include <catch2/catch.hpp>

#include <sstream>

using namespace af::base;
using namespace af::steps;
using namespace af::load;
using namespace af::engine;

TEST_CASE("selecting jobs keeps the named ones and what they depend on", "[config][jobs]") {
    StepTable steps = test::png_test_steps();
    const std::string yaml = R"(assetforge: 1
jobs:
  base: { inputs: "a/*", output: "o/base/{name}" }
  other: { inputs: "b/*", output: "o/other/{name}" }
  derived: { from: base, output: "o/derived/{name}" }
  late: { needs: [ derived ], inputs: "o/derived/*", output: "o/late/{name}" }
)";
    auto names = [](const Pipeline& p) {
        std::vector<std::string> v;
        for (const auto& j : p.jobs) v.push_back(j.name);
        return v;
    };
    auto p = parse_pipeline(yaml, "/proj/pipeline.yaml", {}, steps);
    select_jobs(p, {"late"});
    CHECK(names(p) == std::vector<std::string>{"base", "derived", "late"});
    p = parse_pipeline(yaml, "/proj/pipeline.yaml", {}, steps);
    select_jobs(p, {"other", "base"});
    CHECK(names(p) == std::vector<std::string>{"base", "other"});
    p = parse_pipeline(yaml, "/proj/pipeline.yaml", {}, steps);
    select_jobs(p, {});
    CHECK(p.jobs.size() == 4);
    try {
        select_jobs(p, {"derivd"});
        FAIL("expected an error");
    } catch (const std::invalid_argument& e) {
        CHECK(std::string(e.what()).find("'derivd' is not a valid job") != std::string::npos);
        CHECK(std::string(e.what()).find("did you mean 'derived'?") != std::string::npos);
    }
}

TEST_CASE("building a selection leaves the other jobs' outputs alone", "[jobs]") {
    test::TestProject t;
    t.write("a/x.txt", "x");
    t.write("b/y.txt", "y");
    const std::string yaml = R"(assetforge: 1
jobs:
  one: { inputs: "a/*", steps: [ copy ], output: "o/one/{name}" }
  two: { inputs: "b/*", steps: [ copy ], output: "o/two/{name}" }
)";
    auto s = t.build(yaml);
    REQUIRE(s.built == 2);
    t.write("b/y.txt", "changed");
    Pipeline p = load_pipeline(t.path("pipeline.yaml"), {}, t.steps());
    select_jobs(p, {"one"});
    BuildOptions opt;
    std::ostringstream sink;
    opt.out = opt.err = &sink;
    opt.progress = 0;
    auto s2 = run_build(p, t.steps(), opt);
    CHECK(s2.built == 0);
    CHECK(s2.up_to_date == 1);
    CHECK(s2.removed == 0); // two's records are not stale just because two did not run
    CHECK(t.read("o/two/y.txt") == "y");
    auto s3 = t.build(yaml);
    CHECK(test::with_status(s3, "built") == std::vector<std::string>{"two:b/y.txt"});
}
