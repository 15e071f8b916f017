// Normal maps as a real game tree names and fills them, and information a
// conversion discards: the rule that decided and every loss are shown where
// the user looks (convert's summary, --explain, the JSON, JUnit and HTML
// reports), and --warnings-as-errors fails CI on a loss.
#include "cli_run.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include "normal_png.hpp"

#include <nlohmann/json.hpp>

#include <cstring>
#include <filesystem>

namespace fs = std::filesystem;
using af::test::run_cli;
using af::test::run_shell;
using af::test::slurp;
using af::test::TempDir;

namespace {

std::string q(const fs::path& p) { return af::test::quoted(p); }

void make_png(const fs::path& out, const std::string& args) { af::test::make_normal_png(out, args); }

std::string fourcc_of(const fs::path& dds) {
    std::string b = slurp(dds);
    REQUIRE(b.size() >= 128);
    return b.substr(84, 4);
}

nlohmann::json action_of(const nlohmann::json& report, const std::string& input) {
    for (const auto& a : report["actions"])
        if (a["input"] == input) return a;
    FAIL("no action for " << input);
    return {};
}

} // namespace

TEST_CASE("convert: a game-named normal map with data in alpha keeps its alpha, and says why") {
    TempDir dir("af-nm-convert");
    make_png(dir / "stone_furrowed_norm.png", "--alpha data");
    auto r = run_cli("convert " + q(dir / "stone_furrowed_norm.png") + " " + q(dir / "out.dds"));
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("BC3_UNORM (normal map with data in alpha"));
    CHECK_THAT(r.out, Catch::Contains("normal map: yes: file name token 'norm'"));
    CHECK(fourcc_of(dir / "out.dds") == "DXT5"); // not BC5, not an sRGB DX10 header
    // The same texels under a plain name: the texel rule, despite alpha and short vectors.
    fs::copy_file(dir / "stone_furrowed_norm.png", dir / "stone.png");
    r = run_cli("convert " + q(dir / "stone.png") + " " + q(dir / "stone.dds"));
    INFO(r.out);
    CHECK_THAT(r.out, Catch::Contains("normal map: yes: texels: "));
}

TEST_CASE("convert: discarded alpha is a warning naming the file, --warnings-as-errors fails without writing") {
    TempDir dir("af-nm-loss");
    make_png(dir / "glass.png", "--kind colour --alpha data");
    auto r = run_cli("convert " + q(dir / "glass.png") + " " + q(dir / "a.dds") + " --format bc5");
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("warning: " + (dir / "glass.png").string() + ": alpha dropped"));
    CHECK_THAT(r.out, Catch::Contains("blue dropped"));
    r = run_cli("convert " + q(dir / "glass.png") + " " + q(dir / "b.dds") + " --format bc1");
    CHECK_THAT(r.out, Catch::Contains("alpha reduced to one bit"));
    r = run_cli("convert " + q(dir / "glass.png") + " " + q(dir / "c.dds") + " --format bc5 --warnings-as-errors");
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("error: " + (dir / "glass.png").string() + ": alpha dropped"));
    CHECK_FALSE(fs::exists(dir / "c.dds"));
    // A container that picks its own format (XTF RGB565) is checked on what it wrote.
    r = run_cli("convert " + q(dir / "glass.png") + " " + q(dir / "d.xtf") + " --format RGB565");
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("alpha dropped") && Catch::Contains("R5G6B5"));
    // Nothing lost, nothing said.
    r = run_cli("convert " + q(dir / "glass.png") + " " + q(dir / "e.dds") + " --format bc3");
    CHECK(r.code == 0);
    CHECK_THAT(r.out, !Catch::Contains("warning"));
}

TEST_CASE("build: normal_maps patterns decide, and the rule is in --explain and every report") {
    TempDir dir("af-nm-build");
    make_png(dir / "in/rock_detail.png", "--alpha data");                  // texels say normal map
    make_png(dir / "in/stone_furrowed_norm.png", "--alpha data --seed 3"); // the name says it
    make_png(dir / "in/bark.png", "--kind colour");                        // colour
    dir.write("pipeline.yaml", "assetforge: 1\n"
                               "normal_maps: [\"**/bark*\"]\n"
                               "jobs:\n"
                               "  j:\n"
                               "    inputs: \"in/*.png\"\n"
                               "    normal_maps: [\"!**/rock_*\"]\n"
                               "    steps: [ mips, encode ]\n"
                               "    output: \"out/{stem}.dds\"\n");
    auto r = run_cli("build --explain --report report.json", dir.path());
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out,
               Catch::Contains("explain: j: in/stone_furrowed_norm.png: normal map: yes: file name token 'norm'"));
    CHECK_THAT(r.out,
               Catch::Contains("explain: j: in/rock_detail.png: normal map: no: pattern '!**/rock_*' of normal_maps"));
    CHECK_THAT(r.out, Catch::Contains("explain: j: in/bark.png: normal map: yes: pattern '**/bark*' of normal_maps"));
    auto report = nlohmann::json::parse(slurp(dir / "report.json"));
    auto stone = action_of(report, "in/stone_furrowed_norm.png");
    CHECK(stone["metrics"]["normal_map"] == "yes: file name token 'norm'");
    CHECK(stone["metrics"]["format"] == "BC3_UNORM");
    CHECK(action_of(report, "in/rock_detail.png")["metrics"]["format"] == "BC3_UNORM_SRGB"); // colour, as the job says
    CHECK(action_of(report, "in/bark.png")["metrics"]["format"] == "BC5_UNORM");
    // HTML: the rule beside the format.
    fs::remove_all(dir / "out");
    r = run_cli("build --report report.html --report-pictures false", dir.path());
    REQUIRE(r.code == 0);
    CHECK_THAT(slurp(dir / "report.html"), Catch::Contains("normal map: yes: file name token &#39;norm&#39;") ||
                                               Catch::Contains("normal map: yes: file name token 'norm'"));
}

TEST_CASE("build: discarded alpha is warned, reported and fails CI with --warnings-as-errors") {
    TempDir dir("af-nm-warn");
    af::test::lossy_project(dir);
    auto r = run_cli("build --report report.json", dir.path());
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("warning: j: in/glass.png: alpha dropped"));
    CHECK_THAT(r.out, Catch::Contains("1 built") && Catch::Contains("2 warning(s)"));
    auto report = nlohmann::json::parse(slurp(dir / "report.json"));
    CHECK(report["warnings"] == 2);
    CHECK_THAT(action_of(report, "in/glass.png")["metrics"]["warnings"][0].get<std::string>(),
               Catch::StartsWith("alpha dropped"));
    fs::remove_all(dir / "out");
    r = run_cli("build --warnings-as-errors --report report.xml", dir.path());
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK(fs::exists(dir / "out/glass.dds"));
    const std::string xml = slurp(dir / "report.xml");
    CHECK_THAT(xml, Catch::Contains("type=\"warning\"") && Catch::Contains("failures=\"1\""));
    CHECK_THAT(xml, Catch::Contains("<system-err>warning: alpha dropped"));
    fs::remove_all(dir / "out");
    r = run_cli("build --report report.html", dir.path());
    REQUIRE(r.code == 0);
    const std::string html = slurp(dir / "report.html");
    CHECK_THAT(html, Catch::Contains("warning: alpha dropped"));
    // The difference view says what the format dropped, and the max error marks the channel: not a bare 255.
    CHECK_THAT(html, Catch::Contains("information dropped: alpha dropped"));
    CHECK_THAT(html, Catch::Contains("(not kept)</small>"));
    // A container that picks its own format: XTF's RGB565 keeps no alpha.
    dir.write("xtf.yaml", "assetforge: 1\n"
                          "jobs:\n"
                          "  x:\n"
                          "    inputs: \"in/*.png\"\n"
                          "    steps: [ { write: { format: RGB565 } } ]\n"
                          "    output: \"xbox/{stem}.xtf\"\n");
    r = run_cli("build xtf.yaml --warnings-as-errors", dir.path());
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("error: x: in/glass.png: alpha dropped") && Catch::Contains("R5G6B5"));
}

// Issue 43, item 4: the rule was asked only when mips were made, so `match`
// against a 1-mip BC5 original called a real normal map "not a normal map"
// while `info --normal-map` said it was one, and --warnings-as-errors refused it.
TEST_CASE("convert --like a 1-mip BC5 or BC5_SNORM normal map: one verdict with info and with mips, no loss") {
    TempDir dir("af-nm-1mip");
    const fs::path data = fs::path(AF_SOURCE_DIR) / "tests/data";
    // A real normal map under a name without a token: the texels decide, in every route alike.
    fs::copy_file(data / "images/n_stk_generic_rock_crop128.png", dir / "wall.png");
    auto r = run_cli("convert " + q(dir / "wall.png") + " " + q(dir / "orig.dds") + " --format bc5 --no-mips");
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, !Catch::Contains("blue dropped"));
    fs::copy_file(data / "snorm/rock_bc5_snorm_1mip.dds", dir / "orig_s.dds");
    for (const char* orig : {"orig.dds", "orig_s.dds"}) {
        INFO(orig);
        r = run_cli("info --normal-map " + q(dir / orig));
        INFO(r.out);
        CHECK_THAT(r.out, Catch::Contains("normal map: yes"));
        // An edit with full XYZ vectors (blue is no longer the export's empty channel).
        r = run_cli("convert -y " + q(dir / "wall.png") + " " + q(dir / "edit.dds") + " --like " + q(dir / orig) +
                    " --warnings-as-errors");
        INFO(r.out);
        CHECK(r.code == 0);
        CHECK_THAT(r.out, Catch::Contains("normal map: yes"));
        // The original's own export (16-bit for SNORM), stored back: nothing lost that the original had.
        r = run_cli("convert -y " + q(dir / orig) + " " + q(dir / "export.png"));
        REQUIRE(r.code == 0);
        r = run_cli("convert -y " + q(dir / "export.png") + " " + q(dir / "back.dds") + " --like " + q(dir / orig) +
                    " --warnings-as-errors");
        INFO(r.out);
        CHECK(r.code == 0);
    }
    // The pipeline's `match` says the same as convert.
    dir.write("pipeline.yaml", "assetforge: 1\n"
                               "jobs:\n"
                               "  j:\n"
                               "    inputs: \"wall.png\"\n"
                               "    steps: [ { encode: { format: match, like: orig.dds } } ]\n"
                               "    output: \"out/{stem}.dds\"\n");
    r = run_cli("build --warnings-as-errors", dir.path());
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK(fs::exists(dir / "out/wall.dds"));
}

TEST_CASE("convert --like a 1-mip BC5 original: a colour photo is still not a normal map, and its blue is a loss") {
    TempDir dir("af-nm-1mip-photo");
    const fs::path data = fs::path(AF_SOURCE_DIR) / "tests/data/images";
    fs::copy_file(data / "d_dark-wall-wood_crop256.png", dir / "wood.png");
    auto r = run_cli("convert " + q(dir / "wood.png") + " " + q(dir / "orig.dds") + " --format bc5 --no-mips");
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("blue dropped"));
    r = run_cli("info --normal-map " + q(dir / "orig.dds"));
    CHECK_THAT(r.out, Catch::Contains("normal map: no"));
    r = run_cli("convert " + q(dir / "wood.png") + " " + q(dir / "edit.dds") + " --like " + q(dir / "orig.dds") +
                " --warnings-as-errors");
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("blue dropped"));
    CHECK_FALSE(fs::exists(dir / "edit.dds"));
}
