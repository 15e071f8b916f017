// The HTML report's pictures through the command line: a no-op build keeps
// and shows the pictures of its up-to-date actions (they cost minutes and
// gigabytes to make again), `--report-pictures` sizes them, and the
// difference a player sees leaves out colour under alpha 0.
#include "cli_run.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <regex>
#include <set>

namespace fs = std::filesystem;
using af::test::run_in;
using af::test::slurp;

namespace {
const fs::path kImages = fs::path(AF_SOURCE_DIR) / "plugins/bc/tests/data";

const char* kPipeline = "assetforge: 1\njobs:\n  dds:\n    inputs: \"src/*.png\"\n"
                        "    steps: [ { encode: { format: auto, quality: fast } } ]\n"
                        "    output: \"out/{stem}.dds\"\n";

// Picture file → its bytes, for every PNG in the folder.
std::map<std::string, std::string> pictures(const fs::path& dir) {
    std::map<std::string, std::string> out;
    if (!fs::exists(dir)) return out;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".png") out[e.path().filename().string()] = slurp(e.path());
    return out;
}

// Every picture the page links, which must exist.
std::set<std::string> linked(const fs::path& project, const std::string& page) {
    std::set<std::string> out;
    static const std::regex src(R"re(src="(build\.html\.d/[^"]+)")re");
    for (auto it = std::sregex_iterator(page.begin(), page.end(), src); it != std::sregex_iterator(); ++it) {
        const std::string file = (*it)[1];
        CHECK(fs::is_regular_file(project / file));
        out.insert(file.substr(std::string("build.html.d/").size()));
    }
    return out;
}

// A PNG's width and height, from its IHDR.
std::pair<uint32_t, uint32_t> png_size(const std::string& png) {
    REQUIRE(png.size() > 24);
    auto be32 = [&](size_t at) {
        return uint32_t(uint8_t(png[at])) << 24 | uint32_t(uint8_t(png[at + 1])) << 16 |
               uint32_t(uint8_t(png[at + 2])) << 8 | uint32_t(uint8_t(png[at + 3]));
    };
    return {be32(16), be32(20)};
}

} // namespace

TEST_CASE("cli: a no-op build --report keeps the earlier build's pictures, links them and says what they cost") {
    af::test::TempDir t;
    t.copy(kImages / "a_palm_128.png", "src/a.png");
    t.copy(kImages / "d_rock_128.png", "src/b.png");
    t.write("pipeline.yaml", kPipeline);
    auto first = run_in(t.path(), "build --report build.html");
    INFO(first.out);
    REQUIRE(first.code == 0);
    const auto made = pictures(t / "build.html.d");
    REQUIRE(made.size() >= 10); // per texture: thumbnails, full size, the difference (and alpha, for a.png)
    CHECK(linked(t.path(), slurp(t / "build.html")).size() == made.size());

    auto noop = run_in(t.path(), "build --report build.html");
    INFO(noop.out);
    REQUIRE(noop.code == 0);
    CHECK_THAT(noop.out, Catch::Contains("0 built, 2 up to date"));
    CHECK(pictures(t / "build.html.d") == made); // nothing deleted, nothing made again
    const std::string page = slurp(t / "build.html");
    CHECK(linked(t.path(), page).size() == made.size());
    CHECK_THAT(page, Catch::Contains("2 texture actions (2 of them up to date: an earlier build's)"));
    uint64_t bytes = 0;
    for (const auto& [name, data] : made) bytes += data.size();
    CHECK_THAT(page, Catch::Contains("<span id=\"picture-bytes\" data-v=\"" + std::to_string(bytes) + "\">"));

    // An input changed by a build without the report: its old pictures are of another key, not shown and swept.
    t.copy(kImages / "g_caustics_128.png", "src/b.png");
    REQUIRE(run_in(t.path(), "build").code == 0);
    auto after = run_in(t.path(), "build --report build.html");
    REQUIRE(after.code == 0);
    const auto left = pictures(t / "build.html.d");
    const std::string page2 = slurp(t / "build.html");
    CHECK(linked(t.path(), page2).size() == left.size());
    CHECK(left.size() < made.size());
    CHECK_THAT(page2, Catch::Contains("1 texture actions (1 of them up to date"));
    for (const auto& [name, data] : left) CHECK(made.at(name) == data); // a.png's, untouched
}

TEST_CASE("cli: --report-pictures thumbs, full=MAXPX and none size the pictures, a wrong value names the valid ones") {
    af::test::TempDir t;
    t.copy(kImages / "a_palm_128.png", "seed.png");
    REQUIRE(run_in(t.path(), "convert seed.png src/big.png --resize 512x512").code == 0);
    t.write("pipeline.yaml", kPipeline);
    auto thumbs = run_in(t.path(), "build --report build.html --report-pictures thumbs");
    INFO(thumbs.out);
    REQUIRE(thumbs.code == 0);
    auto small = pictures(t / "build.html.d");
    REQUIRE(!small.empty());
    for (const auto& [name, png] : small) {
        INFO(name);
        CHECK(std::max(png_size(png).first, png_size(png).second) <= 96);
    }
    CHECK_THAT(slurp(t / "build.html"), Catch::Contains("512×512 (picture 96×96)"));

    // A no-op under another cap shows the pictures it has; a build that runs makes them at most 200 px, with
    // thumbnails beside them.
    auto noop = run_in(t.path(), "build --report build.html --report-pictures full=200");
    INFO(noop.out);
    REQUIRE(noop.code == 0);
    CHECK_THAT(noop.out, Catch::Contains("0 built, 1 up to date"));
    CHECK(pictures(t / "build.html.d") == small);
    fs::remove_all(t / "out");
    fs::remove_all(t / ".assetforge");
    auto capped = run_in(t.path(), "build --report build.html --report-pictures full=200");
    INFO(capped.out);
    REQUIRE(capped.code == 0);
    const auto mid = pictures(t / "build.html.d");
    uint32_t largest = 0;
    for (const auto& [name, png] : mid) largest = std::max({largest, png_size(png).first, png_size(png).second});
    CHECK(largest > 96);
    CHECK(largest <= 200);
    CHECK(linked(t.path(), slurp(t / "build.html")).size() == mid.size());

    auto none = run_in(t.path(), "build --report plain.html --report-pictures none");
    CHECK(none.code == 0);
    CHECK(!fs::exists(t / "plain.html.d"));
    CHECK(slurp(t / "plain.html").find("<img") == std::string::npos);

    auto bad = run_in(t.path(), "build --report build.html --report-pictures half");
    CHECK(bad.code == 2);
    CHECK_THAT(bad.out, Catch::Contains("--report-pictures expects none, thumbs, full or full=MAXPX"));
    auto tiny = run_in(t.path(), "build --report build.html --report-pictures full=10");
    CHECK(tiny.code == 2);
    CHECK_THAT(tiny.out, Catch::Contains("from 96"));
}

TEST_CASE("cli: a BC5 result of an RGBA source: the difference leaves out what the player cannot see, and says "
          "what was dropped") {
    af::test::TempDir t;
    t.copy(kImages / "a_palm_128.png", "src/palm.png");
    t.write("pipeline.yaml", "assetforge: 1\njobs:\n  dds:\n    inputs: \"src/*.png\"\n"
                             "    steps: [ { encode: { format: bc5, quality: fast } } ]\n"
                             "    output: \"out/{stem}.dds\"\n");
    auto r = run_in(t.path(), "build --report build.html");
    INFO(r.out);
    REQUIRE(r.code == 0);
    const std::string page = slurp(t / "build.html");
    CHECK_THAT(page, Catch::Contains("information dropped: alpha dropped"));
    CHECK_THAT(page, Catch::Contains("information dropped: blue dropped"));
    CHECK_THAT(page, Catch::Contains("not kept by the result (BC5_UNORM): B"));
    CHECK_THAT(page, Catch::Contains("the result keeps no alpha"));
    // The colour difference is transparent exactly where the source's alpha is 0 (Pillow reads both).
    const auto pics = pictures(t / "build.html.d");
    std::string diff;
    for (const auto& [name, png] : pics)
        if (name.size() > 9 && name.compare(name.size() - 9, 9, ".diff.png") == 0) diff = name;
    REQUIRE(!diff.empty());
    REQUIRE(pics.count(diff.substr(0, 16) + ".alpha.png"));
    t.write("mask.py", "import sys\nfrom PIL import Image\n"
                       "s = Image.open(sys.argv[1]).convert('RGBA'); d = Image.open(sys.argv[2]).convert('RGBA')\n"
                       "sa = [p[3] == 0 for p in s.getdata()]; da = [p[3] == 0 for p in d.getdata()]\n"
                       "assert any(sa) and not all(sa), 'the source has no transparent texels'\n"
                       "assert sa == da, 'the mask differs'\n"
                       "assert all(p[2] == 0 for p in d.getdata()), 'blue, not kept, is counted'\n"
                       "print('ok')\n");
    const auto sh =
        af::test::run_shell("/usr/bin/python3 '" + (t / "mask.py").string() + "' '" + (t / "src/palm.png").string() +
                            "' '" + (t / "build.html.d" / diff).string() + "'");
    INFO(sh.out);
    CHECK(sh.code == 0);
    CHECK_THAT(sh.out, Catch::Contains("ok"));
}
