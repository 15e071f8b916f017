// The Xbox texel swizzle (shared/specs/xtf.md §6): the storage index of
// texel (x, y, z) interleaves the bits of x, y and z from the low bit up,
// skipping an axis once its log2(size) bits are used. Power-of-two sizes only.
#pragma once

#include <cstdint>

namespace af::engine {

uint64_t swizzled_index(uint32_t x, uint32_t y, uint32_t z, uint32_t w, uint32_t h, uint32_t d);

// Moves whole texels of `texel_bytes`; `src` and `dst` hold w*h*d texels.
void swizzle_surface(const uint8_t* src, uint8_t* dst, uint32_t w, uint32_t h, uint32_t d, uint32_t texel_bytes);
void deswizzle_surface(const uint8_t* src, uint8_t* dst, uint32_t w, uint32_t h, uint32_t d, uint32_t texel_bytes);

} // namespace af::engine
