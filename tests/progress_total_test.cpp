// The progress line's total is known before the first action runs and counts
// only the actions that will run (plan first): up-to-date actions are not in
// it, and `from` jobs and gathers downstream of a changed file are.
#include "cli_run.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <regex>

namespace fs = std::filesystem;

namespace {

// The totals of every "[done/total]" line, in order.
std::vector<int> totals(const std::string& out) {
    std::vector<int> v;
    static const std::regex line(R"(^\[(\d+)/(\d+)\] )");
    std::istringstream in(out);
    for (std::string s; std::getline(in, s);) {
        std::smatch m;
        if (std::regex_search(s, m, line)) v.push_back(std::stoi(m[2]));
    }
    return v;
}

} // namespace

TEST_CASE("build: the progress total is right from the first line and counts only what runs") {
    af::test::TempDir t;
    const fs::path images = fs::path(AF_SOURCE_DIR) / "plugins/bc/tests/data";
    for (const char* f : {"a_palm_128", "d_rock_128", "d_wallpaper_128", "n_rock_128", "g_caustics_128"})
        t.copy(images / (std::string(f) + ".png"), std::string("src/") + f + ".png");
    t.write("pipeline.yaml", R"(assetforge: 1
jobs:
  textures:
    inputs: "src/*.png"
    steps: [ mips, { encode: { format: bc1, quality: fast } } ]
    output: "out/{stem}.dds"
  previews:
    from: textures
    steps: [ decode ]
    output: "out/prev/{stem}.png"
  pack:
    from: textures
    gather: { zip: { compression: store } }
    output: "out/mod.zip"
)");
    auto first = af::test::run_in(t.path(), "build pipeline.yaml");
    REQUIRE(first.code == 0);
    CHECK(totals(first.out) == std::vector<int>(11, 11)); // 5 textures, 5 previews, 1 zip
    t.copy(images / "g_caustics_128.png", "src/a_palm_128.png");
    auto second = af::test::run_in(t.path(), "build pipeline.yaml");
    REQUIRE(second.code == 0);
    CHECK(totals(second.out) == std::vector<int>(3, 3)); // the changed texture, its preview, the zip
    auto none = af::test::run_in(t.path(), "build pipeline.yaml");
    CHECK(totals(none.out).empty());
    CHECK_THAT(none.out, Catch::Contains("0 built, 11 up to date"));
}

// A job that `needs` another is globbed only when that one is done, so its
// actions join the total then; the actions they feed `from` it must join
// with them: the count may grow, but never falls behind what is done.
TEST_CASE("build: a late (needs) job's downstream actions are in the total before they finish") {
    af::test::TempDir t;
    const fs::path images = fs::path(AF_SOURCE_DIR) / "plugins/bc/tests/data";
    for (const char* f : {"a_palm_128", "d_rock_128", "d_wallpaper_128", "n_rock_128"})
        t.copy(images / (std::string(f) + ".png"), std::string("src/") + f + ".png");
    t.write("pipeline.yaml", R"(assetforge: 1
jobs:
  first:
    inputs: "src/*.png"
    steps: [ copy ]
    output: "a/{name}"
  late:
    needs: [ first ]
    inputs: "a/*.png"
    steps: [ { resize: { scale: 0.5 } } ]
    output: "b/{name}"
  then:
    from: late
    steps: [ { encode: { format: bc1, quality: fast } } ]
    output: "c/{stem}.dds"
  again:
    from: then
    steps: [ decode ]
    output: "d/{stem}.png"
)");
    auto r = af::test::run_in(t.path(), "build pipeline.yaml -j2");
    REQUIRE(r.code == 0);
    static const std::regex line(R"(^\[(\d+)/(\d+)\] )");
    std::istringstream in(r.out);
    int lines = 0, last_total = 0;
    for (std::string s; std::getline(in, s);) {
        std::smatch m;
        if (!std::regex_search(s, m, line)) continue;
        ++lines;
        INFO(s);
        CHECK(std::stoi(m[1]) <= std::stoi(m[2]));
        last_total = std::stoi(m[2]);
    }
    CHECK(lines == 16);
    CHECK(last_total == 16);
}

TEST_CASE("build: the progress never shows more done than its total, also when a job waits on a failed one") {
    af::test::TempDir t;
    const fs::path images = fs::path(AF_SOURCE_DIR) / "plugins/bc/tests/data";
    for (const char* f : {"a_palm_128", "d_rock_128", "n_rock_128"})
        t.copy(images / (std::string(f) + ".png"), std::string("src/") + f + ".png");
    t.write("src/broken.png", "not a png at all");
    for (const char* f : {"d_wallpaper_128", "g_caustics_128"})
        t.copy(images / (std::string(f) + ".png"), std::string("late/") + f + ".png");
    t.write("pipeline.yaml", R"(assetforge: 1
jobs:
  textures:
    inputs: "src/*.png"
    steps: [ { encode: { format: bc1, quality: fast } } ]
    output: "out/{stem}.dds"
  previews:
    from: textures
    steps: [ decode ]
    output: "out/prev/{stem}.png"
  later:
    needs: [ textures ]
    inputs: "late/*.png"
    steps: [ { encode: { format: bc1, quality: fast } } ]
    output: "out/late/{stem}.dds"
)");
    auto r = af::test::run_in(t.path(), "build pipeline.yaml");
    INFO(r.out);
    CHECK(r.code == 1);
    static const std::regex line(R"(^\[(\d+)/(\d+)\] )");
    std::istringstream in(r.out);
    int lines = 0;
    for (std::string s; std::getline(in, s);) {
        std::smatch m;
        if (!std::regex_search(s, m, line)) continue;
        ++lines;
        CHECK(std::stoi(m[1]) <= std::stoi(m[2]));
    }
    CHECK(lines >= 4);
}

TEST_CASE("build: a job that needs a failed one is not run, and says so instead of blaming its pattern") {
    af::test::TempDir t;
    t.write("src/broken.png", "not a png at all");
    t.write("pipeline.yaml", R"(assetforge: 1
jobs:
  textures:
    inputs: "src/*.png"
    steps: [ { encode: { format: bc1, quality: fast } } ]
    output: "out/{stem}.dds"
  pack:
    needs: [ textures ]
    inputs: "out/*.dds"
    gather: { zip: { compression: store } }
    output: "dist/mod.zip"
)");
    auto r = af::test::run_in(t.path(), "build pipeline.yaml --report r.json");
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK(r.out.find("matches no file") == std::string::npos);
    CHECK_THAT(af::test::slurp(t.path() / "r.json"), Catch::Contains("not run: job 'textures' failed"));
}
