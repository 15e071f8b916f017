#include "xbox_swizzle.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace af::xtf {

namespace {

uint32_t log2u(uint32_t v) {
    uint32_t n = 0;
    while (v > 1) {
        v >>= 1;
        ++n;
    }
    return n;
}

void require(uint32_t w, uint32_t h, uint32_t d) {
    if (!swizzle_representable(w, h, d))
        throw std::invalid_argument("xbox swizzle needs power-of-two extents, got " + std::to_string(w) + "x" +
                                    std::to_string(h) + "x" + std::to_string(d));
}

// Moves texels of a fixed size; the size is a template parameter so the
// inner copy compiles to one load and store.
template <uint32_t B, bool ToSwizzled>
void move_texels(const uint8_t* src, uint8_t* dst, const SwizzleTables& t, uint32_t w, uint32_t h, uint64_t r0,
                 uint64_t r1, uint32_t b) {
    const uint32_t bytes = B ? B : b;
    for (uint64_t r = r0; r < r1; ++r) {
        const uint32_t y = uint32_t(r % h), z = uint32_t(r / h);
        const uint64_t yz = t.y_bits[y] | t.z_bits[z];
        uint64_t linear = r * w;
        for (uint32_t x = 0; x < w; ++x, ++linear) {
            const uint64_t s = yz | t.x_bits[x];
            if constexpr (ToSwizzled)
                std::memcpy(dst + s * bytes, src + linear * bytes, B ? B : bytes);
            else
                std::memcpy(dst + linear * bytes, src + s * bytes, B ? B : bytes);
        }
    }
}

template <bool ToSwizzled>
void move_with(const SwizzleTables& t, const uint8_t* src, uint8_t* dst, uint32_t w, uint32_t h, uint32_t d, uint32_t b,
               uint64_t r0, uint64_t rows) {
    if (t.x_bits.size() != w || t.y_bits.size() != h || t.z_bits.size() != d)
        throw std::invalid_argument("xbox swizzle: tables were made for another extent");
    const uint64_t r1 = std::min<uint64_t>(uint64_t(h) * d, r0 + rows);
    if (r0 >= r1) return;
    switch (b) {
    case 1:
        return move_texels<1, ToSwizzled>(src, dst, t, w, h, r0, r1, b);
    case 2:
        return move_texels<2, ToSwizzled>(src, dst, t, w, h, r0, r1, b);
    case 3:
        return move_texels<3, ToSwizzled>(src, dst, t, w, h, r0, r1, b);
    case 4:
        return move_texels<4, ToSwizzled>(src, dst, t, w, h, r0, r1, b);
    case 8:
        return move_texels<8, ToSwizzled>(src, dst, t, w, h, r0, r1, b);
    case 16:
        return move_texels<16, ToSwizzled>(src, dst, t, w, h, r0, r1, b);
    default:
        return move_texels<0, ToSwizzled>(src, dst, t, w, h, r0, r1, b);
    }
}

template <bool ToSwizzled>
void move(const uint8_t* src, uint8_t* dst, uint32_t w, uint32_t h, uint32_t d, uint32_t b, uint64_t r0,
          uint64_t rows) {
    require(w, h, d);
    move_with<ToSwizzled>(make_swizzle_tables(w, h, d), src, dst, w, h, d, b, r0, rows);
}

} // namespace

bool swizzle_representable(uint32_t width, uint32_t height, uint32_t depth) {
    return is_pow2(width) && is_pow2(height) && is_pow2(depth);
}

SwizzleTables make_swizzle_tables(uint32_t width, uint32_t height, uint32_t depth) {
    require(width, height, depth);
    // Give each axis its storage bit positions by walking the interleave once.
    uint32_t left[3] = {log2u(width), log2u(height), log2u(depth)};
    std::vector<uint32_t> positions[3];
    uint32_t bit = 0;
    while (left[0] || left[1] || left[2])
        for (int axis = 0; axis < 3; ++axis)
            if (left[axis]) {
                positions[axis].push_back(bit++);
                --left[axis];
            }
    SwizzleTables t;
    std::vector<uint64_t>* out[3] = {&t.x_bits, &t.y_bits, &t.z_bits};
    const uint32_t extent[3] = {width, height, depth};
    for (int axis = 0; axis < 3; ++axis) {
        out[axis]->resize(extent[axis]);
        for (uint32_t v = 0; v < extent[axis]; ++v) {
            uint64_t s = 0;
            for (size_t i = 0; i < positions[axis].size(); ++i)
                if (v >> i & 1) s |= uint64_t(1) << positions[axis][i];
            (*out[axis])[v] = s;
        }
    }
    return t;
}

uint64_t swizzled_index(uint32_t x, uint32_t y, uint32_t z, uint32_t width, uint32_t height, uint32_t depth) {
    require(width, height, depth);
    uint32_t bw = log2u(width), bh = log2u(height), bd = log2u(depth);
    uint64_t out = 0;
    uint32_t bit = 0;
    while (bw || bh || bd) {
        if (bw) {
            out |= uint64_t(x & 1) << bit++;
            x >>= 1;
            --bw;
        }
        if (bh) {
            out |= uint64_t(y & 1) << bit++;
            y >>= 1;
            --bh;
        }
        if (bd) {
            out |= uint64_t(z & 1) << bit++;
            z >>= 1;
            --bd;
        }
    }
    return out;
}

void swizzle(const uint8_t* linear, uint8_t* swizzled, uint32_t width, uint32_t height, uint32_t depth,
             uint32_t texel_bytes) {
    move<true>(linear, swizzled, width, height, depth, texel_bytes, 0, uint64_t(height) * depth);
}

void swizzle_rows(const uint8_t* linear, uint8_t* swizzled, uint32_t width, uint32_t height, uint32_t depth,
                  uint32_t texel_bytes, uint64_t first_row, uint64_t row_count) {
    move<true>(linear, swizzled, width, height, depth, texel_bytes, first_row, row_count);
}

void deswizzle_rows(const uint8_t* swizzled, uint8_t* linear, uint32_t width, uint32_t height, uint32_t depth,
                    uint32_t texel_bytes, uint64_t first_row, uint64_t row_count) {
    move<false>(swizzled, linear, width, height, depth, texel_bytes, first_row, row_count);
}

void deswizzle(const uint8_t* swizzled, uint8_t* linear, uint32_t width, uint32_t height, uint32_t depth,
               uint32_t texel_bytes) {
    move<false>(swizzled, linear, width, height, depth, texel_bytes, 0, uint64_t(height) * depth);
}

void swizzle_rows(const SwizzleTables& t, const uint8_t* linear, uint8_t* swizzled, uint32_t width, uint32_t height,
                  uint32_t depth, uint32_t texel_bytes, uint64_t first_row, uint64_t row_count) {
    move_with<true>(t, linear, swizzled, width, height, depth, texel_bytes, first_row, row_count);
}

void deswizzle_rows(const SwizzleTables& t, const uint8_t* swizzled, uint8_t* linear, uint32_t width, uint32_t height,
                    uint32_t depth, uint32_t texel_bytes, uint64_t first_row, uint64_t row_count) {
    move_with<false>(t, swizzled, linear, width, height, depth, texel_bytes, first_row, row_count);
}

} // namespace af::xtf
