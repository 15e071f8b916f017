// What storing a texture in a format throws away: the warnings every route
// prints (an alpha channel with information in it, a colour channel, bit
// depth), so nothing is lost without a word.
#pragma once

#include "assetforge/formats.hpp"
#include "assetforge/image_view.hpp"
#include "texture/content.hpp"

#include <string>
#include <vector>

namespace af::texture {

// Bits of precision per colour channel a format keeps (8 for block formats but BC6H).
unsigned precision(const FormatInfo& f);

// `c`: the source's top level; `from`: its format (null: 8-bit); `normal_map`:
// blue is a normal's Z, which two-channel formats leave to the shader.
std::vector<std::string> information_lost(const Content& c, const FormatInfo* from, const FormatInfo& to,
                                          bool normal_map);

// What writing float surfaces (RGBA32F views; others hold nothing to clip)
// to a 0..1 format such as PNG clips, with the count of texels and the
// largest (smallest) value: "values above 1.0 clipped: 3120 texels, max 4.78
// (PNG stores 0..1; write .exr to keep them)". "" when every colour value is in 0..1.
std::string values_clipped(const std::vector<ImageView>& surfaces, std::string_view stored_as);

} // namespace af::texture
