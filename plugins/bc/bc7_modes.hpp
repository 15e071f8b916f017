// BC7 mode layout (ARB_texture_compression_bptc Table.M).
#pragma once

#include <cstdint>

namespace af::bc {

struct Bc7ModeInfo {
    uint8_t subsets;         // NS
    uint8_t partition_bits;  // PB
    uint8_t rotation_bits;   // RB
    uint8_t index_sel_bits;  // ISB
    uint8_t color_bits;      // CB
    uint8_t alpha_bits;      // AB
    uint8_t endpoint_pbits;  // EPB: one p-bit per endpoint
    uint8_t shared_pbits;    // SPB: one p-bit per subset
    uint8_t index_bits;      // IB
    uint8_t index2_bits;     // IB2
};

inline constexpr Bc7ModeInfo kBc7Modes[8] = {
    {3, 4, 0, 0, 4, 0, 1, 0, 3, 0}, {2, 6, 0, 0, 6, 0, 0, 1, 3, 0}, {3, 6, 0, 0, 5, 0, 0, 0, 2, 0},
    {2, 6, 0, 0, 7, 0, 1, 0, 2, 0}, {1, 0, 2, 1, 5, 6, 0, 0, 2, 3}, {1, 0, 2, 0, 7, 8, 0, 0, 2, 2},
    {1, 0, 0, 0, 7, 7, 1, 0, 4, 0}, {2, 6, 0, 0, 5, 5, 1, 0, 2, 0},
};

// Endpoint value of `bits` significant bits (incl. p-bit) widened to 8 bits by
// replicating its top bits, as the decoder does.
inline constexpr int bc7_expand(int v, int bits) { return (v << (8 - bits)) | (v >> (2 * bits - 8)); }

inline constexpr int bc7_interpolate(int e0, int e1, int w) { return ((64 - w) * e0 + w * e1 + 32) >> 6; }

} // namespace af::bc
