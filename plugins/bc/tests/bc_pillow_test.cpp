// Decoder agreement with Pillow's independent BCn decoder (python3-pil) on DDS
// files this test writes: encoder output on real images plus random blocks
// (which reach every palette mode, including BC1 3-colour/transparent and the
// 6-value BC4 mode).
//
// Tolerance: 1 on interpolated values. Pillow truncates interpolants
// ((2a+b)/3, (a+b)/2, (w0 a + w1 b)/7 and /5) where we round to nearest (see
// bc_block.hpp). Endpoint texels, BC2 alpha and every transparent/opaque
// decision must match exactly, and at least 60% of all values must be
// bit-identical.
// BC5 SNORM: Pillow 9.4 (Debian 12) maps each signed endpoint s to the byte
// (s + 255) / 2 before interpolating in that halved domain, and returns its
// 6-value-mode extremes as raw 0 and 255. We compare through the same mapping:
// (ours + 127) / 2 within 2 (halving plus truncation), and Pillow's 0/255
// extremes must be our -1.0/+1.0 (bytes 1/255). Random SNORM blocks whose two
// endpoints collide in Pillow's halved domain (it would pick the other
// palette mode) are nudged apart first.
#include "test_util.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

using namespace bc_test;
namespace fs = std::filesystem;

namespace {

const char* kPython = "/usr/bin/python3";

bool have_pillow() {
    if (!fs::exists(kPython)) return false;
    std::string cmd = kPython;
    cmd.append(" -c \"import PIL.DdsImagePlugin\" >/dev/null 2>&1");
    return std::system(cmd.c_str()) == 0;
}

void put32(std::vector<uint8_t>& v, uint32_t x) {
    for (int i = 0; i < 4; ++i) v.push_back(uint8_t(x >> (8 * i)));
}

// A minimal legacy DDS header (FourCC pixel format), as strict readers expect it.
std::vector<uint8_t> dds_file(const char fourcc[4], uint32_t w, uint32_t h, const std::vector<uint8_t>& blocks) {
    std::vector<uint8_t> f = {'D', 'D', 'S', ' '};
    put32(f, 124);
    put32(f, 0x1 | 0x2 | 0x4 | 0x1000 | 0x80000); // CAPS HEIGHT WIDTH PIXELFORMAT LINEARSIZE
    put32(f, h);
    put32(f, w);
    put32(f, uint32_t(blocks.size()));
    put32(f, 0); // depth
    put32(f, 0); // mip count
    for (int i = 0; i < 11; ++i) put32(f, 0);
    put32(f, 32);  // pixel format size
    put32(f, 0x4); // FOURCC
    f.insert(f.end(), fourcc, fourcc + 4);
    for (int i = 0; i < 5; ++i) put32(f, 0);
    put32(f, 0x1000); // caps: TEXTURE
    for (int i = 0; i < 4; ++i) put32(f, 0);
    f.insert(f.end(), blocks.begin(), blocks.end());
    return f;
}

struct Case {
    const char* fourcc;
    uint32_t format;
    int channels; // Pillow output: 1 (L) or 4 (RGBA)
    std::initializer_list<int> compare;
};

std::vector<uint8_t> random_blocks(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<uint8_t> v(n);
    for (auto& b : v) b = uint8_t(rng());
    return v;
}

} // namespace

TEST_CASE("Decoders agree with Pillow on encoder output and random blocks") {
    if (!have_pillow()) {
        WARN("skipped: /usr/bin/python3 with Pillow (python3-pil) not found");
        return;
    }
    const Case cases[] = {
        {"DXT1", af::FMT_BC1_UNORM, 4, {0, 1, 2, 3}}, {"DXT3", af::FMT_BC2_UNORM, 4, {0, 1, 2, 3}},
        {"DXT5", af::FMT_BC3_UNORM, 4, {0, 1, 2, 3}}, {"ATI1", af::FMT_BC4_UNORM, 1, {0}},
        {"ATI2", af::FMT_BC5_UNORM, 4, {0, 1}},       {"BC5S", af::FMT_BC5_SNORM, 4, {0, 1}},
    };
    fs::path dir = fs::temp_directory_path() / ("bc_pillow_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    auto palm = load("a_palm_128.png"), normal = load("n_rock_128.png");

    struct File { fs::path path; const Case* c; std::vector<uint8_t> blocks; uint32_t w, h; };
    std::vector<File> files;
    for (const auto& c : cases) {
        const af::Texture& img = (c.format == af::FMT_BC5_UNORM || c.format == af::FMT_BC5_SNORM) ? normal : palm;
        for (int lvl : {0, 3}) {
            // 13×7 exercises partial edge blocks on both sides.
            af::Texture src = img;
            if (lvl == 3) {
                src = af::rgba8_picture(13, 7);
                for (uint32_t y = 0; y < 7; ++y)
                    std::copy(img.data.begin() + (y * 128 + 40) * 4, img.data.begin() + (y * 128 + 53) * 4,
                              src.data.begin() + y * 13 * 4);
            }
            files.push_back({dir / (std::string(c.fourcc) + "_enc" + std::to_string(lvl) + ".dds"), &c,
                             encode(src, c.format, level(lvl)), src.desc.width, src.desc.height});
        }
        uint32_t bsize = af::format_info(c.format)->block_bytes;
        auto rnd = random_blocks(64 * 64 / 16 * bsize, c.format);
        if (c.format == af::FMT_BC5_SNORM)
            for (size_t i = 0; i < rnd.size(); i += 8) {
                auto halved = [](uint8_t e) { return (int(int8_t(e)) + 255) / 2; };
                while (rnd[i] != rnd[i + 1] && halved(rnd[i]) == halved(rnd[i + 1])) rnd[i + 1] = uint8_t(rnd[i + 1] + 7);
            }
        files.push_back({dir / (std::string(c.fourcc) + "_random.dds"), &c, rnd, 64, 64});
    }
    std::string cmd = kPython;
    cmd.append(" ").append(BC_TEST_DATA).append("/../pillow_decode.py");
    for (auto& f : files) {
        auto bytes = dds_file(f.c->fourcc, f.w, f.h, f.blocks);
        std::ofstream(f.path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
        cmd.append(" ").append(f.path.string());
    }
    REQUIRE(std::system(cmd.c_str()) == 0);

    for (auto& f : files) {
        INFO(f.path.filename().string());
        auto ours = decode(f.blocks, f.c->format, f.w, f.h);
        fs::path raw = f.path;
        raw += ".rgba";
        std::ifstream in(raw, std::ios::binary);
        std::vector<uint8_t> theirs((std::istreambuf_iterator<char>(in)), {});
        REQUIRE(theirs.size() == size_t(f.w) * f.h * f.c->channels);
        size_t same = 0, total = 0;
        int worst = 0;
        for (size_t t = 0; t < size_t(f.w) * f.h; ++t)
            for (int ch : f.c->compare) {
                int a = ours.data[4 * t + ch], b = theirs[f.c->channels * t + ch];
                if (f.c->format == af::FMT_BC5_SNORM) {
                    // ours is s + 128; Pillow 9.4 gives (s + 255) / 2, or 0/255 for the extremes
                    if (b == 0 || b == 255) {
                        REQUIRE(a == (b == 0 ? 1 : 255));
                        continue;
                    }
                    int mapped = (a - 128 + 255) / 2;
                    REQUIRE(std::abs(mapped - b) <= 2);
                    ++same, ++total;
                    continue;
                }
                worst = std::max(worst, std::abs(a - b));
                same += a == b;
                ++total;
                if (f.c->format == af::FMT_BC2_UNORM && ch == 3) REQUIRE(a == b);
                if (f.c->format == af::FMT_BC1_UNORM && ch == 3) REQUIRE(a == b); // punch-through decisions
            }
        CHECK(worst <= 1);
        CHECK(double(same) / double(total) >= 0.6);
    }
    fs::remove_all(dir);
}
