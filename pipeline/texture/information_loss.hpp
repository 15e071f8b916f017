// What storing a texture in a format throws away: the warnings every route
// prints (an alpha channel with information in it, a colour channel, bit
// depth), so nothing is lost without a word.
#pragma once

#include "assetforge/formats.hpp"
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

} // namespace af::texture
