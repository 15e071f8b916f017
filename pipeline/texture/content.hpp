// What an image holds, as far as choosing a format needs to know: one pass
// over the top level, the same for every route (pipeline steps, convert, the
// XTF writer's DXT choice).
#pragma once

#include "core/image.hpp"

#include <cstdint>

namespace af::texture {

enum class AlphaKind : uint8_t {
    Opaque, // every alpha is 1 (255)
    Cutout, // alpha is only 0 or 1: alpha-tested foliage, fences, decals
    Smooth, // anything in between: glass, smoke, soft edges
};

struct Content {
    AlphaKind alpha = AlphaKind::Opaque;
    bool grey = true;          // R = G = B in every texel (8-bit: exactly; float: within 1e-6)
    bool above_one = false;    // a colour value above 1 (float input only)
    bool negative = false;     // a colour value below 0 (float input only)
    bool unit_vectors = false; // ≥ 95 % of texels are unit vectors pointing out of the surface
};

Content analyse(const Image& img);

} // namespace af::texture
