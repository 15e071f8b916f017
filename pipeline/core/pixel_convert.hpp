// Conversion of every uncompressed format in the format table to and from
// RGBA32F and RGBA8. Block-compressed formats go through codec plugins instead.
#pragma once

#include "assetforge/picture.hpp"

#include <cstdint>
#include <span>

namespace af {

// Decodes `count` texels (a surface's rows back to back: w*h*d) to RGBA32F.
// Missing channels read as 0 (colour) / 1 (alpha); luminance is replicated;
// SNORM maps to [-1, 1], integer formats to their numeric value.
// For FMT_P8 `palette` (256 × RGBA8) is required.
void decode_texels(uint32_t format, const uint8_t* src, uint64_t src_size, uint32_t width, uint32_t height,
                   float* dst_rgba, const uint8_t* palette = nullptr);

// Encodes RGBA32F texels into `format` (round to nearest, clamp to range).
void encode_texels(uint32_t format, const float* src_rgba, uint32_t width, uint32_t height, uint8_t* dst,
                   uint64_t dst_size);

// Convenience: whole surface ⇄ picture. The picture is RGBA8 when every channel
// of the format fits in 8 bits unsigned, RGBA32F otherwise.
Texture surface_to_image(uint32_t format, const uint8_t* src, uint64_t src_size, uint32_t width, uint32_t height,
                         const uint8_t* palette = nullptr);
void image_to_surface(const Texture& img, uint32_t format, uint8_t* dst, uint64_t dst_size);

// sRGB transfer functions (IEC 61966-2-1).
float srgb_to_linear(float v);
float linear_to_srgb(float v);

} // namespace af
