// Decoder agreement with Pillow's independent BC6H/BC7 decoder (libImaging/BcnDecode.c).
//
// BC7: exact on every texel, for random blocks of every mode (so every
// partition, rotation, index selection and p-bit path is exercised) except the
// reserved mode, where Pillow returns opaque black and D3D (and we) transparent black.
//
// BC6H: Pillow converts to 8 bits as trunc(255 * clamp(half, 0, 1)) and
// interpolates without the +32 rounding term of the spec, which moves a value
// by at most one half ulp; so we compare our half output put through the same
// 8-bit conversion with a tolerance of 1. Pillow also does not sign-extend
// transformed endpoints of signed blocks, so random signed blocks are only
// drawn from the two untransformed modes.
#include "bptc.hpp"
#include "dds_dx10_writer.hpp"
#include "pillow_reference.hpp"

#include "assetforge/half.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <random>

namespace fs = std::filesystem;
using namespace af::bc;

namespace {

void write_file(const fs::path& p, const std::vector<uint8_t>& bytes) {
    std::ofstream out(p, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

// Texel (x, y) of a w-wide image from block-linear data decoded by `decode_block`.
template <class DecodeBlock>
std::vector<uint8_t> decode_surface_rgba8(const std::vector<uint8_t>& blocks, int w, int h, DecodeBlock decode_block) {
    std::vector<uint8_t> img(size_t(w) * h * 4);
    const int bw = (w + 3) / 4, bh = (h + 3) / 4;
    for (int by = 0; by < bh; ++by)
        for (int bx = 0; bx < bw; ++bx) {
            uint8_t px[64];
            decode_block(&blocks[16 * size_t(by * bw + bx)], px);
            for (int y = 0; y < 4; ++y)
                for (int x = 0; x < 4; ++x) {
                    const int ix = bx * 4 + x, iy = by * 4 + y;
                    if (ix < w && iy < h) memcpy(&img[4 * (size_t(iy) * w + ix)], px + 4 * (4 * y + x), 4);
                }
        }
    return img;
}

uint8_t pillow_style_8bit(uint16_t h) {
    const float f = af::half_to_float(h);
    if (!(f >= 0.0f)) return 0; // negatives (and NaN, which BC6H never produces)
    if (f > 1.0f) return 255;
    return uint8_t(f * 255.0f);
}

} // namespace

TEST_CASE("bc7 random blocks of every mode decode exactly like Pillow", "[bc7][pillow]") {
    test::ScratchDir dir;
    std::mt19937 rng(1234);
    const int w = 64, h = 64; // 256 blocks per mode
    std::vector<fs::path> files;
    std::vector<std::vector<uint8_t>> datas;
    for (int mode = 0; mode < 8; ++mode) {
        std::vector<uint8_t> blocks(16 * 256);
        for (size_t i = 0; i < blocks.size(); ++i) blocks[i] = uint8_t(rng());
        for (size_t b = 0; b < 256; ++b) blocks[16 * b] = uint8_t((blocks[16 * b] << (mode + 1)) | (1u << mode));
        files.push_back(dir.path / ("mode" + std::to_string(mode) + ".dds"));
        write_file(files.back(), test::make_dds_dx10(w, h, 98, blocks));
        datas.push_back(std::move(blocks));
    }
    auto ref = test::decode_or_skip(files);
    if (!ref) return;
    for (int mode = 0; mode < 8; ++mode) {
        CAPTURE(mode);
        auto ours = decode_surface_rgba8(datas[mode], w, h, decode_bc7_block);
        REQUIRE((*ref)[mode].size() == ours.size());
        size_t mismatches = 0;
        for (size_t i = 0; i < ours.size(); ++i) mismatches += ours[i] != (*ref)[mode][i];
        CHECK(mismatches == 0);
    }
}

TEST_CASE("bc6h random blocks of every mode agree with Pillow within its 8-bit conversion", "[bc6h][pillow]") {
    test::ScratchDir dir;
    std::mt19937 rng(99);
    const int w = 64, h = 64;
    // Mode codes: 2-bit 0 and 1, then the 5-bit codes.
    const int codes[14] = {0, 1, 2, 6, 10, 14, 18, 22, 26, 30, 3, 7, 11, 15};
    struct Case {
        int code;
        bool is_signed;
        std::vector<uint8_t> blocks;
    };
    std::vector<Case> cases;
    std::vector<fs::path> files;
    for (int code : codes)
        for (bool is_signed : {false, true}) {
            if (is_signed && code != 30 && code != 3) continue;
            Case c{code, is_signed, std::vector<uint8_t>(16 * 256)};
            for (auto& v : c.blocks) v = uint8_t(rng());
            for (size_t b = 0; b < 256; ++b) {
                uint8_t& first = c.blocks[16 * b];
                first = code < 2 ? uint8_t((first & ~3u) | code) : uint8_t((first & ~31u) | code);
                // Keep most values inside 0..1 where Pillow's 8-bit output says something:
                // clear the top bits of the base endpoint by zeroing byte 1 every other block.
                if (b % 2) c.blocks[16 * b + 1] &= 0x0f;
            }
            files.push_back(dir.path / ("bc6h_" + std::to_string(code) + (is_signed ? "s" : "u") + ".dds"));
            write_file(files.back(), test::make_dds_dx10(w, h, is_signed ? 96 : 95, c.blocks));
            cases.push_back(std::move(c));
        }
    auto ref = test::decode_or_skip(files);
    if (!ref) return;
    for (size_t i = 0; i < cases.size(); ++i) {
        const Case& c = cases[i];
        CAPTURE(c.code, c.is_signed);
        auto ours = decode_surface_rgba8(c.blocks, w, h, [&](const uint8_t* blk, uint8_t* px) {
            uint16_t half[48];
            decode_bc6h_block(blk, half, c.is_signed);
            for (int t = 0; t < 16; ++t) {
                for (int ch = 0; ch < 3; ++ch) px[4 * t + ch] = pillow_style_8bit(half[3 * t + ch]);
                px[4 * t + 3] = 255;
            }
        });
        REQUIRE((*ref)[i].size() == ours.size());
        int worst = 0;
        size_t inside = 0;
        for (size_t k = 0; k < ours.size(); ++k) {
            worst = std::max(worst, std::abs(int(ours[k]) - int((*ref)[i][k])));
            inside += ours[k] > 0 && ours[k] < 255;
        }
        CHECK(worst <= 1);
        CHECK(inside > 0); // the comparison saw values Pillow did not clamp
    }
}
