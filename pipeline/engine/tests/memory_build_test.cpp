// The whole build on a MemoryDisk with an in-memory state (memory_project):
// what runs, what it writes, what a second build leaves alone and what a
// change rebuilds, decided without one real file.
#include "memory_project.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

using namespace af::base;
using namespace af::engine;
using namespace af::engine::test;

namespace {

const char* kChain = R"(assetforge: 1
jobs:
  copy:
    inputs: "src/*.txt"
    steps: [ copy ]
    output: "out/{name}"
  again:
    from: copy
    steps: [ copy ]
    output: "out2/{name}"
)";

bool nothing_real() { return !std::filesystem::exists(MemoryProject::kRoot); }

} // namespace

TEST_CASE("a build on a MemoryDisk runs the plan and writes only to that disk") {
    MemoryProject m;
    m.put("src/a.txt", "alpha");
    m.put("src/b.txt", "beta");
    const size_t puts = m.disk.writes();
    auto s = m.build(kChain);
    CHECK(s.exit_code() == 0);
    CHECK(with_status(s, "built") ==
          std::vector<std::string>{"again:out/a.txt", "again:out/b.txt", "copy:src/a.txt", "copy:src/b.txt"});
    CHECK(m.text("out/a.txt") == "alpha");
    CHECK(m.text("out2/b.txt") == "beta");
    CHECK(m.disk.writes() - puts == 4);
    CHECK(m.state.holds == 1);
    CHECK(nothing_real());
}

TEST_CASE("a second build on a MemoryDisk writes nothing, a changed source rebuilds its chain") {
    MemoryProject m;
    m.put("src/a.txt", "alpha");
    m.put("src/b.txt", "beta");
    m.build(kChain);
    const size_t writes = m.disk.writes();

    auto again = m.build(kChain);
    CHECK(with_status(again, "up-to-date").size() == 4);
    CHECK(with_status(again, "built").empty());
    CHECK(m.disk.writes() == writes);

    m.put("src/a.txt", "ALPHA");
    auto changed = m.build(kChain);
    CHECK(with_status(changed, "built") == std::vector<std::string>{"again:out/a.txt", "copy:src/a.txt"});
    CHECK(m.text("out2/a.txt") == "ALPHA");
    CHECK(m.text("out2/b.txt") == "beta");
    CHECK(nothing_real());
}

TEST_CASE("a build on a MemoryDisk rebuilds a deleted output and keeps an edited one") {
    MemoryProject m;
    m.put("src/a.txt", "alpha");
    m.build(kChain);
    m.disk.remove(m.abs("out2/a.txt"));
    auto s = m.build(kChain);
    CHECK(with_status(s, "built") == std::vector<std::string>{"again:out/a.txt"});
    CHECK(m.text("out2/a.txt") == "alpha");

    m.disk.put(m.abs("out/a.txt"), "edited by hand");
    auto edited = m.build(kChain);
    CHECK(edited.exit_code() == 1);
    CHECK(with_status(edited, "failed") == std::vector<std::string>{"copy:src/a.txt"});
    CHECK(m.text("out/a.txt") == "edited by hand");
    CHECK(nothing_real());
}

TEST_CASE("a dry run on a MemoryDisk says what would run and writes nothing") {
    MemoryProject m;
    m.put("src/a.txt", "alpha");
    BuildOptions dry;
    dry.dry_run = true;
    const size_t puts = m.disk.writes();
    auto s = m.build(kChain, dry);
    // The downstream job has nothing to run on yet: no output of `copy` exists or is recorded.
    CHECK(with_status(s, "would-run") == std::vector<std::string>{"copy:src/a.txt"});
    CHECK(m.disk.writes() == puts);
    CHECK(m.state.holds == 0); // a dry run takes no lock
    CHECK(nothing_real());
}
