#include "engine/morton_swizzle.hpp"

#include <catch2/catch.hpp>

#include <numeric>
#include <vector>

using namespace af::engine;

TEST_CASE("swizzled index follows the xtf.md worked example", "[swizzle]") {
    // 8×4: storage-index bits from LSB are x0, y0, x1, y1, x2.
    CHECK(swizzled_index(1, 0, 0, 8, 4, 1) == 1);
    CHECK(swizzled_index(0, 1, 0, 8, 4, 1) == 2);
    CHECK(swizzled_index(2, 0, 0, 8, 4, 1) == 4);
    CHECK(swizzled_index(0, 2, 0, 8, 4, 1) == 8);
    CHECK(swizzled_index(4, 0, 0, 8, 4, 1) == 16);
    CHECK(swizzled_index(7, 3, 0, 8, 4, 1) == 31);
    // N×1 is linear.
    for (uint32_t x = 0; x < 16; ++x) CHECK(swizzled_index(x, 0, 0, 16, 1, 1) == x);
    // 3-D: x, y, z interleave.
    CHECK(swizzled_index(0, 0, 1, 2, 2, 2) == 4);
}

TEST_CASE("swizzle and deswizzle are inverse permutations", "[swizzle]") {
    for (auto [w, h, d] : {std::tuple{8u, 4u, 1u}, {16u, 16u, 1u}, {1u, 32u, 1u}, {4u, 4u, 4u}}) {
        std::vector<uint8_t> src(size_t(w) * h * d * 3), sw(src.size()), back(src.size());
        std::iota(src.begin(), src.end(), uint8_t(0));
        swizzle_surface(src.data(), sw.data(), w, h, d, 3);
        deswizzle_surface(sw.data(), back.data(), w, h, d, 3);
        CHECK(back == src);
        if (w > 1 && h > 1) CHECK(sw != src);
    }
}
