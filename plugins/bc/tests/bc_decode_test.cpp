// Hand-built blocks with outputs worked out from the specifications.
#include "bc_block.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstring>

using namespace af::bc;

namespace {
std::array<uint8_t, 64> bc1(const std::array<uint8_t, 8>& b) {
    std::array<uint8_t, 64> out{};
    decode_bc1(b.data(), out.data(), 16);
    return out;
}
std::array<uint8_t, 4> texel(const std::array<uint8_t, 64>& px, int i) {
    return {px[4 * i], px[4 * i + 1], px[4 * i + 2], px[4 * i + 3]};
}
using RGBA = std::array<uint8_t, 4>;
} // namespace

TEST_CASE("BC1 4-colour block: endpoints expand by bit replication, thirds round to nearest") {
    // c0 = 0xF800 (pure red 31,0,0) > c1 = 0x001F (pure blue): 4-colour mode.
    // Indices: texel i uses index i % 4.
    std::array<uint8_t, 8> b = {0x00, 0xF8, 0x1F, 0x00, 0xE4, 0xE4, 0xE4, 0xE4};
    auto px = bc1(b);
    CHECK(texel(px, 0) == RGBA{255, 0, 0, 255});
    CHECK(texel(px, 1) == RGBA{0, 0, 255, 255});
    CHECK(texel(px, 2) == RGBA{170, 0, 85, 255}); // (2*255+0+1)/3 = 170, (0+255+1)/3 = 85
    CHECK(texel(px, 3) == RGBA{85, 0, 170, 255});
    CHECK(texel(px, 15) == RGBA{85, 0, 170, 255});
}

TEST_CASE("BC1 4-colour rounding differs from truncation where the third is x.67") {
    // r0 = 1 → 8, r1 = 0 → 0; (2*8+0)/3 = 5.33 → 5, (8+0)/3 = 2.67 → 3 (truncation gives 2).
    // c0 = 0x0800, c1 = 0x0000.
    std::array<uint8_t, 8> b = {0x00, 0x08, 0x00, 0x00, 0x0E, 0, 0, 0};
    auto px = bc1(b);
    // 0x0E = 0b1110: texel 0 takes index 2, texel 1 index 3
    CHECK(px[0] == 5);
    CHECK(px[4] == 3);
    CHECK(texel(px, 2) == RGBA{8, 0, 0, 255}); // index 0
}

TEST_CASE("BC1 3-colour block: midpoint and transparent black") {
    // c0 = 0x001F (blue) <= c1 = 0xF800 (red): 3-colour mode.
    std::array<uint8_t, 8> b = {0x1F, 0x00, 0x00, 0xF8, 0xE4, 0x00, 0xFF, 0x55};
    auto px = bc1(b);
    CHECK(texel(px, 0) == RGBA{0, 0, 255, 255});
    CHECK(texel(px, 1) == RGBA{255, 0, 0, 255});
    CHECK(texel(px, 2) == RGBA{128, 0, 128, 255}); // (255+0+1)/2
    CHECK(texel(px, 3) == RGBA{0, 0, 0, 0});
    for (int i = 4; i < 8; ++i) CHECK(texel(px, i) == RGBA{0, 0, 255, 255});
    for (int i = 8; i < 12; ++i) CHECK(texel(px, i) == RGBA{0, 0, 0, 0});
    for (int i = 12; i < 16; ++i) CHECK(texel(px, i) == RGBA{255, 0, 0, 255});
}

TEST_CASE("BC1 equal endpoints are 3-colour: index 3 is transparent") {
    std::array<uint8_t, 8> b = {0x34, 0x12, 0x34, 0x12, 0xC0, 0, 0, 0};
    auto px = bc1(b);
    CHECK(px[3] == 255);
    CHECK(texel(px, 3) == RGBA{0, 0, 0, 0});
    // 0x1234: r = 2 → 16, g = 0x11 = 17 → 69, b = 0x14 = 20 → 165
    CHECK(texel(px, 0) == RGBA{16, 69, 165, 255});
}

TEST_CASE("BC2: explicit 4-bit alpha, colour always 4-colour") {
    std::array<uint8_t, 16> b{};
    for (int i = 0; i < 8; ++i) b[i] = uint8_t((2 * i) | (2 * i + 1) << 4); // alpha = texel index
    // colour: c0 = 0x001F <= c1 = 0xF800 but BC2 ignores the order: index 3 is a third, not black
    uint8_t col[8] = {0x1F, 0x00, 0x00, 0xF8, 0xFF, 0xFF, 0xFF, 0xFF};
    std::memcpy(b.data() + 8, col, 8);
    uint8_t px[64];
    decode_bc2(b.data(), px, 16);
    for (int i = 0; i < 16; ++i) {
        CHECK(px[4 * i + 3] == i * 17);
        CHECK(px[4 * i] == 170); // (0 + 2*255 + 1)/3
        CHECK(px[4 * i + 2] == 85);
    }
}

TEST_CASE("BC3: 8-value and 6-value alpha modes") {
    uint8_t px[64];
    std::array<uint8_t, 16> b{};
    uint8_t col[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0}; // white
    std::memcpy(b.data() + 8, col, 8);
    // 8-value: a0 = 200 > a1 = 10; indices 0..7 on texels 0..7, then 7..0
    b[0] = 200, b[1] = 10;
    uint64_t bits = 0;
    for (int i = 0; i < 8; ++i) bits |= uint64_t(i) << (3 * i), bits |= uint64_t(7 - i) << (3 * (i + 8));
    for (int i = 0; i < 6; ++i) b[2 + i] = uint8_t(bits >> (8 * i));
    decode_bc3(b.data(), px, 16);
    const int expect8[8] = {200, 10, (6 * 200 + 10 + 3) / 7, (5 * 200 + 20 + 3) / 7, (4 * 200 + 30 + 3) / 7,
                            (3 * 200 + 40 + 3) / 7, (2 * 200 + 50 + 3) / 7, (200 + 60 + 3) / 7};
    CHECK(expect8[2] == 173); // 1210/7 = 172.86
    for (int i = 0; i < 8; ++i) {
        CHECK(px[4 * i + 3] == expect8[i]);
        CHECK(px[4 * (i + 8) + 3] == expect8[7 - i]);
        CHECK(px[4 * i] == 255);
    }
    // 6-value: a0 = 10 <= a1 = 200
    b[0] = 10, b[1] = 200;
    decode_bc3(b.data(), px, 16);
    const int expect6[8] = {10, 200, (4 * 10 + 200 + 2) / 5, (3 * 10 + 400 + 2) / 5, (2 * 10 + 600 + 2) / 5,
                            (10 + 800 + 2) / 5, 0, 255};
    CHECK(expect6[2] == 48);
    for (int i = 0; i < 8; ++i) CHECK(px[4 * i + 3] == expect6[i]);
}

TEST_CASE("BC4 unsigned: bytes and exact floats") {
    uint8_t b[8] = {255, 0, 0, 0, 0, 0, 0, 0};
    uint64_t bits = 0;
    for (int i = 0; i < 16; ++i) bits |= uint64_t(i & 7) << (3 * i);
    for (int i = 0; i < 6; ++i) b[2 + i] = uint8_t(bits >> (8 * i));
    uint8_t v[16];
    float f[16];
    decode_bc4_bytes(b, false, v);
    decode_bc4_float(b, false, f);
    CHECK(v[0] == 255);
    CHECK(v[1] == 0);
    CHECK(v[2] == 219); // 6*255/7 = 218.57
    CHECK(f[2] == Approx(6.0 / 7.0).epsilon(1e-6));
    CHECK(v[7] == 36); // 255/7 = 36.43
    CHECK(f[7] == Approx(1.0 / 7.0).epsilon(1e-6));
}

TEST_CASE("BC4 signed: two's complement endpoints, -128 reads as -127, 6-value extremes ±1") {
    uint8_t v[16];
    float f[16];
    // 8-value: e0 = 127 > e1 = -128 (→ -127)
    uint8_t b[8] = {0x7F, 0x80, 0, 0, 0, 0, 0, 0};
    uint64_t bits = 0;
    for (int i = 0; i < 8; ++i) bits |= uint64_t(i) << (3 * i);
    for (int i = 0; i < 6; ++i) b[2 + i] = uint8_t(bits >> (8 * i));
    decode_bc4_float(b, true, f);
    decode_bc4_bytes(b, true, v);
    CHECK(f[0] == 1.0f);
    CHECK(f[1] == -1.0f);
    CHECK(f[2] == Approx((6 * 127 - 127) / 7.0 / 127.0)); // 5/7
    CHECK(v[0] == 255);
    CHECK(v[1] == 1);
    CHECK(v[2] == 128 + 91); // 635/7 = 90.71 → 91
    // 6-value: e0 = -64 <= e1 = 64
    b[0] = uint8_t(-64), b[1] = 64;
    decode_bc4_float(b, true, f);
    decode_bc4_bytes(b, true, v);
    CHECK(f[0] == Approx(-64 / 127.0));
    CHECK(f[2] == Approx((4 * -64 + 64) / 5.0 / 127.0)); // -38.4
    CHECK(v[2] == 128 - 38);
    CHECK(f[6] == -1.0f);
    CHECK(f[7] == 1.0f);
    CHECK(v[6] == 1);
    CHECK(v[7] == 255);
}

TEST_CASE("BC5 is two BC4 blocks (checked through the palette helper)") {
    uint8_t pal[8];
    bc4_palette(0, 255, false, pal); // 6-value mode
    CHECK(pal[2] == 51);
    CHECK(pal[5] == 204);
    CHECK(pal[6] == 0);
    CHECK(pal[7] == 255);
    bc4_palette(uint8_t(-127), 127, true, pal);
    CHECK(pal[6] == 1);
    CHECK(pal[2] == 128 + (4 * -127 + 127 - 2) / 5); // -76.2 → -76
}

// The SIMD block decoder against a plain per-texel reading of the spec's formulas.
TEST_CASE("BC1/BC2-colour decoders agree with a per-texel reference on random blocks") {
    uint32_t state = 12345;
    auto next = [&] { return state = state * 1664525u + 1013904223u; };
    auto expand = [](int v, int bits) { return bits == 5 ? (v << 3 | v >> 2) : (v << 2 | v >> 4); };
    for (int n = 0; n < 5000; ++n) {
        std::array<uint8_t, 8> b;
        for (auto& x : b) x = uint8_t(next() >> 24);
        if (n % 7 == 0) b[2] = b[0], b[3] = b[1]; // equal endpoints
        const int c0 = b[0] | b[1] << 8, c1 = b[2] | b[3] << 8;
        const int e0[3] = {expand(c0 >> 11, 5), expand((c0 >> 5) & 63, 6), expand(c0 & 31, 5)};
        const int e1[3] = {expand(c1 >> 11, 5), expand((c1 >> 5) & 63, 6), expand(c1 & 31, 5)};
        for (bool four : {false, true}) {
            std::array<uint8_t, 64> out{};
            if (four) decode_colour4(b.data(), out.data(), 16);
            else decode_bc1(b.data(), out.data(), 16);
            const bool four_mode = four || c0 > c1;
            for (int i = 0; i < 16; ++i) {
                const int k = (b[4 + i / 4] >> (2 * (i % 4))) & 3;
                for (int ch = 0; ch < 4; ++ch) {
                    int want;
                    if (ch == 3) want = (!four_mode && k == 3) ? 0 : 255;
                    else if (k == 0) want = e0[ch];
                    else if (k == 1) want = e1[ch];
                    else if (four_mode) want = k == 2 ? (2 * e0[ch] + e1[ch] + 1) / 3 : (e0[ch] + 2 * e1[ch] + 1) / 3;
                    else want = k == 2 ? (e0[ch] + e1[ch] + 1) / 2 : 0;
                    INFO("block " << n << " texel " << i << " channel " << ch << " four " << four);
                    REQUIRE(int(out[4 * i + ch]) == want);
                }
            }
        }
    }
}

TEST_CASE("BC4 decoder agrees with a per-texel reference on random blocks") {
    uint32_t state = 777;
    auto next = [&] { return state = state * 1664525u + 1013904223u; };
    for (int n = 0; n < 5000; ++n) {
        std::array<uint8_t, 8> b;
        for (auto& x : b) x = uint8_t(next() >> 24);
        if (n % 5 == 0) b[1] = b[0];
        for (bool is_signed : {false, true}) {
            uint8_t out[16];
            decode_bc4_bytes(b.data(), is_signed, out);
            // Byte-domain endpoints (signed: value + 128, -128 reads as -127).
            auto dom = [&](uint8_t e) { return is_signed ? std::max(int(int8_t(e)), -127) + 128 : int(e); };
            const int a = dom(b[0]), c = dom(b[1]);
            const bool eight = is_signed ? int8_t(b[0]) > int8_t(b[1]) : b[0] > b[1];
            uint64_t bits = 0;
            for (int i = 0; i < 6; ++i) bits |= uint64_t(b[2 + i]) << (8 * i);
            for (int i = 0; i < 16; ++i) {
                const int k = int((bits >> (3 * i)) & 7);
                int want;
                if (k == 0) want = a;
                else if (k == 1) want = c;
                else if (eight) want = ((8 - k) * a + (k - 1) * c + 3) / 7;
                else if (k < 6) want = ((6 - k) * a + (k - 1) * c + 2) / 5;
                else want = k == 6 ? (is_signed ? 1 : 0) : 255;
                INFO("block " << n << " texel " << i << " signed " << is_signed);
                REQUIRE(int(out[i]) == want);
            }
        }
    }
}
