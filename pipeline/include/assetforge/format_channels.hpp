// Which channels a format stores, read off the format table: the one answer
// every route asks (what a PSNR counts, what "nearest format" compares, which
// formats hold a normal's X and Y only). Header-only, as the table is.
#pragma once

#include "assetforge/formats.hpp"

#include <cstdint>

namespace af {

// Channel bits of a stored-channel mask.
namespace chan {
constexpr uint8_t r = 0x1, g = 0x2, b = 0x4, a = 0x8;
constexpr uint8_t rgb = r | g | b, rgba = rgb | a;
} // namespace chan

// Plain formats say it per channel; BC4 stores R, BC5 R and G, BC6H R, G and
// B; the other layouts (block, packed, special, palette) store colour, and
// alpha when they have it.
inline constexpr uint8_t stored_channels(const FormatInfo& f) {
    if (f.layout == Layout::Plain) {
        uint8_t m = 0;
        for (int i = 0; i < 4; ++i)
            if (f.ch[i].bits) m |= uint8_t(1u << i);
        return m;
    }
    if (f.id >= FMT_BC4_TYPELESS && f.id <= FMT_BC4_SNORM) return chan::r;
    if (f.id >= FMT_BC5_TYPELESS && f.id <= FMT_BC5_SNORM) return chan::r | chan::g;
    return f.has_alpha() ? chan::rgba : chan::rgb;
}

// Of R, G and B, those the format stores; all three for an alpha-only
// format, whose colour decodes grey.
inline constexpr uint8_t stored_colour(const FormatInfo& f) {
    const uint8_t m = stored_channels(f) & chan::rgb;
    return m ? m : chan::rgb;
}

// A normal's X and Y only (BC5, RG formats): the shader rebuilds Z.
inline constexpr bool stores_xy_only(const FormatInfo& f) { return stored_channels(f) == (chan::r | chan::g); }

static_assert(stored_channels(*format_info(FMT_BC5_UNORM)) == (chan::r | chan::g));
static_assert(stored_colour(*format_info(FMT_A8_UNORM)) == chan::rgb);

} // namespace af
