// Warnings (information a step discarded) belong to the outputs, not to the
// run that happened to make them: an action that is up to date shows the
// warnings of the build that wrote its outputs, once, in the summary and in
// every report, and `--warnings-as-errors` fails on them as on a clean build.
// Its trace record carries them too.
#include "cli_run.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include "normal_png.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>

namespace fs = std::filesystem;
using namespace af::test;

namespace {

size_t count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t p = 0; (p = text.find(what, p)) != std::string::npos; p += what.size()) ++n;
    return n;
}

} // namespace

TEST_CASE("build: an up-to-date action shows the warnings of the build that wrote it, and they fail CI") {
    TempDir dir("af-kept-warn");
    lossy_project(dir);
    auto r = run_cli("build", dir.path());
    INFO(r.out);
    REQUIRE(r.code == 0);
    REQUIRE_THAT(r.out, Catch::Contains("warning: j: in/glass.png: alpha dropped"));

    r = run_cli("build", dir.path());
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("0 built") && Catch::Contains("1 up to date") && Catch::Contains("2 warning(s)"));
    CHECK_THAT(r.out, Catch::Contains("warning: j: in/glass.png: alpha dropped"));
    CHECK_THAT(r.out, Catch::Contains("(from an earlier build)"));
    CHECK(count(r.out, "alpha dropped") == 1); // once per action

    r = run_cli("build --warnings-as-errors --report report.json", dir.path());
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("error: j: in/glass.png: alpha dropped"));
    CHECK_THAT(r.out, Catch::Contains("warning(s) treated as errors"));
    auto report = nlohmann::json::parse(slurp(dir / "report.json"));
    CHECK(report["warnings"] == 2);
    CHECK(report["up_to_date"] == 1);
    const auto& a = report["actions"][0];
    CHECK(a["status"] == "up-to-date");
    REQUIRE(a["metrics"]["warnings"].size() == 2);
    CHECK_THAT(a["metrics"]["warnings"][0].get<std::string>(), Catch::StartsWith("alpha dropped"));
    CHECK(a["metrics"]["warnings_from"] == "an earlier build");

    r = run_cli("build --warnings-as-errors --report report.xml", dir.path());
    CHECK(r.code == 1);
    const std::string xml = slurp(dir / "report.xml");
    CHECK_THAT(xml, Catch::Contains("type=\"warning\"") && Catch::Contains("failures=\"1\""));
    CHECK_THAT(xml, Catch::Contains("<system-err>warning: alpha dropped"));
    CHECK_THAT(xml, Catch::Contains("(from an earlier build)"));

    r = run_cli("build --report report.html", dir.path());
    CHECK(r.code == 0);
    const std::string html = slurp(dir / "report.html");
    CHECK_THAT(html, Catch::Contains("warning: alpha dropped") && Catch::Contains("(from an earlier build)"));

    // Rebuilt with nothing lost, nothing is said any more.
    dir.write("pipeline.yaml", "assetforge: 1\n"
                               "jobs:\n"
                               "  j:\n"
                               "    inputs: \"in/*.png\"\n"
                               "    steps: [ { encode: { format: bc3 } } ]\n"
                               "    output: \"out/{stem}.dds\"\n");
    r = run_cli("build --warnings-as-errors", dir.path());
    CHECK(r.code == 0);
    r = run_cli("build --warnings-as-errors", dir.path());
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("1 up to date") && !Catch::Contains("warning"));
}

TEST_CASE("build --trace: an action's record carries its warnings", "[trace]") {
    TempDir dir("af-kept-warn-trace");
    lossy_project(dir);
    auto r = run_cli("build --trace trace.json", dir.path());
    INFO(r.out);
    REQUIRE(r.code == 0);
    auto doc = nlohmann::json::parse(slurp(dir / "trace.json"));
    size_t actions = 0;
    for (const auto& e : doc.at("traceEvents")) {
        if (e.value("name", "") != "action") continue;
        ++actions;
        REQUIRE(e["args"].contains("warnings"));
        REQUIRE(e["args"]["warnings"].size() == 2);
        CHECK_THAT(e["args"]["warnings"][0].get<std::string>(), Catch::StartsWith("alpha dropped"));
    }
    CHECK(actions == 1);
    // Up to date: the action's record still says what its outputs lost.
    r = run_cli("build --trace trace.json", dir.path());
    REQUIRE(r.code == 0);
    doc = nlohmann::json::parse(slurp(dir / "trace.json"));
    actions = 0;
    for (const auto& e : doc.at("traceEvents")) {
        if (e.value("name", "") != "action") continue;
        ++actions;
        CHECK(e["args"]["status"] == "up-to-date");
        REQUIRE(e["args"].contains("warnings"));
        CHECK_THAT(e["args"]["warnings"][0].get<std::string>(), Catch::StartsWith("alpha dropped"));
    }
    CHECK(actions == 1);
}

TEST_CASE("build: a state from before warnings were kept stays up to date, but --warnings-as-errors runs again") {
    TempDir dir("af-kept-warn-v4");
    lossy_project(dir);
    REQUIRE(run_cli("build", dir.path()).code == 0);
    // The state as version 4 left it: no warnings column, no change times (of files, or in the outputs' records:
    // hash 16, size, mtime, inode 8 each, then the ctime this removes, a u32 length and the path).
    dir.write("to_v4.py", R"(import sqlite3, sys
d = sqlite3.connect(sys.argv[1])
d.execute('ALTER TABLE actions DROP COLUMN warnings')
d.execute('ALTER TABLE files DROP COLUMN ctime_ns')
for owner, job, inp, blob in d.execute('SELECT owner, job, input, outputs FROM actions').fetchall():
    old, p = b'', 0
    while p < len(blob):
        n = int.from_bytes(blob[p + 48:p + 52], 'little')
        old += blob[p:p + 40] + blob[p + 48:p + 52 + n]
        p += 52 + n
    d.execute('UPDATE actions SET outputs=? WHERE owner=? AND job=? AND input=?', (old, owner, job, inp))
d.execute('PRAGMA user_version=4')
d.commit()
)");
    auto sql = run_shell("/usr/bin/python3 '" + (dir / "to_v4.py").string() + "' '" +
                         (dir / ".assetforge/state.db").string() + "'");
    REQUIRE(sql.code == 0);
    auto r = run_cli("build", dir.path());
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("1 up to date"));
    r = run_cli("build --warnings-as-errors", dir.path());
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("1 built") && Catch::Contains("error: j: in/glass.png: alpha dropped"));
    // Known from here on.
    r = run_cli("build --warnings-as-errors", dir.path());
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("1 up to date") && Catch::Contains("(from an earlier build)"));
}
