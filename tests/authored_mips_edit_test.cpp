// Mips as authored (issue 43, item 5): a texture whose levels were made by
// hand (a different picture per level) exports with `decode: {mips: all}` as
// one picture per level (rock.mip0.png, rock.mip1.png, …; sky.face3.mip1.png),
// and the rebuild keeps those levels as given under `format: match` rather
// than making them again from the top level, refusing a set that lacks one.
#include "cli_run.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using af::test::Run;
using af::test::run_cli;
using af::test::slurp;
using af::test::TempDir;

namespace {

using Rgba = std::array<uint8_t, 4>;

// An R8G8B8A8_UNORM DDS (DX10 header) of size×size texels whose level N is the flat colour levels[N]: no
// filter makes such a chain from its top level, so a rebuild that remade the levels would show.
void write_levels_dds(const fs::path& p, uint32_t size, const std::vector<Rgba>& levels) {
    std::vector<uint32_t> head(37, 0); // 'DDS ' + 124-byte header + 20-byte DX10 header, as 32-bit words
    std::memcpy(&head[0], "DDS ", 4);
    head[1] = 124, head[2] = 0x1 | 0x2 | 0x4 | 0x1000 | 0x20000, head[3] = size, head[4] = size;
    head[5] = size * 4, head[7] = uint32_t(levels.size());
    head[19] = 32, head[20] = 0x4;
    std::memcpy(&head[21], "DX10", 4);
    head[27] = 0x1000 | (levels.size() > 1 ? 0x8 | 0x400000 : 0);
    head[32] = 28 /* R8G8B8A8_UNORM */, head[33] = 3 /* 2D */, head[35] = 1 /* array size */;
    fs::create_directories(p.parent_path());
    std::ofstream f(p, std::ios::binary);
    f.write(reinterpret_cast<const char*>(head.data()), std::streamsize(head.size() * 4));
    for (size_t n = 0; n < levels.size(); ++n) {
        const uint32_t s = std::max<uint32_t>(1, size >> n);
        for (uint32_t i = 0; i < s * s; ++i) f.write(reinterpret_cast<const char*>(levels[n].data()), 4);
    }
}

// An R8G8B8A8_UNORM volume DDS of 8×8×4 texels and 3 levels, each slice of each level a flat colour of its own.
void write_volume_dds(const fs::path& p) {
    std::vector<uint32_t> head(37, 0);
    std::memcpy(&head[0], "DDS ", 4);
    head[1] = 124, head[2] = 0x1 | 0x2 | 0x4 | 0x1000 | 0x20000 | 0x800000, head[3] = 8, head[4] = 8;
    head[5] = 32, head[6] = 4, head[7] = 3;
    head[19] = 32, head[20] = 0x4;
    std::memcpy(&head[21], "DX10", 4);
    head[27] = 0x1000 | 0x8 | 0x400000, head[28] = 0x200000 /* VOLUME */;
    head[32] = 28 /* R8G8B8A8_UNORM */, head[33] = 4 /* 3D */, head[35] = 1;
    fs::create_directories(p.parent_path());
    std::ofstream f(p, std::ios::binary);
    f.write(reinterpret_cast<const char*>(head.data()), std::streamsize(head.size() * 4));
    for (uint32_t m = 0; m < 3; ++m)
        for (uint32_t z = 0; z < std::max(1u, 4u >> m); ++z) {
            const Rgba c{{uint8_t(40 * m + 10 * z), 100, uint8_t(200 - 40 * m), 255}};
            for (uint32_t i = 0; i < (8u >> m) * (8u >> m); ++i) f.write(reinterpret_cast<const char*>(c.data()), 4);
        }
}

const std::vector<Rgba> kLevels = {{{200, 30, 30, 255}}, {{30, 200, 30, 255}}, {{30, 30, 200, 255}}};

const char* kExport = "assetforge: 1\noutput_root: edit\njobs:\n  x:\n    inputs: \"game/*.dds\"\n"
                      "    steps: [ { decode: { mips: all } } ]\n"
                      "    output: \"edit/{stem}{surface}.{edit_ext}\"\n    keep_edits: true\n";
const char* kRebuild = "assetforge: 1\noutput_root: mod\njobs:\n  x:\n    inputs: \"edit/*.png\"\n    steps:\n"
                       "      - encode: { format: match, like: \"game/{stem}.dds\", unedited: original }\n"
                       "    output: \"mod/{stem}.dds\"\n";

// A tree of one texture of three hand-made levels, exported with every level.
void exported_levels(const TempDir& t) {
    write_levels_dds(t / "game/rock.dds", 16, kLevels);
    t.write("export.yaml", kExport);
    t.write("rebuild.yaml", kRebuild);
    Run r = run_cli("build export.yaml", t.path());
    INFO(r.out);
    REQUIRE(r.code == 0);
}

// Whether level `mip` of face `face` of `dds` has exactly the size and texels of the picture `png`.
bool same_level(const TempDir& t, const std::string& dds, int face, int mip, const std::string& png) {
    const std::string out =
        "level-" + std::to_string(face) + "-" + std::to_string(mip) + "-of-" + fs::path(dds).stem().string() + ".png";
    Run r =
        run_cli("convert " + dds + " " + out + " -y --face " + std::to_string(face) + " --mip " + std::to_string(mip),
                t.path());
    INFO(r.out);
    REQUIRE(r.code == 0);
    return run_cli("compare " + out + " " + png + " --max-error 0", t.path()).code == 0;
}

} // namespace

TEST_CASE("decode mips: all writes every level of a texture, named .mip<N>, each its level's size",
          "[authored-mips][e2e]") {
    TempDir t("af-am-export");
    exported_levels(t);
    for (int m = 0; m < 3; ++m) {
        INFO("mip " << m);
        CHECK(same_level(t, "game/rock.dds", 0, m, "edit/rock.mip" + std::to_string(m) + ".png"));
    }
    CHECK_FALSE(fs::exists(t / "edit/rock.png"));
    CHECK_FALSE(fs::exists(t / "edit/rock.mip3.png"));
    // The default stays one picture, the top level under its plain name.
    t.write("plain.yaml", "assetforge: 1\noutput_root: plain\njobs:\n  x:\n    inputs: \"game/*.dds\"\n"
                          "    steps: [ decode ]\n    output: \"plain/{stem}{surface}.{edit_ext}\"\n");
    REQUIRE(run_cli("build plain.yaml", t.path()).code == 0);
    CHECK(fs::exists(t / "plain/rock.png"));
    CHECK_FALSE(fs::exists(t / "plain/rock.mip0.png"));
    // A cubemap's levels: the face, then the level.
    const fs::path cube = fs::path(AF_SOURCE_DIR) / "plugins/xtf/tests/data/bgra8888_cube_16x16_mips/"
                                                    "bgra8888_cube_16x16_mips.xtf";
    REQUIRE(run_cli("convert '" + cube.string() + "' game/sky.dds", t.path()).code == 0);
    Run r = run_cli("build export.yaml", t.path());
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK(fs::exists(t / "edit/sky.face0.mip0.png"));
    CHECK(same_level(t, "game/sky.dds", 3, 4, "edit/sky.face3.mip4.png"));
    CHECK_FALSE(fs::exists(t / "edit/sky.face0.png"));
}

TEST_CASE("an unedited set of levels gives the original's bytes back", "[authored-mips][e2e]") {
    TempDir t("af-am-unedited");
    exported_levels(t);
    const fs::path cube = fs::path(AF_SOURCE_DIR) / "plugins/xtf/tests/data/bgra8888_cube_16x16_mips/"
                                                    "bgra8888_cube_16x16_mips.xtf";
    REQUIRE(run_cli("convert '" + cube.string() + "' game/sky.dds", t.path()).code == 0);
    REQUIRE(run_cli("build export.yaml", t.path()).code == 0);
    Run r = run_cli("build rebuild.yaml", t.path());
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("2 built")); // one action per texture, not per picture
    CHECK(slurp(t / "mod/rock.dds") == slurp(t / "game/rock.dds"));
    CHECK(slurp(t / "mod/sky.dds") == slurp(t / "game/sky.dds"));
}

TEST_CASE("editing one level keeps it as drawn, the others as they were, none made again from the top",
          "[authored-mips][e2e]") {
    TempDir t("af-am-edit");
    exported_levels(t);
    // The edit: level 1 painted yellow (a picture of its own size, 8×8).
    write_levels_dds(t / "paint/yellow.dds", 8, {{{220, 220, 20, 255}}});
    REQUIRE(run_cli("convert paint/yellow.dds edit/rock.mip1.png -y", t.path()).code == 0);
    Run r = run_cli("build rebuild.yaml", t.path());
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK(slurp(t / "mod/rock.dds") != slurp(t / "game/rock.dds"));
    r = run_cli("info mod/rock.dds", t.path());
    INFO(r.out);
    CHECK_THAT(r.out, Catch::Contains("3 mips"));
    CHECK(same_level(t, "mod/rock.dds", 0, 1, "edit/rock.mip1.png"));
    CHECK(same_level(t, "mod/rock.dds", 0, 0, "edit/rock.mip0.png"));
    // Level 2 is still the original's blue: a chain made from the red top level would be red there.
    CHECK(same_level(t, "mod/rock.dds", 0, 2, "edit/rock.mip2.png"));
    CHECK(same_level(t, "game/rock.dds", 0, 2, "edit/rock.mip2.png"));
}

TEST_CASE("a set of levels with one missing, of a wrong size or more than the original's is refused by name",
          "[authored-mips][e2e]") {
    TempDir t("af-am-missing");
    exported_levels(t);
    fs::remove(t / "edit/rock.mip2.png");
    Run r = run_cli("build rebuild.yaml", t.path());
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("rock.mip2.png"));
    CHECK_THAT(r.out, Catch::Contains("missing"));
    CHECK_FALSE(fs::exists(t / "mod/rock.dds"));
    // A gap in the levels is refused before the original is read.
    fs::rename(t / "edit/rock.mip1.png", t / "edit/rock.mip1.png.away");
    write_levels_dds(t / "paint/two.dds", 4, {{{1, 2, 3, 255}}});
    REQUIRE(run_cli("convert paint/two.dds edit/rock.mip2.png -y", t.path()).code == 0);
    r = run_cli("build rebuild.yaml", t.path());
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("missing rock.mip1.png"));
    fs::rename(t / "edit/rock.mip1.png.away", t / "edit/rock.mip1.png");
    // A level drawn at the size of another: level 1 of 16×16 is 8×8.
    write_levels_dds(t / "paint/big.dds", 16, {{{1, 2, 3, 255}}});
    REQUIRE(run_cli("convert paint/big.dds edit/rock.mip1.png -y", t.path()).code == 0);
    r = run_cli("build rebuild.yaml", t.path());
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("rock.mip1.png is 16x16"));
    CHECK_THAT(r.out, Catch::Contains("8x8"));
    // A level the original does not have: `match` keeps the original's count.
    write_levels_dds(t / "paint/mid.dds", 8, {{{1, 2, 3, 255}}});
    REQUIRE(run_cli("convert paint/mid.dds edit/rock.mip1.png -y", t.path()).code == 0);
    write_levels_dds(t / "paint/small.dds", 2, {{{1, 2, 3, 255}}});
    REQUIRE(run_cli("convert paint/small.dds edit/rock.mip3.png -y", t.path()).code == 0);
    r = run_cli("build rebuild.yaml", t.path());
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("rock.mip3.png"));
    CHECK_THAT(r.out, Catch::Contains("3 mip levels"));
    CHECK_FALSE(fs::exists(t / "mod/rock.dds"));
}

TEST_CASE("a set of levels lacking a whole layer the original has is refused, naming that layer's levels",
          "[authored-mips][e2e]") {
    TempDir t("af-am-layer");
    const fs::path anim = fs::path(AF_SOURCE_DIR) / "plugins/xtf/tests/data/dxt1_32x32_anim2_mips_nofallback/"
                                                    "dxt1_32x32_anim2_mips_nofallback.xtf";
    REQUIRE(run_cli("convert '" + anim.string() + "' game/arr.dds", t.path()).code == 0);
    t.write("export.yaml", kExport);
    t.write("rebuild.yaml", kRebuild);
    REQUIRE(run_cli("build export.yaml", t.path()).code == 0);
    REQUIRE(fs::exists(t / "edit/arr.layer1.mip0.png"));
    for (const auto& e : fs::directory_iterator(t / "edit"))
        if (e.path().filename().string().rfind("arr.layer1.", 0) == 0) fs::remove(e.path());
    Run r = run_cli("build rebuild.yaml", t.path());
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("missing arr.layer1.mip0.png, arr.layer1.mip1.png"));
    CHECK_FALSE(fs::exists(t / "mod/arr.dds"));
}

TEST_CASE("a volume's levels export with max(1, depth >> L) slices each and come back without making mips",
          "[authored-mips][e2e]") {
    TempDir t("af-am-volume");
    write_volume_dds(t / "game/fog.dds");
    t.write("export.yaml", kExport);
    t.write("rebuild.yaml", kRebuild);
    REQUIRE(run_cli("build export.yaml", t.path()).code == 0);
    CHECK(fs::exists(t / "edit/fog.slice3.mip0.png"));
    CHECK(fs::exists(t / "edit/fog.slice1.mip1.png"));
    CHECK(fs::exists(t / "edit/fog.slice0.mip2.png"));
    CHECK_FALSE(fs::exists(t / "edit/fog.slice2.mip1.png"));
    Run r = run_cli("build rebuild.yaml", t.path());
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK(slurp(t / "mod/fog.dds") == slurp(t / "game/fog.dds"));
    // An edit of one slice of level 1: the volume is rebuilt (a volume's mips are never made), that slice changed.
    t.copy(t / "edit/fog.slice0.mip1.png", "edit/fog.slice1.mip1.png");
    r = run_cli("build rebuild.yaml", t.path());
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK(slurp(t / "mod/fog.dds") != slurp(t / "game/fog.dds"));
    r = run_cli("info mod/fog.dds", t.path());
    INFO(r.out);
    CHECK_THAT(r.out, Catch::Contains("volume 8") && Catch::Contains("3 mips"));
}
