#include "xbox_swizzle.hpp"

#include <catch2/catch.hpp>

#include <numeric>
#include <random>

using namespace af::xtf;

namespace {
// Which linear texel each storage slot holds, for a texture whose texel i holds i.
std::vector<uint32_t> storage_order(uint32_t w, uint32_t h, uint32_t d) {
    std::vector<uint32_t> linear(size_t(w) * h * d), stored(linear.size());
    std::iota(linear.begin(), linear.end(), 0u);
    swizzle(reinterpret_cast<const uint8_t*>(linear.data()), reinterpret_cast<uint8_t*>(stored.data()), w, h, d, 4);
    return stored;
}
} // namespace

TEST_CASE("swizzle: the spec's 8x4 table", "[swizzle]") {
    const uint32_t table[4][8] = {{0, 1, 4, 5, 16, 17, 20, 21},
                                  {2, 3, 6, 7, 18, 19, 22, 23},
                                  {8, 9, 12, 13, 24, 25, 28, 29},
                                  {10, 11, 14, 15, 26, 27, 30, 31}};
    for (uint32_t y = 0; y < 4; ++y)
        for (uint32_t x = 0; x < 8; ++x) CHECK(swizzled_index(x, y, 0, 8, 4) == table[y][x]);
    CHECK(swizzled_index(5, 2, 0, 8, 4) == 25);
    const std::vector<uint32_t> first16 = {0, 1, 8, 9, 2, 3, 10, 11, 16, 17, 24, 25, 18, 19, 26, 27};
    auto stored = storage_order(8, 4, 1);
    CHECK(std::vector<uint32_t>(stored.begin(), stored.begin() + 16) == first16);
}

TEST_CASE("swizzle: 4x8", "[swizzle]") {
    const uint32_t rows[5][4] = {{0, 1, 4, 5}, {2, 3, 6, 7}, {8, 9, 12, 13}, {10, 11, 14, 15}, {16, 17, 20, 21}};
    for (uint32_t y = 0; y < 5; ++y)
        for (uint32_t x = 0; x < 4; ++x) CHECK(swizzled_index(x, y, 0, 4, 8) == rows[y][x]);
    // y bits 2 and 3 sit on top once x has run out: row 7 ends the 32 slots.
    CHECK(swizzled_index(3, 7, 0, 4, 8) == 31);
}

TEST_CASE("swizzle: 1xN and Nx1 are linear", "[swizzle]") {
    for (uint32_t n : {1u, 2u, 16u, 512u}) {
        for (uint32_t i = 0; i < n; ++i) {
            CHECK(swizzled_index(i, 0, 0, n, 1) == i);
            CHECK(swizzled_index(0, i, 0, 1, n) == i);
        }
        auto a = storage_order(n, 1, 1), b = storage_order(1, n, 1);
        for (uint32_t i = 0; i < n; ++i) {
            CHECK(a[i] == i);
            CHECK(b[i] == i);
        }
    }
}

TEST_CASE("swizzle: 3-D 4x4x2 interleaves x, y, z", "[swizzle]") {
    auto stored = storage_order(4, 4, 2);
    const std::vector<uint32_t> first8 = {0, 1, 4, 5, 16, 17, 20, 21};
    CHECK(std::vector<uint32_t>(stored.begin(), stored.begin() + 8) == first8);
    // bits x0 y0 z0 x1 y1
    CHECK(swizzled_index(0, 0, 1, 4, 4, 2) == 4);
    CHECK(swizzled_index(2, 0, 0, 4, 4, 2) == 8);
    CHECK(swizzled_index(0, 2, 0, 4, 4, 2) == 16);
    CHECK(swizzled_index(3, 3, 1, 4, 4, 2) == 31);
    // 2x2x8: z has surplus bits that stack at the top.
    CHECK(swizzled_index(0, 0, 7, 2, 2, 8) == (4u | 8u | 16u));
}

TEST_CASE("swizzle: tables agree with the bit-by-bit rule and round-trip", "[swizzle]") {
    std::mt19937 rng(7);
    for (auto [w, h, d] : {std::tuple{8u, 4u, 1u}, {32u, 2u, 1u}, {2u, 64u, 1u}, {16u, 8u, 4u}, {1u, 1u, 1u}}) {
        auto t = make_swizzle_tables(w, h, d);
        for (uint32_t z = 0; z < d; ++z)
            for (uint32_t y = 0; y < h; ++y)
                for (uint32_t x = 0; x < w; ++x)
                    REQUIRE((t.x_bits[x] | t.y_bits[y] | t.z_bits[z]) == swizzled_index(x, y, z, w, h, d));
        for (uint32_t bytes : {1u, 2u, 3u, 4u, 8u, 5u}) {
            std::vector<uint8_t> a(size_t(w) * h * d * bytes), s(a.size()), back(a.size());
            for (auto& v : a) v = uint8_t(rng());
            swizzle(a.data(), s.data(), w, h, d, bytes);
            deswizzle(s.data(), back.data(), w, h, d, bytes);
            CHECK((back == a));
            if (w > 2 && h > 1) CHECK((s != a)); // a 2-wide image is linear too
        }
    }
}

TEST_CASE("swizzle: refuses non-power-of-two extents", "[swizzle]") {
    CHECK_FALSE(swizzle_representable(12, 8));
    CHECK_FALSE(swizzle_representable(8, 0));
    CHECK(swizzle_representable(1, 256, 4));
    std::vector<uint8_t> a(12 * 8 * 4), b(a.size());
    CHECK_THROWS_AS(swizzle(a.data(), b.data(), 12, 8, 1, 4), std::invalid_argument);
}
