#include "dxt1_alpha.hpp"

namespace af::xtf {

bool dxt1_blocks_have_cutout(const uint8_t* b, uint64_t size) {
    for (uint64_t o = 0; o + 8 <= size; o += 8) {
        const uint32_t c0 = b[o] | uint32_t(b[o + 1]) << 8, c1 = b[o + 2] | uint32_t(b[o + 3]) << 8;
        if (c0 > c1) continue; // four-colour mode: always opaque
        const uint32_t idx = b[o + 4] | uint32_t(b[o + 5]) << 8 | uint32_t(b[o + 6]) << 16 | uint32_t(b[o + 7]) << 24;
        // A texel is transparent when both bits of its index are set.
        if (idx & (idx >> 1) & 0x55555555u) return true;
    }
    return false;
}

bool dxt1_texture_has_cutout(const Texture& t) {
    if (t.desc.format != FMT_BC1_UNORM && t.desc.format != FMT_BC1_UNORM_SRGB && t.desc.format != FMT_BC1_TYPELESS)
        return false;
    return dxt1_blocks_have_cutout(t.data.data(), t.data.size());
}

} // namespace af::xtf
