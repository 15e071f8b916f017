#include "engine/morton_swizzle.hpp"

#include <bit>
#include <cstring>

namespace af::engine {

uint64_t swizzled_index(uint32_t x, uint32_t y, uint32_t z, uint32_t w, uint32_t h, uint32_t d) {
    int bw = std::countr_zero(w), bh = std::countr_zero(h), bd = std::countr_zero(d);
    uint64_t out = 0;
    int bit = 0;
    while (bw > 0 || bh > 0 || bd > 0) {
        if (bw > 0) out |= uint64_t(x & 1) << bit++, x >>= 1, --bw;
        if (bh > 0) out |= uint64_t(y & 1) << bit++, y >>= 1, --bh;
        if (bd > 0) out |= uint64_t(z & 1) << bit++, z >>= 1, --bd;
    }
    return out;
}

namespace {
template <bool Forward>
void move_texels(const uint8_t* src, uint8_t* dst, uint32_t w, uint32_t h, uint32_t d, uint32_t b) {
    uint64_t linear = 0;
    for (uint32_t z = 0; z < d; ++z)
        for (uint32_t y = 0; y < h; ++y)
            for (uint32_t x = 0; x < w; ++x, ++linear) {
                uint64_t s = swizzled_index(x, y, z, w, h, d);
                if (Forward) memcpy(dst + s * b, src + linear * b, b);
                else memcpy(dst + linear * b, src + s * b, b);
            }
}
} // namespace

void swizzle_surface(const uint8_t* src, uint8_t* dst, uint32_t w, uint32_t h, uint32_t d, uint32_t b) {
    move_texels<true>(src, dst, w, h, d, b);
}
void deswizzle_surface(const uint8_t* src, uint8_t* dst, uint32_t w, uint32_t h, uint32_t d, uint32_t b) {
    move_texels<false>(src, dst, w, h, d, b);
}

} // namespace af::engine
