// --trace: every phase of every action is a slice (read file, key, parse,
// each step, encode <container>, hash, write file, commit), with the bytes it
// handled, and the slices account for the action's time.
#include "cli_run.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <set>

namespace fs = std::filesystem;
using af::test::run_cli;
using af::test::slurp;
using af::test::TempDir;

namespace {

const fs::path kTraceData = AF_TEST_DATA;

struct Slice {
    std::string name, input;
    int64_t ts, dur, bytes;
    int tid;
};

std::vector<Slice> slices(const fs::path& trace) {
    auto doc = nlohmann::json::parse(slurp(trace));
    std::vector<Slice> v;
    for (const auto& e : doc.at("traceEvents"))
        if (e.at("ph") == "X")
            v.push_back({e.at("name"), e.at("args").at("input"), e.at("ts"), e.at("dur"),
                         e.at("args").value("bytes", int64_t(-1)), e.at("tid")});
    return v;
}

// Thread-name metadata ("M" events): the worker each track belongs to.
std::map<int, std::string> thread_names(const fs::path& trace) {
    auto doc = nlohmann::json::parse(slurp(trace));
    std::map<int, std::string> m;
    for (const auto& e : doc.at("traceEvents"))
        if (e.at("ph") == "M" && e.at("name") == "thread_name") m[e.at("tid")] = e.at("args").at("name");
    return m;
}

} // namespace

TEST_CASE("build --trace: each action's phases are slices with their bytes, covering the action's time",
          "[trace][e2e]") {
    TempDir t("af-trace-test");
    t.copy(kTraceData / "images" / "a_palm_b.png", "seed.png");
    for (const char* n : {"a", "b"})
        REQUIRE(run_cli(std::string("convert seed.png src/") + n + ".png --resize 1024x1024", t.path()).code == 0);
    t.write("pipeline.yaml", "assetforge: 1\njobs:\n"
                             "  dds:\n    inputs: \"src/*.png\"\n"
                             "    steps: [ mips, { encode: { format: bc1 } } ]\n    output: \"out/{stem}.dds\"\n"
                             "  png:\n    from: dds\n    steps: [ decode ]\n    output: \"png/{stem}.png\"\n");
    auto r = run_cli("build -j1 --trace trace.json", t.path());
    INFO(r.out);
    REQUIRE(r.code == 0);
    auto all = slices(t / "trace.json");
    const auto workers = thread_names(t / "trace.json");
    for (const auto& s : all) CHECK(workers.count(s.tid)); // every track is named
    std::map<std::string, std::vector<Slice>> by_input;
    std::vector<Slice> actions;
    for (const auto& s : all) (s.name == "action" ? actions : by_input[s.input]).push_back(s);
    REQUIRE(actions.size() == 4);
    for (const auto& a : actions) {
        INFO(a.input);
        std::set<std::string> names;
        int64_t covered = 0;
        for (const auto& s : by_input[a.input]) {
            if (s.ts < a.ts || s.ts + s.dur > a.ts + a.dur) continue; // another action on the same input
            names.insert(s.name);
            covered += s.dur;
            if (s.name == "read file" || s.name == "parse" || s.name.rfind("encode ", 0) == 0 || s.name == "hash" ||
                s.name == "write file")
                CHECK(s.bytes > 0);
        }
        for (const char* phase : {"read file", "key", "parse", "hash", "write file", "commit"})
            CHECK(names.count(phase));
        const bool dds = a.input.rfind("src/", 0) == 0;
        CHECK(names.count(dds ? "encode dds" : "encode png"));
        for (const char* step : dds ? std::vector<const char*>{"mips", "encode"} : std::vector<const char*>{"decode"})
            CHECK(names.count(step));
        CHECK(covered >= a.dur * 9 / 10);
    }
    // The build's own phases, beside the actions: where a no-op build's time goes.
    std::map<std::string, Slice> phase;
    for (const auto& s : all)
        if (s.input.empty()) phase.emplace(s.name, s);
    for (const char* p : {"load state", "glob and stat inputs", "plan", "checks and actions", "save state"})
        REQUIRE(phase.count(p));
    CHECK(phase["plan"].ts >= phase["load state"].ts + phase["load state"].dur);
    CHECK(phase["plan"].ts >= phase["glob and stat inputs"].ts + phase["glob and stat inputs"].dur);
    CHECK(phase["checks and actions"].ts >= phase["plan"].ts + phase["plan"].dur);
    CHECK(phase["save state"].ts >= phase["checks and actions"].ts + phase["checks and actions"].dur);
    for (const auto& a : actions) {
        CHECK(a.ts >= phase["checks and actions"].ts);
        CHECK(a.ts + a.dur <= phase["checks and actions"].ts + phase["checks and actions"].dur);
    }
}

TEST_CASE("build --trace: a build where every action failed still writes its trace", "[trace][e2e]") {
    TempDir t("af-trace-fail");
    t.write("src/bad.png", "\x89PNG\r\n\x1a\nnot really");
    t.write("pipeline.yaml", "assetforge: 1\njobs:\n  dds:\n    inputs: \"src/*.png\"\n"
                             "    steps: [ mips ]\n    output: \"out/{stem}.dds\"\n");
    auto r = run_cli("build --trace trace.json", t.path());
    CHECK(r.code == 1);
    REQUIRE(fs::exists(t / "trace.json"));
    auto all = slices(t / "trace.json");
    CHECK(std::any_of(all.begin(), all.end(), [](const Slice& s) { return s.name == "action"; }));
    CHECK(std::any_of(all.begin(), all.end(), [](const Slice& s) { return s.name == "read file"; }));
}
