// P8 writing: one 256-colour palette per frame, made with libimagequant (the
// library behind pngquant), shared by every face, mip and fallback image of
// that frame.
#pragma once

#include "assetforge/image_view.hpp"
#include "assetforge/picture.hpp"

#include <cstdint>
#include <vector>

namespace af::xtf {

// One image to remap, and the P8 surface its indices go to (of the image's size).
struct RemapTarget {
    const Texture* from;
    ImageView to;
};

// Builds the palette from `palette_sources` (typically mip 0 of every face),
// writes it to `palette_rgba` (256 × RGBA8, unused entries zero) and remaps
// every target through it, straight into the P8 texture's surfaces. Images may
// be RGBA8 or RGBA32F. Throws af::sdk::Error when libimagequant fails.
void quantize_frame(const std::vector<const Texture*>& palette_sources, const std::vector<RemapTarget>& targets,
                    bool dither, uint8_t* palette_rgba);

// Nearest palette entry per texel (no dithering; the first of equal entries),
// for remapping images against an existing palette (a P8 source written back
// with its palette: exact colours get their index back).
void remap_to_palette(const Texture& img, const uint8_t* palette_rgba, const ImageView& to);

} // namespace af::xtf
