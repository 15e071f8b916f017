// Building textures from decoded pictures (the shape mips, resize and
// channels share).
#pragma once

#include "assetforge/picture.hpp"
#include "assetforge/texture.hpp"

#include <vector>

namespace af::texture {

// levels[layer * faces + face][mip] (pictures) → one RGBA8 (_SRGB when the
// pictures are sRGB) or RGBA32F texture shaped like `like` (layers, faces,
// flags, metadata); sizes come from the pictures. Moves the pixels out of
// `levels`.
Texture texture_from_levels(const Texture& like, std::vector<std::vector<Texture>>&& levels);

// Signed normalised data (not HDR): decode and mips map its colour channels
// from -1..1 to 0..1, as a PNG and the mip filter for normals expect.
bool snorm_like(const FormatInfo& f);
// On every RGBA32F texel of `img` (a picture or a whole texture); others are left alone.
void signed_to_unit(Texture& img);
// v → v·scale + bias on `count` floats (every channel, alpha too): (0.5, 0.5) maps -1..1 to 0..1, (2, -1) maps it
// back.
void map_channels(float* rgba, size_t count, float scale, float bias);

// The pixel format a picture is stored in.
uint32_t image_format(const Texture& img);

} // namespace af::texture
