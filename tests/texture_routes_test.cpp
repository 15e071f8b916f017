// `convert` and pipelines are two routes to the same texture operations:
// the same request gives the same bytes. And a modder's round trip, game DDS
// → PNG → edit → DDS with `match`, gives files the game's loader reads.
#include "cli_run.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <unistd.h>

namespace fs = std::filesystem;
using af::test::run_cli;
using af::test::slurp;
using af::test::TempDir;

namespace {

const fs::path kSource = AF_SOURCE_DIR;
const char* kPython = "/usr/bin/python3";

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

// The images every route must agree on: the quickstart's four (colour,
// cut-out/smooth alpha, greyscale, normal map) and the test images.
std::vector<fs::path> route_images() {
    std::vector<fs::path> v;
    for (const char* rel :
         {"examples/quickstart/textures/walls/dark_wood.png", "examples/quickstart/textures/plants/palm leaves.png",
          "examples/quickstart/textures/fx/caustics.png", "examples/quickstart/textures/terrain/rock_normal.png",
          "tests/data/images/a_palm_b.png", "tests/data/images/n_stk_generic_rock_crop128.png",
          "tests/data/images/d_dark-wall-wood_crop256.png", "tests/data/images/g_caustics.png"})
        v.push_back(kSource / rel);
    return v;
}

struct DdsHeader {
    uint32_t width, height, mips, pf_flags, fourcc, dxgi;
};

uint32_t u32(const std::string& b, size_t at) {
    uint32_t v;
    std::memcpy(&v, b.data() + at, 4);
    return v;
}

DdsHeader header_of(const fs::path& p) {
    std::string b = slurp(p);
    REQUIRE(b.size() >= 128);
    REQUIRE(b.compare(0, 4, "DDS ") == 0);
    DdsHeader h{u32(b, 16), u32(b, 12), u32(b, 28), u32(b, 80), u32(b, 84), 0};
    if (h.fourcc == 0x30315844) h.dxgi = u32(b, 128); // "DX10"
    return h;
}

} // namespace

TEST_CASE("convert and a one-job pipeline give byte-identical DDS files for auto and named formats") {
    TempDir dir("af-routes");
    dir.write("pipeline.yaml", "assetforge: 1\n"
                               "jobs:\n"
                               "  j:\n"
                               "    inputs: \"in/*.png\"\n"
                               "    steps: [ mips, { encode: { format: \"${fmt}\" } } ]\n"
                               "    output: \"out/{stem}.dds\"\n");
    for (const auto& img : route_images()) dir.copy(img, "in/" + img.filename().string());
    for (std::string fmt : {"auto", "bc1", "dxt5", "bc4", "bc5", "bc7", "rgba8", "BGRA8888", "BC1_UNORM"}) {
        INFO("format " << fmt);
        fs::remove_all(dir / "out");
        auto b = run_cli("build -D fmt=" + fmt, dir.path());
        REQUIRE(b.code == 0);
        for (const auto& img : route_images()) {
            INFO(img.filename());
            fs::path conv = dir / ("conv/" + img.stem().string() + ".dds");
            fs::create_directories(conv.parent_path());
            auto c = run_cli("convert -y " + q(dir / ("in/" + img.filename().string())) + " " + q(conv) +
                             (fmt == "auto" ? "" : " --format " + fmt));
            REQUIRE(c.code == 0);
            std::string piped = slurp(dir / ("out/" + img.stem().string() + ".dds"));
            REQUIRE(!piped.empty());
            CHECK(piped == slurp(conv));
        }
    }
}

TEST_CASE("the bundled normal map comes out BC5 by both routes, greyscale stays grey") {
    TempDir dir("af-routes-qs");
    fs::copy(kSource / "examples/quickstart", dir.path(), fs::copy_options::recursive);
    fs::remove_all(dir / "build");
    REQUIRE(run_cli("build --report r.json", dir.path()).code == 0);
    CHECK(header_of(dir / "build/dds/terrain/rock_normal.dds").fourcc == 0x32495441); // "ATI2" = BC5
    // Its PSNR counts the channels BC5 stores (X, Y), not the blue it drops (about 5 dB if it did).
    const std::string report = slurp(dir / "r.json");
    const size_t at = report.find("\"psnr_rgb\"", report.find("\"BC5_UNORM\""));
    REQUIRE(at != std::string::npos);
    CHECK(std::stod(report.substr(report.find(':', at) + 1)) > 35.0);
    auto c = run_cli("convert -y textures/terrain/rock_normal.png n.dds", dir.path());
    REQUIRE(c.code == 0);
    CHECK(c.out.find("BC5_UNORM") != std::string::npos);
    // Caustics are grey: auto keeps them in a format that decodes grey (BC1),
    // so the preview is grey, not red.
    c = run_cli("convert -y textures/fx/caustics.png g.dds", dir.path());
    REQUIRE(c.code == 0);
    CHECK(c.out.find("BC1_UNORM_SRGB") != std::string::npos);
    c = run_cli("convert -y textures/fx/caustics.png r.dds --grey-in-red", dir.path());
    CHECK(c.out.find("BC4_UNORM") != std::string::npos);
    c = run_cli("convert -y r.dds r.png", dir.path());
    REQUIRE(c.code == 0);
    CHECK(c.out.find("BC4 stores one channel") != std::string::npos);
}

TEST_CASE("convert x.dds x.png and the pipeline's decode write the same PNG, tagged by one rule") {
    TempDir dir("af-routes-png");
    const fs::path data = kSource / "plugins/dds/tests/data";
    for (const char* f : {"Terrain__snow3.dds", "Runway__rwy-normalmap.dds", "Trees__mixed-shrub.dds"})
        dir.copy(data / f, std::string("in/") + f);
    dir.write("pipeline.yaml", "assetforge: 1\njobs:\n  d:\n    inputs: \"in/*.dds\"\n    steps: [ decode ]\n"
                               "    output: \"out/{stem}.png\"\n");
    REQUIRE(run_cli("build", dir.path()).code == 0);
    for (const char* f : {"Terrain__snow3", "Runway__rwy-normalmap", "Trees__mixed-shrub"}) {
        INFO(f);
        auto c = run_cli(std::string("convert -y in/") + f + ".dds c.png", dir.path());
        REQUIRE(c.code == 0);
        std::string png = slurp(dir / "c.png");
        CHECK(png == slurp(dir / (std::string("out/") + f + ".png")));
        // Colour of unstated space stays untagged (viewers read it as sRGB, as
        // the game does); BC5 data is tagged linear.
        bool gama = png.find("gAMA") != std::string::npos;
        CHECK(gama == (std::string(f) == "Runway__rwy-normalmap"));
    }
}

TEST_CASE("re-export keeps the game's layout: DDS → PNG → format match → the original's header") {
    TempDir dir("af-routes-match");
    const fs::path data = kSource / "plugins/dds/tests/data";
    // Legacy FourCC originals (DXT1, DXT5, ATI2), full and truncated mip chains.
    const std::vector<std::string> files = {
        "Runway__pa_0l.dds",         "Terrain__snow3.dds",  "Terrain__snow3_mips3.dds", "Trees__mixed-shrub.dds",
        "Runway__rwy-normalmap.dds", "Water__sea_foam.dds", "Signs__special.dds"};
    for (const auto& f : files) dir.copy(data / f, "orig/" + f);
    for (const auto& f : files) {
        INFO(f);
        std::string stem = fs::path(f).stem().string();
        REQUIRE(run_cli("convert -y orig/" + f + " edit/" + stem + ".png", dir.path()).code == 0);
        auto c = run_cli("convert -y edit/" + stem + ".png back/" + f + " --like orig/" + f, dir.path());
        REQUIRE(c.code == 0);
        DdsHeader o = header_of(dir / ("orig/" + f)), b = header_of(dir / ("back/" + f));
        CHECK(b.fourcc == o.fourcc);
        CHECK(b.pf_flags == o.pf_flags);
        CHECK(b.mips == o.mips);
        CHECK(b.width == o.width);
        CHECK(b.height == o.height);
    }
    // The same through a pipeline: `like` is a template over the input's name.
    dir.write("pipeline.yaml", "assetforge: 1\njobs:\n  back:\n    inputs: \"edit/*.png\"\n"
                               "    steps: [ { encode: { format: match, like: \"orig/{stem}.dds\" } } ]\n"
                               "    output: \"piped/{stem}.dds\"\n");
    auto b = run_cli("build", dir.path());
    REQUIRE(b.code == 0);
    for (const auto& f : files) {
        INFO(f);
        CHECK(slurp(dir / ("piped/" + f)) == slurp(dir / ("back/" + f)));
    }
    // Editing the original re-runs the action (the file `like` names is in its key).
    REQUIRE(run_cli("build", dir.path()).out.find("0 built") != std::string::npos);
    dir.copy(data / "Terrain__snow3_mips3.dds", "orig/Terrain__snow3.dds");
    auto again = run_cli("build", dir.path());
    CHECK(again.out.find("1 built") != std::string::npos);
    CHECK(header_of(dir / "piped/Terrain__snow3.dds").mips == 3);

    if (access(kPython, X_OK) != 0) return; // Pillow is installed by scripts/setup.sh
    for (const auto& f : files) {
        INFO(f);
        std::string cmd = std::string(kPython) + " -c \"from PIL import Image; Image.open('" +
                          (dir / ("back/" + f)).string() + "').load()\" 2>&1";
        CHECK(std::system(cmd.c_str()) == 0);
    }
}

TEST_CASE("encode unedited: original gives back an unedited export's original bytes, and encodes an edit") {
    TempDir dir("af-routes-unedited");
    const fs::path data = kSource / "plugins/dds/tests/data";
    // DXT1, DXT5, ATI2 (BC5: exported as its R, G preview) and an uncompressed original.
    const std::vector<std::string> files = {"Runway__pa_0l.dds", "Trees__mixed-shrub.dds", "Runway__rwy-normalmap.dds",
                                            "Terrain__snow3_mips3.dds"};
    for (const auto& f : files) dir.copy(data / f, "orig/" + f);
    dir.write("pipeline.yaml",
              "assetforge: 1\njobs:\n"
              "  edit:\n    inputs: \"orig/*.dds\"\n    steps: [ decode ]\n"
              "    output: \"edit/{stem}.png\"\n    keep_edits: true\n"
              "  back:\n    from: edit\n"
              "    steps: [ { encode: { format: match, like: \"orig/{stem}.dds\", unedited: original } } ]\n"
              "    output: \"back/{stem}.dds\"\n");
    auto b = run_cli("build", dir.path());
    REQUIRE(b.code == 0);
    for (const auto& f : files) {
        INFO(f);
        CHECK(slurp(dir / ("back/" + f)) == slurp(dir / ("orig/" + f)));
    }
    // A repaint (another texture at the same size): that texture is encoded again, the others stay.
    REQUIRE(run_cli("convert -y orig/Trees__mixed-shrub.dds tmp.png --resize " +
                        std::to_string(header_of(dir / "orig/Runway__pa_0l.dds").width) + "x" +
                        std::to_string(header_of(dir / "orig/Runway__pa_0l.dds").height),
                    dir.path())
                .code == 0);
    fs::copy_file(dir / "tmp.png", dir / "edit/Runway__pa_0l.png", fs::copy_options::overwrite_existing);
    auto again = run_cli("build", dir.path());
    INFO(again.out);
    REQUIRE(again.code == 0);
    CHECK(again.out.find("1 built") != std::string::npos);
    CHECK(slurp(dir / "back/Runway__pa_0l.dds") != slurp(dir / "orig/Runway__pa_0l.dds"));
    CHECK(header_of(dir / "back/Runway__pa_0l.dds").fourcc == header_of(dir / "orig/Runway__pa_0l.dds").fourcc);
    CHECK(slurp(dir / "back/Trees__mixed-shrub.dds") == slurp(dir / "orig/Trees__mixed-shrub.dds"));
}

TEST_CASE("dx10: never writes an sRGB BC1-BC3 with the legacy FourCC instead of failing") {
    TempDir dir("af-routes-dx9");
    dir.copy(kSource / "examples/quickstart/textures/walls/dark_wood.png", "w.png");
    auto c = run_cli("convert -y w.png w.dds --dx10 never", dir.path());
    REQUIRE(c.code == 0);
    CHECK(header_of(dir / "w.dds").fourcc == 0x31545844); // "DXT1"
    REQUIRE(run_cli("convert -y w.png w10.dds", dir.path()).code == 0);
    DdsHeader h = header_of(dir / "w10.dds");
    CHECK(h.fourcc == 0x30315844);
    CHECK(h.dxgi == 72); // BC1_UNORM_SRGB
}
