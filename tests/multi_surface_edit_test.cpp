// Multi-surface textures through an edit and back (issue 43, item 5): the
// shipped export writes one picture per surface under one naming
// (sky.face3.png, arr.layer1.png, anim.frame1.png; docs/edit-formats.md), and
// the shipped rebuild assembles every picture of a texture into one action
// that writes the whole texture, refusing, by name, a set with a surface
// missing.
#include "cli_run.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

namespace fs = std::filesystem;
using af::test::Run;
using af::test::run_cli;
using af::test::slurp;
using af::test::TempDir;

namespace {

// The SourcePP vtfpp fixtures of the XTF plugin (plugins/xtf/tests/data/SOURCE.md).
const fs::path kSurfaceFixtures = fs::path(AF_SOURCE_DIR) / "plugins/xtf/tests/data";
const fs::path kCubeXtf = kSurfaceFixtures / "bgra8888_cube_16x16_mips/bgra8888_cube_16x16_mips.xtf";
const fs::path kAnimXtf = kSurfaceFixtures / "dxt1_32x32_anim2_mips_nofallback/dxt1_32x32_anim2_mips_nofallback.xtf";

// A game tree of a cubemap (B8G8R8A8, 5 authored mips), a 2-layer BC1 array and a plain texture, as DDS,
// and the shipped configs beside it.
void surface_game_tree(const TempDir& t) {
    const fs::path configs = fs::path(AF_SOURCE_DIR) / "configs";
    for (const char* f : {"dds-tree-to-png.yaml", "png-to-game-dds.yaml", "presets.yaml"})
        t.copy(configs / f, std::string("configs/") + f);
    REQUIRE(run_cli("convert '" + kCubeXtf.string() + "' game/env/sky.dds", t.path()).code == 0);
    REQUIRE(run_cli("convert '" + kAnimXtf.string() + "' game/arr.dds", t.path()).code == 0);
    REQUIRE(run_cli("convert '" + (kSurfaceFixtures / "dxt1_64x64_mips/source.png").string() +
                        "' game/plain.dds --format bc1",
                    t.path())
                .code == 0);
}

const char* kExportSets = "build configs/dds-tree-to-png.yaml -D src=game -D out=edit";
const char* kRebuildSets = "build configs/png-to-game-dds.yaml -D src=edit -D original=game -D out=mod";

// Whether the top level of `face` of `dds` has exactly the texels of the picture `png`.
bool same_face_texels(const TempDir& t, const std::string& dds, int face, const std::string& png) {
    const std::string out = "face" + std::to_string(face) + "-of-" + fs::path(dds).stem().string() + ".png";
    Run r = run_cli("convert " + dds + " " + out + " -y --face " + std::to_string(face), t.path());
    INFO(r.out);
    REQUIRE(r.code == 0);
    return run_cli("compare " + out + " " + png + " --max-error 0", t.path()).code == 0;
}

} // namespace

TEST_CASE("the shipped export writes every face and layer of a texture, named by the surface", "[multi-surface][e2e]") {
    TempDir t("af-ms-export");
    surface_game_tree(t);
    Run r = run_cli(kExportSets, t.path());
    INFO(r.out);
    REQUIRE(r.code == 0);
    for (int f = 0; f < 6; ++f) CHECK(fs::exists(t / ("edit/env/sky.face" + std::to_string(f) + ".png")));
    CHECK(fs::exists(t / "edit/arr.layer0.png"));
    CHECK(fs::exists(t / "edit/arr.layer1.png"));
    CHECK(fs::exists(t / "edit/plain.png")); // a texture of one surface keeps its plain name
    CHECK_FALSE(fs::exists(t / "edit/env/sky.png"));
    CHECK_FALSE(fs::exists(t / "edit/arr.png"));
    // Each picture is its surface's top level.
    CHECK(same_face_texels(t, "game/env/sky.dds", 4, "edit/env/sky.face4.png"));
}

TEST_CASE("an unedited set of surface pictures gives the originals' bytes back, one action per texture",
          "[multi-surface][e2e]") {
    TempDir t("af-ms-unedited");
    surface_game_tree(t);
    REQUIRE(run_cli(kExportSets, t.path()).code == 0);
    Run r = run_cli(kRebuildSets, t.path());
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK(slurp(t / "mod/env/sky.dds") == slurp(t / "game/env/sky.dds"));
    CHECK(slurp(t / "mod/arr.dds") == slurp(t / "game/arr.dds"));
    CHECK(slurp(t / "mod/plain.dds") == slurp(t / "game/plain.dds"));
    // One action per texture, named by the texture, not by its pictures (and the zip of the mod).
    CHECK_THAT(r.out, Catch::Contains("4 built"));
    CHECK_THAT(r.out, Catch::Contains("game_dds: edit/env/sky.png") || Catch::Contains("edit/env/sky.png\n"));
    CHECK_FALSE(fs::exists(t / "mod/env/sky.face0.dds"));
    r = run_cli(std::string(kRebuildSets) + " --dry-run", t.path());
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("game_dds: 0 would run, 3 up to date") || Catch::Contains("4 up to date"));
    // status counts the texture once, and clean removes what its one record holds.
    r = run_cli("status configs/png-to-game-dds.yaml -D src=edit -D original=game -D out=mod -v", t.path());
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("game_dds: 3 up to date"));
    r = run_cli("clean configs/png-to-game-dds.yaml -D src=edit -D original=game -D out=mod", t.path());
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("removed 4 output(s) of 4 action(s)"));
    CHECK_FALSE(fs::exists(t / "mod/env/sky.dds"));
}

TEST_CASE("editing one face rebuilds the whole cubemap, that face changed and the others as they were",
          "[multi-surface][e2e]") {
    TempDir t("af-ms-edit");
    surface_game_tree(t);
    REQUIRE(run_cli(kExportSets, t.path()).code == 0);
    REQUIRE(run_cli(kRebuildSets, t.path()).code == 0);
    // The edit: face 3 becomes a copy of face 0 (the faces differ in the fixture).
    REQUIRE_FALSE(slurp(t / "edit/env/sky.face0.png") == slurp(t / "edit/env/sky.face3.png"));
    t.copy(t / "edit/env/sky.face0.png", "edit/env/sky.face3.png");
    Run r = run_cli(std::string(kRebuildSets) + " --dry-run", t.path());
    INFO(r.out);
    CHECK_THAT(r.out, Catch::Contains("game_dds: 1 would run (1 input changed), 2 up to date"));
    r = run_cli(kRebuildSets, t.path());
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("2 built, 2 up to date")); // sky.dds and the zip
    CHECK(slurp(t / "mod/env/sky.dds") != slurp(t / "game/env/sky.dds"));
    r = run_cli("info mod/env/sky.dds", t.path());
    INFO(r.out);
    CHECK_THAT(r.out, Catch::Contains("6 faces"));
    CHECK_THAT(r.out, Catch::Contains("5 mips"));
    CHECK_THAT(r.out, Catch::Contains("B8G8R8A8_UNORM"));
    CHECK(same_face_texels(t, "mod/env/sky.dds", 3, "edit/env/sky.face0.png"));
    for (int f : {0, 1, 2, 4, 5}) {
        INFO("face " << f);
        CHECK(same_face_texels(t, "mod/env/sky.dds", f, "edit/env/sky.face" + std::to_string(f) + ".png"));
    }
    // The arrays and the plain texture were not touched.
    CHECK(slurp(t / "mod/arr.dds") == slurp(t / "game/arr.dds"));
}

TEST_CASE("a set with a surface missing is refused, naming the missing picture", "[multi-surface][e2e]") {
    TempDir t("af-ms-missing");
    surface_game_tree(t);
    REQUIRE(run_cli(kExportSets, t.path()).code == 0);
    fs::remove(t / "edit/arr.layer1.png");
    fs::remove(t / "edit/env/sky.face5.png");
    Run r = run_cli(kRebuildSets, t.path());
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("arr.layer1.png"));
    CHECK_THAT(r.out, Catch::Contains("sky.face5.png"));
    CHECK_THAT(r.out, Catch::Contains("missing"));
    CHECK_FALSE(fs::exists(t / "mod/arr.dds"));
    CHECK_FALSE(fs::exists(t / "mod/env/sky.dds"));
    CHECK(fs::exists(t / "mod/plain.dds"));
    // A gap, or a surface given twice, is refused alike before any original is read.
    REQUIRE(run_cli(kExportSets, t.path()).code == 0); // writes back what is missing
    t.copy(t / "edit/arr.layer1.png", "edit/arr.frame1.png");
    r = run_cli(kRebuildSets, t.path());
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("arr.layer1.png") && Catch::Contains("arr.frame1.png"));
    // One picture named as the texture beside the pictures of its surfaces: two actions on one record, refused.
    fs::remove(t / "edit/arr.frame1.png");
    t.copy(t / "edit/env/sky.face0.png", "edit/env/sky.png");
    r = run_cli(kRebuildSets, t.path());
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK_THAT(r.out, Catch::Contains("edit/env/sky.png' is given twice: as one picture and as pictures of its "
                                      "surfaces"));
}

TEST_CASE("XTF animation frames export as name.frameN pictures and come back as the original's bytes",
          "[multi-surface][e2e]") {
    TempDir t("af-ms-xtf");
    t.copy(kAnimXtf, "game/anim.xtf");
    t.copy(fs::path(AF_SOURCE_DIR) / "configs/presets.yaml", "presets.yaml");
    t.write("export.yaml", "assetforge: 1\noutput_root: edit\ninclude: presets.yaml\njobs:\n  x:\n    inputs: "
                           "\"game/*.xtf\"\n    steps: [ editable ]\n"
                           "    output: \"edit/{stem}{surface}.{edit_ext}\"\n    keep_edits: true\n");
    t.write("rebuild.yaml", "assetforge: 1\noutput_root: mod\njobs:\n  x:\n    inputs: \"edit/*.png\"\n    steps:\n"
                            "      - encode: { format: match, like: \"game/{stem}.xtf\", unedited: original }\n"
                            "    output: \"mod/{stem}.xtf\"\n");
    Run r = run_cli("build export.yaml", t.path());
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK(fs::exists(t / "edit/anim.frame0.png"));
    CHECK(fs::exists(t / "edit/anim.frame1.png"));
    r = run_cli("build rebuild.yaml", t.path());
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK(slurp(t / "mod/anim.xtf") == slurp(t / "game/anim.xtf"));
    // Editing frame 1 re-encodes both frames into one file.
    t.copy(t / "edit/anim.frame0.png", "edit/anim.frame1.png");
    r = run_cli("build rebuild.yaml", t.path());
    INFO(r.out);
    REQUIRE(r.code == 0);
    r = run_cli("info mod/anim.xtf", t.path());
    INFO(r.out);
    CHECK_THAT(r.out, Catch::Contains("2 frame(s)"));
}

TEST_CASE("a job fed by the export job (from) builds the pictures of one texture as one action",
          "[multi-surface][e2e]") {
    TempDir t("af-ms-from");
    REQUIRE(run_cli("convert '" + kCubeXtf.string() + "' game/sky.dds", t.path()).code == 0);
    t.write("pipeline.yaml", "assetforge: 1\njobs:\n  edit:\n    inputs: \"game/*.dds\"\n    steps: [ decode ]\n"
                             "    output: \"edit/{stem}{surface}.{edit_ext}\"\n    keep_edits: true\n"
                             "  back:\n    from: edit\n    steps:\n"
                             "      - encode: { format: match, like: \"game/{stem}.dds\", unedited: original }\n"
                             "    output: \"mod/{stem}.dds\"\n");
    Run r = run_cli("build", t.path());
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("2 built"));
    CHECK(slurp(t / "mod/sky.dds") == slurp(t / "game/sky.dds"));
    t.copy(t / "edit/sky.face0.png", "edit/sky.face2.png");
    r = run_cli("build", t.path());
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK(slurp(t / "mod/sky.dds") != slurp(t / "game/sky.dds"));
    CHECK(same_face_texels(t, "mod/sky.dds", 2, "edit/sky.face0.png"));
    CHECK(same_face_texels(t, "mod/sky.dds", 5, "edit/sky.face5.png"));
}
