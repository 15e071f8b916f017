// BC7 decoder against blocks assembled field by field from the spec's layout
// (Table.M order: mode, partition, rotation, index selection, colour, alpha,
// p-bits, indices) with the expected texels worked out by hand.
#include "bit_stream.hpp"
#include "bptc.hpp"
#include "bptc_tables.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <cstring>
#include <initializer_list>
#include <utility>

using af::bc::BitWriter128;

namespace {

struct Block {
    BitWriter128 w;
    void put(uint32_t v, int n) { w.write(v, n); }
    void put_each(std::initializer_list<uint32_t> vs, int n) {
        for (uint32_t v : vs) put(v, n);
    }
    // Indices for 16 texels; texels in `anchors` get one bit fewer.
    void put_indices(const std::array<uint32_t, 16>& idx, int bits, std::initializer_list<int> anchors) {
        for (int t = 0; t < 16; ++t) {
            int n = bits;
            for (int a : anchors) n -= (a == t);
            put(idx[t], n);
        }
    }
    std::array<uint8_t, 64> decode() {
        REQUIRE(w.position() == 128);
        uint8_t raw[16];
        w.store(raw);
        std::array<uint8_t, 64> out{};
        af::bc::decode_bc7_block(raw, out.data());
        return out;
    }
};

std::array<uint8_t, 4> bc7_texel(const std::array<uint8_t, 64>& px, int t) {
    return {px[4 * t], px[4 * t + 1], px[4 * t + 2], px[4 * t + 3]};
}
using Px = std::array<uint8_t, 4>;

} // namespace

TEST_CASE("bc7 mode 0: three subsets, 4-bit colour, unique p-bits", "[bc7][decode]") {
    Block b;
    b.put(1, 1);                         // mode 0
    b.put(0, 4);                         // partition 0: 0011 0011 0221 2222, anchors 0, 3, 15
    b.put_each({15, 0, 0, 15, 8, 1}, 4); // R: s0e0 s0e1 s1e0 s1e1 s2e0 s2e1
    b.put_each({0, 15, 0, 15, 8, 2}, 4); // G
    b.put_each({0, 0, 15, 15, 8, 3}, 4); // B
    b.put_each({1, 0, 1, 1, 0, 1}, 1);   // p-bits
    b.put_indices({0, 0, 7, 3, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0}, 3, {0, 3, 15});
    auto px = b.decode();
    CHECK(bc7_texel(px, 0) == Px{255, 8, 8, 255});
    CHECK(bc7_texel(px, 4) == Px{255, 8, 8, 255});
    CHECK(bc7_texel(px, 6) == Px{8, 8, 255, 255});
    CHECK(bc7_texel(px, 2) == Px{255, 255, 255, 255});
    CHECK(bc7_texel(px, 3) == Px{112, 112, 255, 255});
    CHECK(bc7_texel(px, 9) == Px{54, 67, 78, 255});
    CHECK(bc7_texel(px, 15) == Px{132, 132, 132, 255});
}

TEST_CASE("bc7 mode 1: two subsets, 6-bit colour, shared p-bits", "[bc7][decode]") {
    Block b;
    b.put(0b10, 2);
    b.put(13, 6); // partition 13: top half subset 0, bottom half subset 1; anchor 15
    b.put_each({63, 0, 10, 40}, 6);
    b.put_each({0, 63, 20, 50}, 6);
    b.put_each({32, 0, 30, 60}, 6);
    b.put_each({1, 0}, 1); // shared p-bit per subset
    b.put_indices({0, 7, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 3}, 3, {0, 15});
    auto px = b.decode();
    CHECK(bc7_texel(px, 0) == Px{255, 2, 131, 255});
    CHECK(bc7_texel(px, 1) == Px{2, 255, 2, 255});
    CHECK(bc7_texel(px, 8) == Px{110, 150, 190, 255});
    CHECK(bc7_texel(px, 15) == Px{91, 131, 171, 255});
    CHECK(bc7_texel(px, 9) == Px{40, 80, 120, 255});
}

TEST_CASE("bc7 mode 2: three subsets, 5-bit colour, no p-bits", "[bc7][decode]") {
    Block b;
    b.put(0b100, 3);
    b.put(8, 6); // partition 8: rows 0-1 subset 0, row 2 subset 1, row 3 subset 2; anchors 0, 8, 15
    b.put_each({31, 0, 16, 0, 1, 4}, 5);
    b.put_each({0, 0, 16, 0, 2, 5}, 5);
    b.put_each({0, 31, 16, 0, 3, 6}, 5);
    b.put_indices({0, 2, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 1}, 2, {0, 8, 15});
    auto px = b.decode();
    CHECK(bc7_texel(px, 0) == Px{255, 0, 0, 255});
    CHECK(bc7_texel(px, 1) == Px{84, 0, 171, 255});
    CHECK(bc7_texel(px, 8) == Px{89, 89, 89, 255});
    CHECK(bc7_texel(px, 9) == Px{132, 132, 132, 255});
    CHECK(bc7_texel(px, 12) == Px{33, 41, 49, 255});
    CHECK(bc7_texel(px, 15) == Px{16, 24, 32, 255});
}

TEST_CASE("bc7 mode 3: two subsets, 7-bit colour, unique p-bits", "[bc7][decode]") {
    Block b;
    b.put(0b1000, 4);
    b.put(0, 6); // partition 0: columns 2-3 subset 1; anchor 15
    b.put_each({127, 0, 100, 50}, 7);
    b.put_each({0, 127, 100, 60}, 7);
    b.put_each({64, 0, 100, 70}, 7);
    b.put_each({1, 0, 0, 1}, 1);
    b.put_indices({1, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, 2, {0, 15});
    auto px = b.decode();
    CHECK(bc7_texel(px, 0) == Px{171, 84, 87, 255});
    CHECK(bc7_texel(px, 1) == Px{255, 1, 129, 255});
    CHECK(bc7_texel(px, 2) == Px{133, 147, 160, 255});
    CHECK(bc7_texel(px, 3) == Px{200, 200, 200, 255});
    CHECK(bc7_texel(px, 15) == Px{168, 174, 181, 255});
}

TEST_CASE("bc7 mode 4: index selection swaps the 2- and 3-bit index sets", "[bc7][decode]") {
    Block b;
    b.put(0b10000, 5);
    b.put(0, 2); // no rotation
    b.put(1, 1); // index selection: colour uses the 3-bit indices
    b.put_each({31, 0}, 5);
    b.put_each({16, 16}, 5);
    b.put_each({0, 31}, 5);
    b.put_each({63, 0}, 6);
    b.put_indices({0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 2, {0});
    b.put_indices({0, 7, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 3, {0});
    auto px = b.decode();
    CHECK(bc7_texel(px, 0) == Px{255, 132, 0, 255});
    CHECK(bc7_texel(px, 1) == Px{0, 132, 255, 171});
    CHECK(bc7_texel(px, 2) == Px{147, 132, 108, 255});
}

TEST_CASE("bc7 mode 5: rotation swaps alpha and red", "[bc7][decode]") {
    Block b;
    b.put(0b100000, 6);
    b.put(1, 2); // rotation 1: swap(a, r)
    b.put_each({127, 0}, 7);
    b.put_each({64, 32}, 7);
    b.put_each({1, 1}, 7);
    b.put_each({200, 100}, 8);
    b.put_indices({0, 3, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 2, {0});
    b.put_indices({0, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 2, {0});
    auto px = b.decode();
    CHECK(bc7_texel(px, 0) == Px{200, 129, 2, 255});
    CHECK(bc7_texel(px, 1) == Px{133, 64, 2, 0});
    CHECK(bc7_texel(px, 2) == Px{100, 108, 2, 171});
    CHECK(bc7_texel(px, 5) == Px{200, 129, 2, 255});
}

// Every rotation of modes 4 and 5 on random blocks: the same block with rotation
// 0 decodes to the same texels with alpha and the rotated channel swapped back.
TEST_CASE("bc7 modes 4 and 5: every rotation swaps alpha with its channel", "[bc7][decode]") {
    uint32_t seed = 99;
    auto rnd = [&] { return seed = seed * 1664525u + 1013904223u, uint8_t(seed >> 24); };
    for (int n = 0; n < 2000; ++n) {
        const int mode = 4 + n % 2;
        uint8_t blk[16];
        for (auto& x : blk) x = rnd();
        blk[0] = uint8_t((blk[0] & ~((2u << mode) - 1)) | (1u << mode)); // mode prefix; rotation next
        const int shift = mode + 1;                                      // rotation bits: 5-6 or 6-7
        uint8_t base[16];
        std::memcpy(base, blk, 16);
        base[0] = uint8_t(base[0] & ~(3u << shift));
        uint8_t ref[64];
        af::bc::decode_bc7_block(base, ref);
        for (int r = 1; r < 4; ++r) {
            uint8_t rb[16], px[64];
            std::memcpy(rb, base, 16);
            rb[0] = uint8_t(rb[0] | r << shift);
            af::bc::decode_bc7_block(rb, px);
            for (int t = 0; t < 16; ++t) {
                uint8_t want[4] = {ref[4 * t], ref[4 * t + 1], ref[4 * t + 2], ref[4 * t + 3]};
                std::swap(want[3], want[r - 1]);
                INFO("mode " << mode << " rotation " << r << " texel " << t);
                REQUIRE(std::memcmp(px + 4 * t, want, 4) == 0);
            }
        }
    }
}

TEST_CASE("bc7 mode 6: one subset RGBA, 4-bit indices", "[bc7][decode]") {
    Block b;
    b.put(0b1000000, 7);
    b.put_each({10, 100}, 7);
    b.put_each({0, 127}, 7);
    b.put_each({50, 50}, 7);
    b.put_each({127, 127}, 7);
    b.put_each({1, 0}, 1);
    b.put_indices({0, 15, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 4, {0});
    auto px = b.decode();
    CHECK(bc7_texel(px, 0) == Px{21, 1, 101, 255});
    CHECK(bc7_texel(px, 1) == Px{200, 254, 100, 254});
    CHECK(bc7_texel(px, 2) == Px{105, 120, 101, 255});
}

TEST_CASE("bc7 mode 7: two subsets RGBA, 5-bit endpoints, unique p-bits", "[bc7][decode]") {
    Block b;
    b.put(0b10000000, 8);
    b.put(1, 6); // partition 1: column 3 is subset 1; anchor 15
    b.put_each({31, 0, 5, 20}, 5);
    b.put_each({0, 31, 5, 25}, 5);
    b.put_each({10, 0, 5, 30}, 5);
    b.put_each({31, 0, 16, 1}, 5);
    b.put_each({1, 0, 0, 1}, 1);
    b.put_indices({1, 3, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 2, {0, 15});
    auto px = b.decode();
    CHECK(bc7_texel(px, 0) == Px{171, 85, 57, 171});
    CHECK(bc7_texel(px, 1) == Px{0, 251, 0, 0});
    CHECK(bc7_texel(px, 3) == Px{125, 152, 179, 51});
    CHECK(bc7_texel(px, 15) == Px{40, 40, 40, 130});
}

TEST_CASE("bc7 reserved mode decodes to transparent black", "[bc7][decode]") {
    uint8_t raw[16];
    for (int i = 0; i < 16; ++i) raw[i] = uint8_t(0x5a + 17 * i);
    raw[0] = 0;
    uint8_t out[64];
    for (auto& v : out) v = 0xcc;
    af::bc::decode_bc7_block(raw, out);
    for (uint8_t v : out) REQUIRE(v == 0);
}

TEST_CASE("bptc partition tables: anchors lie in their subsets", "[bc7][tables]") {
    using namespace af::bc::bptc;
    for (int p = 0; p < 64; ++p) {
        CHECK(kSubsets2[p][0] == 0);
        CHECK(kSubsets3[p][0] == 0);
        CHECK(kSubsets2[p][kAnchor2[p]] == 1);
        CHECK(kSubsets3[p][kAnchor3Second[p]] == 1);
        CHECK(kSubsets3[p][kAnchor3Third[p]] == 2);
        int count3[3] = {}, count2[2] = {};
        for (int t = 0; t < 16; ++t) ++count3[kSubsets3[p][t]], ++count2[kSubsets2[p][t]];
        CHECK(count2[1] > 0);
        CHECK(count3[1] > 0);
        CHECK(count3[2] > 0);
    }
}
