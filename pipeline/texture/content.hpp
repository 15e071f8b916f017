// What an image holds, as far as choosing a format needs to know: one pass
// over the top level, the same for the pipeline's steps and `convert`. Alpha
// by the SDK's rule (assetforge/alpha_kind.hpp), which the XTF plugin's own
// DXT choice uses too.
#pragma once

#include "assetforge/alpha_kind.hpp"
#include "assetforge/picture.hpp"

#include <cstdint>

namespace af::texture {

using af::AlphaKind;

// How far the colour channels read as tangent-space vectors (0..1 encoded).
// Alpha plays no part: real normal maps often carry height or gloss there.
struct VectorStats {
    bool two_channel = false; // blue is 0 (0.5 from a SNORM format) everywhere, as a BC5 decode leaves it: Z is
                              // rebuilt from X and Y
    float out_of_surface = 0; // fraction of texels with z > 0
    float near_unit = 0;      // fraction with |length - 1| ≤ 0.1 (two-channel: x² + y² ≤ 1.1)
    float roughly_unit = 0;   // fraction with |length - 1| ≤ 0.3
    float mean_x = 0, mean_y = 0, mean_z = 0;
};

struct Content {
    AlphaKind alpha = AlphaKind::Opaque;
    bool grey = true;          // R = G = B in every texel (8-bit: exactly; float: within 1e-6)
    bool above_one = false;    // a colour value above 1 (float input only)
    bool negative = false;     // a colour value below 0 (float input only)
    bool unit_vectors = false; // the texels read as a tangent-space normal map (see content.cpp)
    VectorStats vectors{};
};

Content analyse(const Texture& img);

} // namespace af::texture
