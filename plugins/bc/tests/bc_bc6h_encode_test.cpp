// BC6H encoder: HDR quality floors (log-space PSNR), exact solid colours,
// clamping of out-of-range input, determinism, and Pillow agreement on what we write.
#include "bptc_test_surface.hpp"
#include "dds_dx10_writer.hpp"
#include "pillow_reference.hpp"

#include "assetforge/half.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <limits>
#include <random>

using namespace af::bc;
using namespace af::bc::test;

namespace {

struct HdrImage {
    int w, h;
    std::vector<float> rgb;
};

// HDR test data: a texture linearised with gamma 2.2, scaled by 16, plus a
// horizontal gradient up to 1000 over the top quarter (as bench/bptc_bench does).
HdrImage make_hdr(const char* name, float scale) {
    const af::Texture img = load_test_image(name);
    HdrImage out{int(img.desc.width), int(img.desc.height), std::vector<float>(af::texels(img) * 3)};
    for (int y = 0; y < out.h; ++y)
        for (int x = 0; x < out.w; ++x) {
            const size_t i = size_t(y) * out.w + x;
            for (int c = 0; c < 3; ++c) {
                float v = std::pow(img.data[4 * i + c] / 255.0f, 2.2f) * scale;
                if (y < out.h / 4) v += 1000.0f * float(x) / float(out.w - 1);
                out.rgb[3 * i + c] = v;
            }
        }
    return out;
}

std::vector<uint8_t> encode_surface(const HdrImage& im, const Bc6hOptions& opt) {
    const int bw = (im.w + 3) / 4, bh = (im.h + 3) / 4;
    std::vector<uint8_t> blocks(size_t(bw) * bh * 16);
    for (int by = 0; by < bh; ++by)
        for (int bx = 0; bx < bw; ++bx) {
            float px[48];
            for (int t = 0; t < 16; ++t) {
                const int x = std::min(bx * 4 + t % 4, im.w - 1), y = std::min(by * 4 + t / 4, im.h - 1);
                memcpy(px + 3 * t, &im.rgb[3 * (size_t(y) * im.w + x)], 12);
            }
            encode_bc6h_block(px, &blocks[16 * (size_t(by) * bw + bx)], opt);
        }
    return blocks;
}

std::vector<uint16_t> decode_surface(const std::vector<uint8_t>& blocks, int w, int h, bool is_signed) {
    const int bw = (w + 3) / 4, bh = (h + 3) / 4;
    std::vector<uint16_t> out(size_t(w) * h * 3);
    for (int by = 0; by < bh; ++by)
        for (int bx = 0; bx < bw; ++bx) {
            uint16_t px[48];
            decode_bc6h_block(&blocks[16 * (size_t(by) * bw + bx)], px, is_signed);
            for (int t = 0; t < 16; ++t) {
                const int x = bx * 4 + t % 4, y = by * 4 + t / 4;
                if (x < w && y < h) memcpy(&out[3 * (size_t(y) * w + x)], px + 3 * t, 6);
            }
        }
    return out;
}

// PSNR of log2(1 + x), peak log2(1 + max of the source).
double log_psnr(const HdrImage& src, const std::vector<uint16_t>& dec) {
    double se = 0, peak = 0;
    for (size_t i = 0; i < src.rgb.size(); ++i) {
        const double a = std::log2(1.0 + std::max(0.0f, src.rgb[i]));
        const double b = std::log2(1.0 + std::max(0.0f, af::half_to_float(dec[i])));
        se += (a - b) * (a - b);
        peak = std::max(peak, a);
    }
    return se == 0 ? 99.0 : 10.0 * std::log10(peak * peak * double(src.rgb.size()) / se);
}

Bc6hOptions options(int level, bool is_signed) {
    Bc6hOptions o;
    o.level = level;
    o.is_signed = is_signed;
    return o;
}

} // namespace

TEST_CASE("bc6h encode→decode log-space PSNR floors on HDR data", "[bc6h][encode]") {
    // Floors: measured values minus about 0.3 dB.
    struct Floor {
        const char* image;
        bool is_signed;
        double l0, l6;
    };
    const Floor floors[] = {
        {"d_stktex_generic_rockA_64.png", false, 48.8, 49.1},
        {"d_stktex_generic_rockA_64.png", true, 48.7, 49.0},
        {"d_stk_generic_sunsetPattern_a_64.png", false, 57.2, 57.4},
        {"n_stktex_windowsSet_a_Normal_64.png", false, 46.2, 46.3},
    };
    for (const Floor& f : floors) {
        CAPTURE(f.image, f.is_signed);
        const HdrImage im = make_hdr(f.image, 16.0f);
        double prev = 0;
        for (int l : {0, 6}) {
            CAPTURE(l);
            const double p =
                log_psnr(im, decode_surface(encode_surface(im, options(l, f.is_signed)), im.w, im.h, f.is_signed));
            CHECK(p >= (l == 0 ? f.l0 : f.l6));
            CHECK(p >= prev - 0.05);
            prev = p;
        }
    }
}

TEST_CASE("bc6h solid colours reproduce every finite half exactly", "[bc6h][encode]") {
    // Mode 15 (16-bit endpoints) can hit every finite half; sample the whole range.
    for (bool is_signed : {false, true})
        for (int l : {0, 6}) {
            for (uint32_t h = 0; h <= 0xffff; h += (h < 0x400 ? 1 : 37)) {
                const uint16_t half = uint16_t(h);
                if ((half & 0x7c00) == 0x7c00) continue; // inf / NaN
                if (!is_signed && (half & 0x8000)) continue;
                if (half == 0x8000) continue; // -0 decodes as +0
                const float v = af::half_to_float(half);
                float px[48];
                for (int t = 0; t < 16; ++t) px[3 * t] = px[3 * t + 1] = px[3 * t + 2] = v;
                uint8_t blk[16];
                uint16_t out[48];
                encode_bc6h_block(px, blk, options(l, is_signed));
                decode_bc6h_block(blk, out, is_signed);
                CAPTURE(h, is_signed, l);
                for (int i = 0; i < 48; ++i) REQUIRE(out[i] == half);
            }
        }
    // A colour, not just greys.
    float px[48];
    for (int t = 0; t < 16; ++t) px[3 * t] = 0.25f, px[3 * t + 1] = 100.0f, px[3 * t + 2] = 3.0e4f;
    uint8_t blk[16];
    uint16_t out[48];
    encode_bc6h_block(px, blk, options(3, false));
    decode_bc6h_block(blk, out, false);
    for (int t = 0; t < 16; ++t) {
        CHECK(out[3 * t] == af::float_to_half(0.25f));
        CHECK(out[3 * t + 1] == af::float_to_half(100.0f));
        CHECK(out[3 * t + 2] == af::float_to_half(3.0e4f));
    }
}

TEST_CASE("bc6h clamps what the format cannot hold", "[bc6h][encode]") {
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    struct Solid {
        float in;
        bool is_signed;
        float expected;
    };
    const Solid solids[] = {{-5.0f, false, 0.0f},     {-inf, false, 0.0f},  {nan, false, 0.0f},
                            {70000.0f, false, 65504}, {inf, false, 65504},  {1e9f, true, 65504},
                            {-1e9f, true, -65504},    {-inf, true, -65504}, {nan, true, 0.0f}};
    for (const Solid& s : solids) {
        CAPTURE(s.in, s.is_signed);
        float px[48];
        for (float& v : px) v = s.in;
        uint8_t blk[16];
        uint16_t out[48];
        encode_bc6h_block(px, blk, options(3, s.is_signed));
        decode_bc6h_block(blk, out, s.is_signed);
        for (uint16_t h : out) REQUIRE(af::half_to_float(h) == s.expected);
    }
    // Mixed garbage: whatever comes out is finite (and non-negative for UF16).
    std::mt19937 rng(3);
    const float specials[] = {-5.0f, -1e9f, 1e9f, 70000.0f, nan, inf, -inf, 1.0f};
    for (int rep = 0; rep < 50; ++rep)
        for (bool is_signed : {false, true}) {
            float px[48];
            for (float& v : px) v = specials[rng() % 8];
            uint8_t blk[16];
            uint16_t out[48];
            encode_bc6h_block(px, blk, options(rep % 11, is_signed));
            decode_bc6h_block(blk, out, is_signed);
            for (uint16_t h : out) {
                const float v = af::half_to_float(h);
                REQUIRE(std::isfinite(v));
                if (!is_signed) REQUIRE(v >= 0.0f);
            }
        }
}

TEST_CASE("bc6h encoding is deterministic", "[bc6h][encode]") {
    const HdrImage im = make_hdr("d_stktex_generic_rockA_64.png", 16.0f);
    for (bool is_signed : {false, true}) {
        const auto a = encode_surface(im, options(3, is_signed));
        const auto b = encode_surface(im, options(3, is_signed));
        CHECK(a == b);
    }
}

TEST_CASE("bc6h encoder output agrees with Pillow within its 8-bit conversion", "[bc6h][encode][pillow]") {
    // LDR crops as floats in 0..1 (what Pillow's 8-bit output can show), both
    // signednesses; see bc_bptc_pillow_test.cpp for why the tolerance is 1.
    ScratchDir dir;
    struct Case {
        int w, h;
        bool is_signed;
        std::vector<uint8_t> blocks;
    };
    std::vector<Case> cases;
    std::vector<std::filesystem::path> files;
    for (const char* name : {"d_stktex_generic_rockA_64.png", "d_stk_generic_sunsetPattern_a_64.png"}) {
        const af::Texture img = load_test_image(name);
        HdrImage im{int(img.desc.width), int(img.desc.height), std::vector<float>(af::texels(img) * 3)};
        for (size_t i = 0; i < af::texels(img); ++i)
            for (int c = 0; c < 3; ++c) im.rgb[3 * i + c] = img.data[4 * i + c] / 255.0f;
        for (bool is_signed : {false, true}) {
            Case c{im.w, im.h, is_signed, encode_surface(im, options(3, is_signed))};
            files.push_back(dir.path / ("bc6h" + std::to_string(files.size()) + ".dds"));
            const auto dds = make_dds_dx10(im.w, im.h, is_signed ? 96 : 95, c.blocks);
            std::ofstream(files.back(), std::ios::binary)
                .write(reinterpret_cast<const char*>(dds.data()), std::streamsize(dds.size()));
            cases.push_back(std::move(c));
        }
    }
    auto ref = decode_or_skip(files);
    if (!ref) return; // Pillow is not installed
    for (size_t i = 0; i < cases.size(); ++i) {
        const Case& c = cases[i];
        CAPTURE(i, c.is_signed);
        const auto ours = decode_surface(c.blocks, c.w, c.h, c.is_signed);
        REQUIRE((*ref)[i].size() == size_t(c.w) * c.h * 4);
        int worst = 0;
        for (size_t t = 0; t < size_t(c.w) * c.h; ++t)
            for (int ch = 0; ch < 3; ++ch) {
                const float f = af::half_to_float(ours[3 * t + ch]);
                const int mine = f < 0 ? 0 : f > 1 ? 255 : int(f * 255.0f);
                worst = std::max(worst, std::abs(mine - int((*ref)[i][4 * t + ch])));
            }
        CHECK(worst <= 1);
    }
}
