// `match` against originals of several surfaces (animated XTF frames, cube
// faces) and `convert --like` for every container the pipeline's `like`
// takes (issue 43, item 5): a surface is never dropped without a word, the
// two routes agree, and --format match is a word convert knows.
#include "cli_run.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

namespace fs = std::filesystem;
using af::test::run_cli;
using af::test::slurp;
using af::test::TempDir;

namespace {

// The SourcePP vtfpp fixtures of the XTF plugin (plugins/xtf/tests/data/SOURCE.md), with their source PNGs.
const fs::path kXtf = fs::path(AF_SOURCE_DIR) / "plugins/xtf/tests/data";

std::string one_job(const std::string& input, const std::string& like) {
    return "assetforge: 1\n"
           "jobs:\n"
           "  j:\n"
           "    inputs: \"" +
           input +
           "\"\n"
           "    steps: [ { encode: { format: match, like: \"" +
           like +
           "\" } } ]\n"
           "    output: \"out/{stem}.xtf\"\n";
}

} // namespace

TEST_CASE("convert --format match: needs --like, works with it, and no message calls it unknown") {
    TempDir dir("af-match-word");
    dir.copy(kXtf / "dxt1_64x64_mips/source.png", "one.png");
    REQUIRE(run_cli("convert one.png orig.dds --format bc1", dir.path()).code == 0);
    auto r = run_cli("convert one.png o.dds --format match", dir.path());
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK_THAT(r.out, Catch::Contains("--format match needs --like ORIGINAL"));
    CHECK_THAT(r.out, !Catch::Contains("unknown format 'match'"));
    r = run_cli("convert one.png o.dds --format match --like orig.dds", dir.path());
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("(matches orig.dds)"));
    r = run_cli("convert one.png o2.dds --like orig.dds", dir.path());
    REQUIRE(r.code == 0);
    CHECK(slurp(dir / "o.dds") == slurp(dir / "o2.dds"));
    // A word no route takes lists the ones it does, match with what it needs.
    r = run_cli("convert one.png o3.dds --format nonsense", dir.path());
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK_THAT(r.out, Catch::Contains("unknown format 'nonsense': use auto, keep, match (with the original"));
}

TEST_CASE("convert --like an XTF original writes what the pipeline's match writes") {
    TempDir dir("af-match-xtf");
    dir.copy(kXtf / "dxt1_64x64_mips/dxt1_64x64_mips.xtf", "orig.xtf");
    dir.copy(kXtf / "dxt1_64x64_mips/source.png", "in/one.png");
    auto r = run_cli("convert in/one.png conv.xtf --like orig.xtf", dir.path());
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("matches orig.xtf"));
    r = run_cli("info conv.xtf", dir.path());
    INFO(r.out);
    CHECK_THAT(r.out, Catch::Contains("DXT1"));
    CHECK_THAT(r.out, Catch::Contains("7 mip(s)"));
    dir.write("pipeline.yaml", one_job("in/*.png", "orig.xtf"));
    r = run_cli("build", dir.path());
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK(slurp(dir / "out/one.xtf") == slurp(dir / "conv.xtf"));
}

TEST_CASE("match never drops frames or faces: one edited picture against a 2-frame XTF or a cubemap is refused") {
    TempDir dir("af-match-surfaces");
    dir.copy(kXtf / "dxt1_32x32_anim2_mips_nofallback/dxt1_32x32_anim2_mips_nofallback.xtf", "anim.xtf");
    dir.copy(kXtf / "dxt1_32x32_anim2_mips_nofallback/source_frame1.png", "in/frame1.png");
    dir.copy(kXtf / "bgra8888_cube_16x16_mips/bgra8888_cube_16x16_mips.xtf", "cube.xtf");
    dir.copy(kXtf / "bgra8888_cube_16x16_mips/source_face0.png", "face0.png");
    auto r = run_cli("convert in/frame1.png o.xtf --like anim.xtf", dir.path());
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("anim.xtf") && Catch::Contains("2 layers (array layers or animation frames)") &&
                          Catch::Contains("where the input has 1"));
    CHECK_FALSE(fs::exists(dir / "o.xtf"));
    r = run_cli("convert face0.png c.dds --like cube.xtf", dir.path());
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("6 faces (a cubemap) where the input has 1"));
    CHECK_FALSE(fs::exists(dir / "c.dds"));
    // The pipeline refuses alike, and writes nothing.
    dir.write("pipeline.yaml", one_job("in/*.png", "anim.xtf"));
    r = run_cli("build", dir.path());
    INFO(r.out);
    CHECK(r.code != 0);
    CHECK_THAT(r.out, Catch::Contains("2 layers (array layers or animation frames)"));
    CHECK_FALSE(fs::exists(dir / "out/frame1.xtf"));
    // Every surface given (the original itself, re-encoded): all frames kept.
    r = run_cli("convert anim.xtf again.xtf --like anim.xtf", dir.path());
    INFO(r.out);
    REQUIRE(r.code == 0);
    r = run_cli("info again.xtf", dir.path());
    CHECK_THAT(r.out, Catch::Contains("2 frame(s)"));
}
