// A session (what `watch` keeps between builds): a rebuild of files whose
// content changed runs their actions and what follows, from the kept globs
// and records, and leaves every other action and record as it was; whatever
// it cannot decide so is a full build; records another process wrote are
// loaded again.
#include "engine/build_session.hpp"
#include "engine/state_store.hpp"
#include "test_project.hpp"

#include <catch2/catch.hpp>

#include <sstream>

using namespace af::base;
using namespace af::load;
using namespace af::engine;
using namespace af::engine::test;
using Strings = std::vector<std::string>;

namespace {

const char* kTwoJobs = R"(assetforge: 1
jobs:
  first:
    inputs: "src/**/*.png"
    steps: [ invert ]
    output: "build/first/{dir}/{stem}.png"
  second:
    from: first
    steps:
      - invert: { amount: 200 }
    output: "build/second/{dir}/{stem}.png"
)";

// A mod's textures, then its package: the gather must always hold every texture.
const char* kPackaged = R"(assetforge: 1
jobs:
  textures: { inputs: "src/**/*.png", steps: [ invert ], output: "build/tex/{dir}/{name}" }
  package: { from: textures, gather: zip, output: "build/mod.zip" }
)";

struct Session {
    TestProject& t;
    std::ostringstream sink;
    Pipeline p;
    BuildOptions opt;
    BuildSession s;
    Session(TestProject& tp, const std::string& yaml)
        : t(tp), p((tp.write("pipeline.yaml", yaml), load_pipeline(tp.path("pipeline.yaml"), {}, tp.steps()))),
          opt(options()), s(p, tp.steps()) {}
    BuildOptions options() {
        BuildOptions o;
        o.out = o.err = &sink;
        o.progress = 0;
        o.tool_identity = [](const std::string& name) { return name == "testpng" ? "testpng@1#0" : ""; };
        return o;
    }
    std::set<std::string> abs(std::initializer_list<const char*> rels) const {
        std::set<std::string> v;
        for (const char* r : rels) v.insert(t.path(r).lexically_normal().native());
        return v;
    }
};

void three_inputs(TestProject& t) {
    t.write_png("src/a.png", 8, 8, 1);
    t.write_png("src/sub/b.png", 4, 4, 2);
    t.write_png("src/sub/c.png", 2, 6, 3);
}

} // namespace

TEST_CASE("a session rebuilds a changed file's actions and nothing else, the other records stay", "[session]") {
    TestProject t;
    three_inputs(t);
    Session ss(t, kTwoJobs);
    CHECK(ss.s.build(ss.opt).built == 6);
    const std::string c_out = t.read("build/second/sub/c.png");

    t.write_png("src/sub/b.png", 4, 4, 9);
    const auto changed = ss.abs({"src/sub/b.png"});
    REQUIRE(ss.s.can_narrow(ss.opt, changed));
    auto s = ss.s.build_changed(ss.opt, changed);
    CHECK(s.actions.size() == 2); // neither a.png's nor c.png's actions were even checked
    CHECK(with_status(s, "built") == Strings{"first:src/sub/b.png", "second:build/first/sub/b.png"});
    CHECK(s.removed == 0);
    CHECK(t.read("build/second/sub/c.png") == c_out);

    // A plain build afterwards agrees: everything is up to date, every record was kept.
    auto full = t.build(kTwoJobs);
    CHECK(full.built == 0);
    CHECK(full.up_to_date == 6);
    CHECK(full.removed == 0);
}

TEST_CASE("a session's rebuild gives a gather, and the jobs that feed it, every file", "[session][zip]") {
    TestProject t;
    three_inputs(t);
    Session ss(t, kPackaged);
    CHECK(ss.s.build(ss.opt).built == 4);

    t.write_png("src/a.png", 8, 8, 7);
    const auto changed = ss.abs({"src/a.png"});
    REQUIRE(ss.s.can_narrow(ss.opt, changed));
    auto s = ss.s.build_changed(ss.opt, changed);
    CHECK(with_status(s, "built") == Strings{"package:*", "textures:src/a.png"});
    CHECK(with_status(s, "up-to-date") == Strings{"textures:src/sub/b.png", "textures:src/sub/c.png"});
    const std::string zip = t.read("build/mod.zip");
    for (const char* name : {"a.png", "sub/b.png", "sub/c.png"}) CHECK(zip.find(name) != std::string::npos);
    CHECK(t.build(kPackaged).built == 0);
}

TEST_CASE("a session builds everything when a rebuild of a few files cannot decide it", "[session]") {
    TestProject t;
    three_inputs(t);
    Session ss(t, kTwoJobs);
    const auto a = ss.abs({"src/a.png"});
    CHECK_FALSE(ss.s.can_narrow(ss.opt, a)); // no full build yet
    ss.s.build(ss.opt);
    CHECK(ss.s.can_narrow(ss.opt, a));

    t.write_png("src/new.png", 2, 2, 5);
    const auto with_new = ss.abs({"src/a.png", "src/new.png"});
    CHECK_FALSE(ss.s.can_narrow(ss.opt, with_new)); // a new file: the globs decide
    auto s = ss.s.build_changed(ss.opt, with_new);
    CHECK(with_status(s, "built") == Strings{"first:src/new.png", "second:build/first/new.png"});
    CHECK(s.up_to_date == 6); // a full build: every action checked

    BuildOptions report = ss.opt;
    report.report_file = t.path("report.json").native();
    CHECK_FALSE(ss.s.can_narrow(report, a)); // the report lists every action
    BuildOptions shard = ss.opt;
    shard.shard_index = 0;
    shard.shard_count = 2;
    CHECK_FALSE(ss.s.can_narrow(shard, a));
    CHECK_FALSE(ss.s.can_narrow(ss.opt, {}));
}

TEST_CASE("a session with a `needs` job always builds in full", "[session]") {
    TestProject t;
    three_inputs(t);
    Session ss(t, R"(assetforge: 1
jobs:
  late:
    needs: [ early ]
    inputs: "build/early/*.png"
    steps: [ invert ]
    output: "build/late/{name}"
  early:
    inputs: "src/**/*.png"
    steps: [ copy ]
    output: "build/early/{stem}.png"
)");
    ss.s.build(ss.opt);
    CHECK_FALSE(ss.s.can_narrow(ss.opt, ss.abs({"src/a.png"})));
}

TEST_CASE("a session loads the records again after another process wrote them", "[session][state]") {
    TestProject t;
    three_inputs(t);
    Session ss(t, kTwoJobs);
    ss.s.build(ss.opt);
    // Another shell builds a change the session never saw.
    t.write_png("src/sub/c.png", 2, 6, 8);
    CHECK(t.build(kTwoJobs).built == 2);
    // What it changed is not known to the session: the next rebuild is a full one, from the records loaded again
    // (kept records would call c.png changed and build it a second time).
    const auto c = ss.abs({"src/sub/c.png"});
    CHECK_FALSE(ss.s.can_narrow(ss.opt, c));
    auto s = ss.s.build_changed(ss.opt, c);
    CHECK(s.built == 0);
    CHECK(s.up_to_date == 6);
    // After that one, saves narrow again.
    t.write_png("src/a.png", 8, 8, 4);
    REQUIRE(ss.s.can_narrow(ss.opt, ss.abs({"src/a.png"})));
    s = ss.s.build_changed(ss.opt, ss.abs({"src/a.png"}));
    CHECK(with_status(s, "built") == Strings{"first:src/a.png", "second:build/first/a.png"});
    CHECK(s.up_to_date == 0);
}
