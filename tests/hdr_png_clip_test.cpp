// Float and BC6H textures exported to PNG (issue 43, item 1): a PNG holds
// 0..1, so the values above 1 it clips are a warning naming how many texels
// and the largest value, which --warnings-as-errors fails on, in `convert`
// (nothing written) and in a build's decode job.
#include "cli_run.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

namespace fs = std::filesystem;
using af::test::run_cli;
using af::test::TempDir;

namespace {

// A 16×16 R32G32B32A32_FLOAT DDS (DX10 header, written with numpy): red
// rises from 0 to 4.78 along each row (values a sky or a light holds), green
// and blue in 0..1: 192 texels above 1 (printed).
const char* kHdrDds = R"PY(
import struct, sys
import numpy as np
w = h = 16
a = np.zeros((h, w, 4), np.float32)
a[..., 0] = np.linspace(0.0, 4.78, w, dtype=np.float32)[None, :]
a[..., 1] = 0.5
a[..., 2] = 0.25
a[..., 3] = 1.0
head = struct.pack("<7I44x", 124, 0x1 | 0x2 | 0x4 | 0x1000, h, w, w * 16, 0, 1)
pf = struct.pack("<2I4s5I", 32, 0x4, b"DX10", 0, 0, 0, 0, 0)
caps = struct.pack("<5I", 0x1000, 0, 0, 0, 0)
dx10 = struct.pack("<5I", 2, 3, 0, 1, 0)
open(sys.argv[1], "wb").write(b"DDS " + head + pf + caps + dx10 + a.tobytes())
print(int((a[..., 0] > 1).sum()))
)PY";

} // namespace

TEST_CASE("convert: float and BC6H to PNG warn of the values above 1 clipped, and fail --warnings-as-errors") {
    TempDir dir("af-hdr-png");
    dir.write("hdr.py", kHdrDds);
    auto made = af::test::run_shell("cd '" + dir.path().string() + "' && /usr/bin/python3 hdr.py hdr.dds");
    REQUIRE(made.code == 0);
    const std::string above = std::to_string(std::stoi(made.out));
    REQUIRE(run_cli("convert hdr.dds bc6h.dds --format bc6h", dir.path()).code == 0);
    for (const char* in : {"hdr.dds", "bc6h.dds"}) {
        INFO(in);
        auto r = run_cli(std::string("convert ") + in + " out.png -y", dir.path());
        INFO(r.out);
        REQUIRE(r.code == 0);
        CHECK_THAT(r.out, Catch::Contains(std::string("warning: ") + in + ": values above 1.0 clipped: " + above +
                                          " texels, max 4.7"));
        fs::remove(dir / "out.png");
        r = run_cli(std::string("convert ") + in + " out.png --warnings-as-errors", dir.path());
        INFO(r.out);
        CHECK(r.code == 1);
        CHECK_THAT(r.out, Catch::Contains("values above 1.0 clipped"));
        CHECK_FALSE(fs::exists(dir / "out.png"));
    }
    // Nothing above 1, nothing said.
    REQUIRE(run_cli("convert hdr.dds small.dds --format rgba8", dir.path()).code == 0);
    auto r = run_cli("convert small.dds small.png --warnings-as-errors", dir.path());
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK_THAT(r.out, !Catch::Contains("clipped"));
}

TEST_CASE("build: a decode job writing a BC6H texture as PNG warns of the clip, and --warnings-as-errors fails") {
    TempDir dir("af-hdr-png-build");
    dir.write("hdr.py", kHdrDds);
    REQUIRE(af::test::run_shell("cd '" + dir.path().string() + "' && /usr/bin/python3 hdr.py hdr.dds").code == 0);
    REQUIRE(run_cli("convert hdr.dds in/sky.dds --format bc6h", dir.path()).code == 0);
    dir.write("pipeline.yaml", "assetforge: 1\n"
                               "jobs:\n"
                               "  d:\n"
                               "    inputs: \"in/*.dds\"\n"
                               "    steps: [ decode ]\n"
                               "    output: \"out/{stem}.png\"\n");
    auto r = run_cli("build --warnings-as-errors", dir.path());
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("values above 1.0 clipped") && Catch::Contains("max 4.7"));
}

// The Echo VR flow's shape: an export for editing (keep_edits) clips HDR in its PNGs, which is noted there and
// counted where an edit of it is stored back under `match`, so an unedited set passes --warnings-as-errors.
TEST_CASE("build: an HDR export for editing is noted, and storing its edit back under match is the counted loss") {
    TempDir dir("af-hdr-png-edit");
    dir.write("hdr.py", kHdrDds);
    REQUIRE(af::test::run_shell("cd '" + dir.path().string() + "' && /usr/bin/python3 hdr.py hdr.dds").code == 0);
    REQUIRE(run_cli("convert hdr.dds original/sky.dds --format bc6h", dir.path()).code == 0);
    dir.write("pipeline.yaml",
              "assetforge: 1\n"
              "jobs:\n"
              "  edit:\n"
              "    inputs: \"original/*.dds\"\n"
              "    steps: [ decode ]\n"
              "    output: \"edit/{stem}.png\"\n"
              "    keep_edits: true\n"
              "  back:\n"
              "    from: edit\n"
              "    steps: [ { encode: { format: match, like: \"original/{stem}.dds\", unedited: original } } ]\n"
              "    output: \"out/{stem}.dds\"\n");
    auto r = run_cli("build --warnings-as-errors --report r.json", dir.path());
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK_THAT(af::test::slurp(dir / "r.json"), Catch::Contains("edit copy: values above 1.0 clipped: 192 texels"));
    // The PNG edited: its re-encode loses the original's HDR, which the gate counts.
    REQUIRE(af::test::run_shell("cd '" + dir.path().string() +
                                "' && /usr/bin/python3 -c \"from PIL import Image; "
                                "im = Image.open('edit/sky.png').convert('RGBA'); im.putpixel((0, 0), (0, 0, 0, 255)); "
                                "im.save('edit/sky.png')\"")
                .code == 0);
    r = run_cli("build --warnings-as-errors", dir.path());
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("holds HDR the input lacks: values above 1.0 clipped"));
    r = run_cli("convert edit/sky.png c.dds --like original/sky.dds --warnings-as-errors", dir.path());
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("holds HDR the input lacks"));
}
