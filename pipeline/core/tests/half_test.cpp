#include "assetforge/half.hpp"

#include <catch2/catch.hpp>
#include <cmath>

using namespace af;

TEST_CASE("every finite half survives half→float→half") {
    for (uint32_t h = 0; h < 0x10000; ++h) {
        if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) continue; // NaNs compare unequal
        CHECK(float_to_half(half_to_float(uint16_t(h))) == h);
    }
}

TEST_CASE("known half values") {
    CHECK(half_to_float(0x3c00) == 1.0f);
    CHECK(half_to_float(0xc000) == -2.0f);
    CHECK(half_to_float(0x7bff) == 65504.0f);
    CHECK(half_to_float(0x0001) == std::ldexp(1.0f, -24));
    CHECK(float_to_half(1e10f) == 0x7c00);
    CHECK(float_to_half(1.0f + 1.0f / 2048) == 0x3c00); // tie rounds to even
    CHECK(std::isnan(half_to_float(0x7e00)));
}
