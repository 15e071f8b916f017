// Level-0 ("fast") BC1 colour-block encoder for blocks whose texels all carry
// colour (no punch-through): principal axis from integer covariance, then
// selectors by projection onto the quantised endpoints' line and closed-form
// least squares, every candidate scored against the exact decoder palette.
// Integer arithmetic wherever a result is compared, so the SSE4.1 and AVX2
// builds (simd_path.hpp) give identical bytes.
#pragma once

#include <cstdint>

namespace af::bc {

struct ColourWeights {
    float r = 1, g = 1, b = 1; // error weights (EncodeOptions: perceptual, srgb)
};

// Encodes 16 RGBA8 texels (alpha ignored) with the 4-colour palette (c0 > c1
// as stored unless both endpoints quantise alike). Meant for blocks of more
// than one colour: the single-colour tables do those exactly (bc1_encode.cpp).
void encode_colour_fast(const uint8_t rgba[64], uint8_t out[8], const ColourWeights& w);

} // namespace af::bc
