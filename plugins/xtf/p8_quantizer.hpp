// P8 writing: one 256-colour palette per frame, made with libimagequant (the
// library behind pngquant), shared by every face, mip and fallback image of
// that frame.
#pragma once

#include "assetforge/image.hpp"

#include <cstdint>
#include <vector>

namespace af::xtf {

struct QuantizedFrame {
    std::vector<uint8_t> palette;              // 256 × RGBA8 (unused entries zero)
    std::vector<std::vector<uint8_t>> indices; // one plane per remapped image, row-major
};

// Builds the palette from `palette_sources` (typically mip 0 of every face) and
// remaps every image of `targets` through it. Images may be RGBA8 or RGBA32F.
// Throws af::sdk::Error when libimagequant fails.
QuantizedFrame quantize_frame(const std::vector<const sdk::Image*>& palette_sources,
                              const std::vector<const sdk::Image*>& targets, bool dither);

// Nearest palette entry per texel (no dithering; the first of equal entries),
// for remapping images against an existing palette (a P8 source written back
// with its palette: exact colours get their index back).
std::vector<uint8_t> remap_to_palette(const sdk::Image& img, const uint8_t* palette_rgba);

} // namespace af::xtf
