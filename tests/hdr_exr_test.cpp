// OpenEXR, the HDR edit format (issue 43, item 1): float and BC6H textures
// exported to .exr keep values above 1 and below 0, come back bit-identical
// (half data) or within the encoder's error (BC6H), read the same in an
// independent reader (OpenImageIO's oiiotool), go to EXR under the `{edit_ext}`
// output placeholder, and a truncated file is an error naming it.
#include "cli_run.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

namespace fs = std::filesystem;
using af::test::run_cli;
using af::test::run_shell;
using af::test::TempDir;

namespace {

// DX10 DDS files written with numpy: `python3 hdr.py OUT DXGI` writes 16×16
// texels of R16G16B16A16_FLOAT (10) or R32G32B32A32_FLOAT (2). Red rises from
// -2.5 to 4.78 along each row, green holds values a half cannot (0.1 + …) in
// float32 files, blue 0.25, alpha from 0 to 1 down the columns.
const char* kExrTestDds = R"PY(
import struct, sys
import numpy as np
w = h = 16
out, dxgi = sys.argv[1], int(sys.argv[2])
a = np.zeros((h, w, 4), np.float32)
a[..., 0] = np.linspace(-2.5, 4.78, w, dtype=np.float32)[None, :]
a[..., 1] = 0.1 + np.arange(w * h, dtype=np.float32).reshape(h, w) / 1000.0
a[..., 2] = 0.25
a[..., 3] = np.linspace(0.0, 1.0, h, dtype=np.float32)[:, None]
data = a.astype(np.float16) if dxgi == 10 else a
pitch = w * data.itemsize * 4
head = struct.pack("<7I44x", 124, 0x1 | 0x2 | 0x4 | 0x1000, h, w, pitch, 0, 1)
pf = struct.pack("<2I4s5I", 32, 0x4, b"DX10", 0, 0, 0, 0, 0)
caps = struct.pack("<5I", 0x1000, 0, 0, 0, 0)
dx10 = struct.pack("<5I", dxgi, 3, 0, 1, 0)
open(out, "wb").write(b"DDS " + head + pf + caps + dx10 + data.tobytes())
)PY";

// `python3 err.py A.dds B.dds`: the largest difference of the colour channels
// of two R32G32B32A32_FLOAT DDS files (DX10 header: 148 bytes).
const char* kExrMaxError = R"PY(
import sys
import numpy as np
a, b = (np.fromfile(p, np.float32, offset=148).reshape(-1, 4)[:, :3] for p in sys.argv[1:3])
print("%.6f" % float(np.abs(a - b).max()))
)PY";

void make_hdr_dds(const TempDir& dir, const std::string& out, int dxgi) {
    dir.write("hdr.py", kExrTestDds);
    auto r =
        run_shell("cd '" + dir.path().string() + "' && /usr/bin/python3 hdr.py " + out + " " + std::to_string(dxgi));
    INFO(r.out);
    REQUIRE(r.code == 0);
}

// The texel data of a DDS file (after the DX10 header), to compare two files' pixels.
std::string dds_pixels(const fs::path& p) { return af::test::slurp(p).substr(148); }

double exr_max_error(const TempDir& dir, const std::string& a, const std::string& b) {
    dir.write("err.py", kExrMaxError);
    for (const std::string& f : {a, b})
        REQUIRE(run_cli("convert " + f + " " + f + ".f32.dds --format rgba32f --no-mips -y", dir.path()).code == 0);
    auto r =
        run_shell("cd '" + dir.path().string() + "' && /usr/bin/python3 err.py " + a + ".f32.dds " + b + ".f32.dds");
    INFO(r.out);
    REQUIRE(r.code == 0);
    return std::stod(r.out);
}

} // namespace

TEST_CASE("convert: a half-float DDS exported to EXR and converted back is bit-identical, HDR and negatives kept") {
    TempDir dir("af-exr-half");
    make_hdr_dds(dir, "h.dds", 10);
    auto r = run_cli("convert h.dds h.exr --warnings-as-errors", dir.path());
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, !Catch::Contains("clipped"));
    r = run_cli("info h.exr", dir.path());
    INFO(r.out);
    CHECK_THAT(r.out, Catch::Contains("half") && Catch::Contains("RGBA") && Catch::Contains("16x16"));
    r = run_cli("convert h.exr back.dds --format rgba16f --no-mips", dir.path());
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK(dds_pixels(dir / "back.dds") == dds_pixels(dir / "h.dds"));
}

TEST_CASE("convert: a 32-bit float DDS exported to EXR keeps float channels and comes back bit-identical") {
    TempDir dir("af-exr-float");
    make_hdr_dds(dir, "f.dds", 2);
    REQUIRE(run_cli("convert f.dds f.exr", dir.path()).code == 0);
    auto r = run_cli("info f.exr", dir.path());
    INFO(r.out);
    CHECK_THAT(r.out, Catch::Contains("float") && Catch::Contains("RGBA"));
    REQUIRE(run_cli("convert f.exr back.dds --format rgba32f --no-mips", dir.path()).code == 0);
    CHECK(dds_pixels(dir / "back.dds") == dds_pixels(dir / "f.dds"));
}

TEST_CASE("convert: BC6H exported to EXR and re-encoded stays within the encoder's error, far below PNG's clip") {
    TempDir dir("af-exr-bc6h");
    make_hdr_dds(dir, "f.dds", 2);
    REQUIRE(run_cli("convert f.dds b.dds --format bc6hs --no-mips", dir.path()).code == 0);
    REQUIRE(run_cli("convert b.dds b.exr --warnings-as-errors", dir.path()).code == 0);
    REQUIRE(run_cli("convert b.exr again.dds --format bc6hs --no-mips", dir.path()).code == 0);
    REQUIRE(run_cli("convert b.dds b.png", dir.path()).code == 0);
    REQUIRE(run_cli("convert b.png again_png.dds --format bc6hs --no-mips", dir.path()).code == 0);
    const double via_exr = exr_max_error(dir, "b.dds", "again.dds");
    const double via_png = exr_max_error(dir, "b.dds", "again_png.dds");
    WARN("BC6H round trip max error: via EXR " << via_exr << ", via PNG " << via_png);
    CHECK(via_png > 2.0);
    CHECK(via_exr < 0.1);
    // The EXR holds BC6H's decode exactly: read back and stored as half, it is the decode itself.
    REQUIRE(run_cli("convert b.dds dec.dds --format rgba16f --no-mips", dir.path()).code == 0);
    REQUIRE(run_cli("convert b.exr dec_exr.dds --format rgba16f --no-mips", dir.path()).code == 0);
    CHECK(dds_pixels(dir / "dec_exr.dds") == dds_pixels(dir / "dec.dds"));
}

TEST_CASE("convert: OpenImageIO reads the EXR written with the same range, channels and pixel type") {
    TempDir dir("af-exr-oiio");
    make_hdr_dds(dir, "h.dds", 10);
    REQUIRE(run_cli("convert h.dds h.exr", dir.path()).code == 0);
    auto r = run_shell("cd '" + dir.path().string() + "' && oiiotool --info -v --stats h.exr");
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("16, 4 channel, half openexr") && Catch::Contains("channel list: R, G, B, A"));
    // Red from -2.5 to 4.78 (as half: 4.78125), blue 0.25, alpha 0 to 1.
    CHECK_THAT(r.out, Catch::Contains("Stats Min: -2.500000") && Catch::Contains("Stats Max: 4.781250"));
}

TEST_CASE("convert: a truncated or damaged EXR is an error naming the file, not a crash") {
    TempDir dir("af-exr-bad");
    make_hdr_dds(dir, "h.dds", 10);
    REQUIRE(run_cli("convert h.dds h.exr", dir.path()).code == 0);
    const std::string whole = af::test::slurp(dir / "h.exr");
    dir.write("cut.exr", whole.substr(0, whole.size() / 2));
    dir.write("head.exr", whole.substr(0, 40));
    std::string big = whole;
    // The data window's max x (a box2i after "dataWindow\0box2i\0" and its size) made huge.
    const size_t at = big.find("dataWindow");
    REQUIRE(at != std::string::npos);
    const size_t max_x = at + std::string("dataWindow").size() + 1 + 6 + 4 + 8;
    big[max_x + 3] = 0x3f;
    dir.write("huge.exr", big);
    for (const char* f : {"cut.exr", "head.exr", "huge.exr"}) {
        INFO(f);
        auto r = run_cli(std::string("convert ") + f + " out.dds --format rgba16f", dir.path());
        INFO(r.out);
        CHECK(r.code != 0);
        CHECK(r.code != -1);
        CHECK_THAT(r.out, Catch::Contains(std::string(f) + ":"));
        CHECK_FALSE(fs::exists(dir / "out.dds"));
    }
}

// The shipped edit exports' rule: `{edit_ext}` is "exr" for float and BC6H textures and "png" for the rest, so an
// HDR texture's edit copy clips nothing, and an unedited copy stored back under `match` is the original.
TEST_CASE("build: an edit export under {edit_ext} writes EXR for float and BC6H, PNG for the rest") {
    TempDir dir("af-exr-edit");
    make_hdr_dds(dir, "f.dds", 2);
    REQUIRE(run_cli("convert f.dds original/sky.dds --format bc6h", dir.path()).code == 0);
    REQUIRE(run_cli("convert f.dds original/ui.dds --format bc7", dir.path()).code == 0);
    dir.write("pipeline.yaml",
              "assetforge: 1\n"
              "jobs:\n"
              "  edit:\n"
              "    inputs: \"original/*.dds\"\n"
              "    steps: [ decode ]\n"
              "    output: \"edit/{stem}.{edit_ext}\"\n"
              "    keep_edits: true\n"
              "  back:\n"
              "    from: edit\n"
              "    steps: [ { encode: { format: match, like: \"original/{stem}.dds\", unedited: original } } ]\n"
              "    output: \"out/{stem}.dds\"\n");
    auto r = run_cli("build --warnings-as-errors --report r.json", dir.path());
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK(fs::exists(dir / "edit/sky.exr"));
    CHECK_FALSE(fs::exists(dir / "edit/sky.png"));
    CHECK(fs::exists(dir / "edit/ui.png"));
    CHECK_THAT(af::test::slurp(dir / "r.json"), !Catch::Contains("clipped"));
    CHECK(af::test::slurp(dir / "out/sky.dds") == af::test::slurp(dir / "original/sky.dds"));
    // An edit of the EXR that keeps HDR passes the gate: nothing it holds is lost to BC6H.
    REQUIRE(run_shell("cd '" + dir.path().string() + "' && oiiotool edit/sky.exr --mulc 1.5 -o edit/sky.exr").code ==
            0);
    r = run_cli("build --warnings-as-errors", dir.path());
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK_THAT(r.out, !Catch::Contains("HDR the input lacks"));
}
