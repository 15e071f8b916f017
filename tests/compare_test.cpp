// `assetforge compare`: its figures against numpy's on the same pixels (the
// SSIM written out in numpy from Wang et al.'s definition), thresholds as
// exit codes, the heatmap, and every surface of a DDS.
#include "cli_run.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <vector>

namespace fs = std::filesystem;
using af::test::run_in;

namespace {

const fs::path kCompareImages = fs::path(AF_SOURCE_DIR) / "plugins/bc/tests/data";

std::string shell(const std::string& cmd) {
    const auto r = af::test::run_shell(cmd);
    CHECK(r.code == 0);
    return r.out;
}

// B = A with noise in every channel (alpha too), written by Pillow; then the
// reference figures, computed by numpy.
const char* kNumpy = R"PY(
import json, sys
import numpy as np
from PIL import Image
a_path, b_path = sys.argv[1], sys.argv[2]
a = np.asarray(Image.open(a_path).convert("RGBA")).astype(np.float64)
rng = np.random.default_rng(5)
b8 = np.clip(a + rng.integers(-9, 10, a.shape), 0, 255).astype(np.uint8)
Image.fromarray(b8, "RGBA").save(b_path)
a /= 255.0
b = b8.astype(np.float64) / 255.0
out = {}
for c, n in enumerate("rgba"):
    mse = np.mean((a[..., c] - b[..., c]) ** 2)
    out[n] = {"psnr": 10 * np.log10(1 / mse), "rmse": np.sqrt(mse), "max_error": np.max(np.abs(a[..., c] - b[..., c]))}
out["psnr_rgb"] = 10 * np.log10(1 / np.mean([np.mean((a[..., c] - b[..., c]) ** 2) for c in range(3)]))
w = np.array([0.2126, 0.7152, 0.0722])
x, y = a[..., :3] @ w, b[..., :3] @ w
g = np.exp(-((np.arange(11) - 5) ** 2) / (2 * 1.5 ** 2)); g /= g.sum()
def blur(m):
    r = np.array([np.convolve(row, g[::-1], "valid") for row in m])
    return np.array([np.convolve(col, g[::-1], "valid") for col in r.T]).T
mx, my = blur(x), blur(y)
vx, vy, cxy = blur(x * x) - mx * mx, blur(y * y) - my * my, blur(x * y) - mx * my
C1, C2 = 0.01 ** 2, 0.03 ** 2
out["ssim"] = float(np.mean(((2 * mx * my + C1) * (2 * cxy + C2)) / ((mx * mx + my * my + C1) * (vx + vy + C2))))
print(json.dumps(out))
)PY";

} // namespace

TEST_CASE("compare: PSNR, RMSE, max error and SSIM agree with numpy on the same pixels") {
    af::test::TempDir t;
    t.copy(kCompareImages / "d_rock_128.png", "a.png");
    t.write("ref.py", kNumpy);
    auto ref = nlohmann::json::parse(shell("/usr/bin/python3 '" + (t / "ref.py").string() + "' '" +
                                           (t / "a.png").string() + "' '" + (t / "b.png").string() + "'"));
    auto r = run_in(t.path(), "compare a.png b.png --json --heatmap heat.png");
    INFO(r.out);
    REQUIRE(r.code == 0);
    auto ours = nlohmann::json::parse(r.out).at("surfaces").at(0);
    for (const char* c : {"r", "g", "b", "a"}) {
        INFO(c);
        CHECK(ours["channels"][c]["psnr"].get<double>() == Approx(ref[c]["psnr"].get<double>()).margin(1e-6));
        CHECK(ours["channels"][c]["rmse"].get<double>() == Approx(ref[c]["rmse"].get<double>()).margin(1e-9));
        CHECK(ours["channels"][c]["max_error"].get<double>() == Approx(ref[c]["max_error"].get<double>()).margin(1e-7));
    }
    CHECK(ours["psnr_rgb"].get<double>() == Approx(ref["psnr_rgb"].get<double>()).margin(1e-6));
    CHECK(ours["ssim"].get<double>() == Approx(ref["ssim"].get<double>()).margin(1e-6));
    CHECK(ours["ssim"].get<double>() < 1.0);
    // The heatmap is a 128x128 PNG that Pillow reads.
    CHECK_THAT(shell("/usr/bin/python3 -c \"from PIL import Image; print(Image.open('" + (t / "heat.png").string() +
                     "').size)\""),
               Catch::Contains("(128, 128)"));
}

TEST_CASE("compare: identical files, thresholds as exit codes, size mismatch, every surface of a DDS") {
    af::test::TempDir t;
    t.copy(kCompareImages / "d_rock_128.png", "a.png");
    t.copy(kCompareImages / "n_rock_128.png", "n.png");
    auto same = run_in(t.path(), "compare a.png a.png --json --max-error 0");
    REQUIRE(same.code == 0);
    auto s = nlohmann::json::parse(same.out).at("surfaces").at(0);
    CHECK(s["psnr_rgb"].is_null()); // identical: no finite PSNR
    CHECK(s["ssim"].get<double>() == Approx(1.0));
    REQUIRE(run_in(t.path(), "convert a.png a.dds --format bc1 --quality fast --mips").code == 0);
    CHECK(run_in(t.path(), "compare a.png a.dds --min-psnr 30").code == 0);
    CHECK(run_in(t.path(), "compare a.png a.dds --min-psnr 60").code == 1);
    CHECK(run_in(t.path(), "compare a.png a.dds --max-error 0.01").code == 1);
    REQUIRE(run_in(t.path(), "convert a.png small.png --resize 64x64").code == 0);
    auto mismatch = run_in(t.path(), "compare a.png small.png");
    CHECK(mismatch.code == 1);
    CHECK_THAT(mismatch.out, Catch::Contains("differ in size: 128x128 and 64x64"));
    REQUIRE(run_in(t.path(), "convert a.dds b.dds --format bc7 --quality fast").code == 0);
    auto all = run_in(t.path(), "compare a.dds b.dds --all-surfaces --json");
    REQUIRE(all.code == 0);
    CHECK(nlohmann::json::parse(all.out).at("surfaces").size() == 8); // 128 → 1: eight mips
    CHECK(run_in(t.path(), "compare a.dds").code == 2);
}

TEST_CASE("compare: a BC5 normal map is compared with Z rebuilt, as the build's report compares it") {
    af::test::TempDir t;
    t.copy(kCompareImages / "n_rock_128.png", "n.png");
    REQUIRE(run_in(t.path(), "convert n.png n.dds --format bc5 --quality fast").code == 0);
    auto r = run_in(t.path(), "compare n.png n.dds --json");
    INFO(r.out);
    REQUIRE(r.code == 0);
    const auto doc = nlohmann::json::parse(r.out);
    CHECK(doc["normal_z_rebuilt"]["b"] == true);
    CHECK(doc["normal_z_rebuilt"]["a"] == false);
    // Blue decodes to 0: counted as it is stored, the RGB PSNR would be ~5 dB.
    const auto s = doc.at("surfaces").at(0);
    CHECK(s["channels"]["b"]["psnr"].get<double>() > 25.0);
    CHECK(s["psnr_rgb"].get<double>() > 30.0);
    auto text = run_in(t.path(), "compare n.png n.dds");
    CHECK_THAT(text.out, Catch::Contains("blue rebuilt as Z from the stored X and Y (B)"));
}

namespace {

const fs::path kSnorm = fs::path(AF_SOURCE_DIR) / "tests/data/snorm";

double json_psnr(const std::string& out, const char* channel) {
    const auto s = nlohmann::json::parse(out).at("surfaces").at(0);
    const auto& v = channel ? s["channels"][channel]["psnr"] : s["psnr_rgb"];
    return v.is_null() ? 999.0 : v.get<double>();
}

// Pillow's BC5 decoder (independent of the project's): the DDS's top level as an 8-bit PNG of its X and Y.
// Pillow 9.4 maps a signed byte s (-127..127) to 128 + s/2; here it is mapped as the project exports signed
// data, (s/127 + 1)/2, so the two decodes meet in one value space.
const char* kPillowBc5 = R"PY(
import sys
import numpy as np
from PIL import Image
im = Image.open(sys.argv[1])
assert im.mode == "RGB", im.mode
p = np.asarray(im).astype(np.float64)
s = (p - 128) * 2
a = np.clip(np.rint((s / 127 + 1) / 2 * 255), 0, 255).astype(np.uint8)
a[..., 2] = 128  # blue: the 0 of a signed decode, as the project exports it (Pillow leaves 0)
Image.fromarray(a, "RGB").save(sys.argv[2])
)PY";

} // namespace

// Issue 43, item 3: a SNORM decode is -1..1, its export 0..1; compare measured the one against the other (5.8 dB).
TEST_CASE("compare: a BC5_SNORM DDS against its own PNG export, Pillow's decode and a SNORM re-encode, in 0..1") {
    af::test::TempDir t;
    t.copy(kSnorm / "rock_bc5_snorm.dds", "n.dds");
    REQUIRE(run_in(t.path(), "convert n.dds n.png").code == 0);
    auto r = run_in(t.path(), "compare n.dds n.png --json");
    INFO(r.out);
    REQUIRE(r.code == 0);
    // The tool's own decode, written as a 16-bit PNG: the same values.
    CHECK(json_psnr(r.out, nullptr) > 80.0);
    CHECK(run_in(t.path(), "compare n.dds n.png --min-psnr 60").code == 0);
    // Pillow's decode of the same blocks: a few levels apart (Pillow interpolates at its half scale).
    t.write("pillow.py", kPillowBc5);
    REQUIRE(af::test::run_shell("cd '" + t.path().string() + "' && /usr/bin/python3 pillow.py n.dds pillow.png").code ==
            0);
    r = run_in(t.path(), "compare n.dds pillow.png --json");
    INFO(r.out);
    REQUIRE(r.code == 0);
    for (const char* c : {"r", "g"}) {
        CHECK(json_psnr(r.out, c) > 38.0); // 40.6 and 40.8 dB measured; 5.7 before SNORM was mapped
        CHECK(nlohmann::json::parse(r.out)["surfaces"][0]["channels"][c]["max_error"].get<double>() <= 5.0 / 255);
    }
    // The PNG back into BC5_SNORM: the encode's error only, measured like the encode step's.
    REQUIRE(run_in(t.path(), "convert n.png back.dds --like n.dds").code == 0);
    r = run_in(t.path(), "compare n.dds back.dds --json");
    INFO(r.out);
    CHECK(json_psnr(r.out, "r") > 35.0);
    CHECK(json_psnr(r.out, "g") > 35.0);
}

// The encode step's PSNR (the HTML report's "encode step") of an encode into signed formats: was 5.59 dB.
TEST_CASE("build: the encode step's PSNR into BC5_SNORM, BC4_SNORM and R8G8_SNORM is measured in 0..1") {
    af::test::TempDir t;
    t.copy(fs::path(AF_SOURCE_DIR) / "tests/data/images/n_stk_generic_rock_crop128.png", "in/rock.png");
    t.write("pipeline.yaml", "assetforge: 1\n"
                             "jobs:\n"
                             "  j:\n"
                             "    inputs: \"in/*.png\"\n"
                             "    steps: [ { encode: { format: \"${fmt}\" } } ]\n"
                             "    output: \"out/{stem}.dds\"\n");
    for (const char* fmt : {"BC5_SNORM", "BC4_SNORM", "R8G8_SNORM"}) {
        INFO(fmt);
        auto r = run_in(t.path(), std::string("build --report r.json -D fmt=") + fmt);
        INFO(r.out);
        REQUIRE(r.code == 0);
        const auto report = nlohmann::json::parse(af::test::slurp(t / "r.json"));
        const auto& a = report.at("actions").at(0);
        INFO(a.dump());
        REQUIRE(a.contains("metrics"));
        CHECK(a["metrics"]["psnr_rgb"].get<double>() > 35.0);
    }
}

namespace {

// A BC1 DDS of size×size texels (one mip) with seeded pseudo-random blocks: any bytes are valid BC1.
void write_bc1_dds(const fs::path& p, uint32_t size, uint32_t seed) {
    const uint32_t blocks = (size / 4) * (size / 4);
    uint32_t h[32] = {};
    h[0] = 124; // header size
    h[1] = 0x1 | 0x2 | 0x4 | 0x1000 | 0x80000;
    h[2] = size, h[3] = size, h[4] = blocks * 8, h[6] = 1;
    h[18] = 32, h[19] = 0x4; // pixel format: FourCC
    std::memcpy(&h[20], "DXT1", 4);
    h[26] = 0x1000; // caps: texture
    std::ofstream f(p, std::ios::binary);
    f.write("DDS ", 4);
    f.write(reinterpret_cast<const char*>(h), 124);
    std::mt19937_64 rng(seed);
    std::vector<uint64_t> chunk(1 << 16);
    for (uint32_t done = 0; done < blocks; done += uint32_t(chunk.size())) {
        const size_t n = std::min<size_t>(chunk.size(), blocks - done);
        for (size_t i = 0; i < n; ++i) chunk[i] = rng();
        f.write(reinterpret_cast<const char*>(chunk.data()), std::streamsize(n * 8));
    }
}

} // namespace

TEST_CASE("compare: two 4096² BC1 textures a band of rows at a time, far under the old 95 B/texel") {
    af::test::TempDir t;
    write_bc1_dds(t / "a.dds", 4096, 1);
    write_bc1_dds(t / "b.dds", 4096, 2);
    auto r = af::test::run_cli_measured({"compare", "a.dds", "b.dds", "--json"}, t.path());
    INFO(r.out.substr(0, 2000));
    INFO("peak RSS " << r.peak_rss_kib / 1024 << " MiB");
    REQUIRE(r.code == 0);
    const auto s = nlohmann::json::parse(r.out).at("surfaces").at(0);
    CHECK(s["width"] == 4096);
    CHECK(s["ssim"].get<double>() < 0.1); // unrelated noise
    // Whole surfaces took 1.6 GB here (95 B/texel); bands: the two files (1 B/texel) and about 40 MiB.
#if !defined(AF_ASAN) // AddressSanitizer's shadow memory and quarantine say nothing about the bound
    CHECK(r.peak_rss_kib < 160 * 1024);
#endif
}

TEST_CASE("compare: over --memory-budget it refuses up front, naming the estimate, never std::bad_alloc") {
    af::test::TempDir t;
    write_bc1_dds(t / "a.dds", 4096, 1);
    write_bc1_dds(t / "b.dds", 4096, 2);
    auto r = run_in(t.path(), "compare a.dds b.dds --memory-budget 48");
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("a.dds and b.dds: comparing them needs an estimated"));
    CHECK_THAT(r.out, Catch::Contains("more than --memory-budget 48 MiB; raise --memory-budget"));
    CHECK(r.out.find("bad_alloc") == std::string::npos);
    // The heatmap is part of the estimate: 4096² of it alone is over 256 MiB.
    auto heat = run_in(t.path(), "compare a.dds b.dds --heatmap heat.png --memory-budget 256");
    CHECK(heat.code == 1);
    CHECK_THAT(heat.out, Catch::Contains("(the heatmap"));
    CHECK_FALSE(fs::exists(t / "heat.png"));
    CHECK(run_in(t.path(), "compare a.dds b.dds --memory-budget 0").code == 2);
}

TEST_CASE("compare: --heatmap keeps an existing file unless -y, and never replaces A or B") {
    af::test::TempDir t;
    t.copy(kCompareImages / "d_rock_128.png", "a.png");
    t.copy(kCompareImages / "n_rock_128.png", "b.png");
    const std::string a = af::test::slurp(t / "a.png"), b = af::test::slurp(t / "b.png");
    t.write("heat.png", "a file of the user's\n");
    auto kept = run_in(t.path(), "compare a.png b.png --heatmap heat.png");
    INFO(kept.out);
    CHECK(kept.code == 2);
    CHECK_THAT(kept.out, Catch::Contains("heat.png") && Catch::Contains("exists") && Catch::Contains("-y"));
    CHECK(af::test::slurp(t / "heat.png") == "a file of the user's\n");
    // A link planted at the name counts as a file there.
    fs::create_symlink(t / "elsewhere.png", t / "planted.png");
    CHECK(run_in(t.path(), "compare a.png b.png --heatmap planted.png").code == 2);
    CHECK_FALSE(fs::exists(t / "elsewhere.png"));
    // The inputs themselves, by name, link or hard link: refused even with -y.
    fs::create_symlink(t / "a.png", t / "link-a.png");
    fs::create_hard_link(t / "b.png", t / "hard-b.png");
    for (const char* h : {"a.png", "b.png", "./a.png", "link-a.png", "hard-b.png"}) {
        auto r = run_in(t.path(), std::string("compare a.png b.png -y --heatmap ") + h);
        INFO(h << "\n" << r.out);
        CHECK(r.code == 2);
        CHECK_THAT(r.out, Catch::Contains("input"));
        CHECK(af::test::slurp(t / "a.png") == a);
        CHECK(af::test::slurp(t / "b.png") == b);
        CHECK(fs::is_symlink(t / "link-a.png"));
    }
    auto replaced = run_in(t.path(), "compare a.png b.png --heatmap heat.png --overwrite");
    INFO(replaced.out);
    CHECK(replaced.code == 0);
    CHECK(af::test::slurp(t / "heat.png").substr(1, 3) == "PNG");
    CHECK(run_in(t.path(), "compare a.png b.png --heatmap heat.png -y").code == 0);
}

TEST_CASE("compare: a cut-out is judged by what is visible (alpha-weighted RGB PSNR, checked against numpy), "
          "thresholds on the wrong scale are refused, a fixed heatmap scale") {
    af::test::TempDir t;
    // A: a cut-out whose transparent half holds garbage colour; B: the same visible half, other colour under alpha 0,
    // and a small error in the visible half. numpy gives both figures.
    const auto r =
        af::test::run_shell("/usr/bin/python3 - '" + (t / "a.png").string() + "' '" + (t / "b.png").string() +
                            "' <<'PY'\n"
                            "import sys, numpy as np\n"
                            "from PIL import Image\n"
                            "rng = np.random.default_rng(3)\n"
                            "a = rng.integers(0, 256, (32, 32, 4)).astype(np.uint8)\n"
                            "a[:, :16, 3] = 0; a[:, 16:, 3] = 255; a[0, 16, 3] = 128\n"
                            "b = a.copy(); b[:, :16, :3] = 255 - a[:, :16, :3]; b[:, 16:, 0] ^= 3\n"
                            "Image.fromarray(a, 'RGBA').save(sys.argv[1]); "
                            "Image.fromarray(b, 'RGBA').save(sys.argv[2])\n"
                            "A = a.astype(float) / 255; B = b.astype(float) / 255\n"
                            "e = ((A[..., :3] - B[..., :3]) ** 2).sum(-1); w = A[..., 3]\n"
                            "print(10 * np.log10(1 / (e.mean() / 3)), "
                            "10 * np.log10(1 / ((w * e).sum() / (w.sum() * 3))))\n"
                            "PY\n");
    REQUIRE(r.code == 0);
    double plain = 0, weighted = 0;
    std::istringstream(r.out) >> plain >> weighted;
    auto j = run_in(t.path(), "compare a.png b.png --json --min-psnr 30");
    INFO(j.out);
    CHECK(j.code == 0); // the weighted figure decides: the visible half is close
    const auto doc = nlohmann::json::parse(j.out.substr(0, j.out.rfind('}') + 1));
    const auto& s = doc["surfaces"][0];
    CHECK(s["psnr_rgb"].get<double>() == Approx(plain).epsilon(1e-6));
    CHECK(s["psnr_rgb_alpha_weighted"].get<double>() == Approx(weighted).epsilon(1e-6));
    CHECK(weighted > 30);
    CHECK(plain < 15);
    auto text = run_in(t.path(), "compare a.png b.png");
    CHECK_THAT(text.out, Catch::Contains("weighted by A's alpha"));

    auto bad = run_in(t.path(), "compare a.png b.png --max-error 10");
    CHECK(bad.code == 2);
    CHECK_THAT(bad.out, Catch::Contains("--max-error 10 is outside 0..1") && Catch::Contains("0.0392"));
    CHECK(run_in(t.path(), "compare a.png b.png --heatmap h.png --heatmap-scale 300").code == 2);
    auto heat = run_in(t.path(), "compare a.png b.png --heatmap h.png --heatmap-scale 0.05");
    CHECK(heat.code == 0);
    CHECK_THAT(heat.out, Catch::Contains("white = 0.050000 = 12.8/255, --heatmap-scale"));
}

namespace {

// An R8G8B8A8_SNORM DDS (DX10 header, one 2D surface) of `texels` (RGBA bytes, two's complement).
void write_snorm_dds(const fs::path& p, uint32_t w, uint32_t h, const std::vector<int8_t>& texels) {
    std::vector<uint32_t> head(37, 0); // 'DDS ' + 124-byte header + 20-byte DX10 header, as 32-bit words
    std::memcpy(&head[0], "DDS ", 4);
    head[1] = 124, head[2] = 0x1 | 0x2 | 0x4 | 0x1000, head[3] = h, head[4] = w, head[5] = w * 4, head[7] = 1;
    head[19] = 32, head[20] = 0x4;
    std::memcpy(&head[21], "DX10", 4);
    head[27] = 0x1000;
    head[32] = 31 /* R8G8B8A8_SNORM */, head[33] = 3 /* 2D */, head[35] = 1 /* array size */;
    std::ofstream f(p, std::ios::binary);
    f.write(reinterpret_cast<const char*>(head.data()), std::streamsize(head.size() * 4));
    f.write(reinterpret_cast<const char*>(texels.data()), std::streamsize(texels.size()));
}

} // namespace

// Found by the texture-kinds property test (seed 1, cases 16 and 17): the fourth channel of a signed format is
// data, and a negative one was clamped to 0 in the PNG, so it came back as 0 (an error of half the range).
TEST_CASE("convert: R8G8B8A8_SNORM to PNG and back keeps every channel, a negative fourth one too") {
    af::test::TempDir t;
    const std::vector<int8_t> texels = {-67, -90, -20, -121, 127, 0, -128, -128, 5, 60, -1, 0, -127, 127, 1, 127};
    write_snorm_dds(t / "s.dds", 2, 2, texels);
    REQUIRE(run_in(t.path(), "convert s.dds s.png").code == 0);
    auto r = run_in(t.path(), "convert s.png back.dds --like s.dds");
    INFO(r.out);
    REQUIRE(r.code == 0);
    const std::string back = af::test::slurp(t / "back.dds");
    REQUIRE(back.size() == 148 + texels.size());
    for (size_t i = 0; i < texels.size(); ++i) {
        INFO("byte " << i);
        // -128 and -127 are both -1.0.
        CHECK(std::max<int>(int8_t(back[148 + i]), -127) == std::max<int>(texels[i], -127));
    }
    // compare measures the two as the same texture.
    r = run_in(t.path(), "compare s.dds back.dds --max-error 0");
    CHECK(r.code == 0);
}
