// Whether DXT1 data carries cut-out alpha: a block in the three-colour mode
// (colour0 <= colour1) with a texel on index 3, which decodes as transparent
// black. Such files need the ONEBITALPHA flag for the engine to alpha-test them.
#pragma once

#include "assetforge/texture.hpp"

#include <cstdint>

namespace af::xtf {

bool dxt1_blocks_have_cutout(const uint8_t* blocks, uint64_t size);

// Every surface of a BC1 texture (false for other formats).
bool dxt1_texture_has_cutout(const Texture& t);

} // namespace af::xtf
