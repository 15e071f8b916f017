// Original-Xbox texel swizzle: the storage order of uncompressed XTF images.
// Pure functions, no plugin dependencies, so stages, tools and tests share them.
#pragma once

#include <cstdint>
#include <vector>

namespace af::xtf {

inline bool is_pow2(uint32_t v) { return v && !(v & (v - 1)); }

// True when every extent is a non-zero power of two: only those sizes have a
// defined swizzle (the address rule takes log2 of each extent).
bool swizzle_representable(uint32_t width, uint32_t height, uint32_t depth = 1);

// Storage index of texel (x, y, z): bits are taken from the low end, one from
// x, one from y, one from z in turn, skipping an axis once its bits are used.
uint64_t swizzled_index(uint32_t x, uint32_t y, uint32_t z, uint32_t width, uint32_t height, uint32_t depth = 1);

// Per-axis lookup tables: swizzled_index(x, y, z) == x_bits[x] | y_bits[y] | z_bits[z].
struct SwizzleTables {
    std::vector<uint64_t> x_bits, y_bits, z_bits;
};
SwizzleTables make_swizzle_tables(uint32_t width, uint32_t height, uint32_t depth = 1);

// Row-major (slice, row, texel) → swizzled, and back. `texel_bytes` bytes move
// as one unit. Buffers hold width*height*depth*texel_bytes bytes and must not
// overlap. Throws std::invalid_argument for sizes swizzle_representable rejects.
void swizzle(const uint8_t* linear, uint8_t* swizzled, uint32_t width, uint32_t height, uint32_t depth,
             uint32_t texel_bytes);
void deswizzle(const uint8_t* swizzled, uint8_t* linear, uint32_t width, uint32_t height, uint32_t depth,
               uint32_t texel_bytes);

// The same for linear rows [first_row, first_row + row_count) only (rows count
// over all slices: row r is y = r % height of slice z = r / height), so one
// large image can be split across threads. Only those rows' texels are touched.
void swizzle_rows(const uint8_t* linear, uint8_t* swizzled, uint32_t width, uint32_t height, uint32_t depth,
                  uint32_t texel_bytes, uint64_t first_row, uint64_t row_count);
void deswizzle_rows(const uint8_t* swizzled, uint8_t* linear, uint32_t width, uint32_t height, uint32_t depth,
                    uint32_t texel_bytes, uint64_t first_row, uint64_t row_count);

// The same with tables made once by make_swizzle_tables for this extent, so
// callers splitting one image into many bands do not rebuild them per band.
void swizzle_rows(const SwizzleTables& t, const uint8_t* linear, uint8_t* swizzled, uint32_t width, uint32_t height,
                  uint32_t depth, uint32_t texel_bytes, uint64_t first_row, uint64_t row_count);
void deswizzle_rows(const SwizzleTables& t, const uint8_t* swizzled, uint8_t* linear, uint32_t width, uint32_t height,
                    uint32_t depth, uint32_t texel_bytes, uint64_t first_row, uint64_t row_count);

} // namespace af::xtf
