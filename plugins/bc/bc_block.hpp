// BC1–BC5 block kernels. Pure functions over one 4×4 block: no allocation,
// no threads, no global state. Texels are row-major, 16 per block.
//
// Decoder rounding (one rule for every format, "exact-value" style):
//  * 5/6-bit endpoints expand by bit replication (x << 3 | x >> 2, x << 2 | x >> 4);
//  * every interpolant is the real-valued weighted mean of the 8-bit endpoint
//    values rounded to the nearest integer: BC1 (2a+b)/3 → (2a+b+1)/3, the
//    3-colour midpoint (a+b)/2 → (a+b+1)/2, BC3/BC4/BC5 (w0·a+w1·b)/7 and /5
//    (never a tie, the denominators are odd). This is what D3D10+'s
//    float-evaluated palettes give, stored to 8 bits with round-to-nearest.
//    Decoders that truncate instead (Pillow, libsquish) differ by at most 1 on
//    interpolated texels; endpoints and BC2 alpha are identical everywhere.
//  * BC2 and BC3 colour blocks always use the 4-colour palette (D3D10+ rule,
//    Pillow agrees); only BC1 switches to 3 colours + transparent black when
//    c0 <= c1.
//  * Signed BC4/BC5: endpoint bytes are two's complement, -128 reads as -127,
//    interpolation happens on the signed values; the 6-value mode's extra
//    values are -127 and +127. Byte outputs of signed data are "offset
//    binary": value + 128 (so -1.0 → 1, 0 → 128, +1.0 → 255). Float outputs
//    are exact: value / 127 (or / 255 for unsigned) of the real interpolant.
#pragma once

#include <cstddef>
#include <cstdint>

namespace af::bc {

// ---- decoders -----------------------------------------------------------
// `pitch` is the byte distance between texel rows of `rgba` (16 for a
// packed 4×4 block).
void decode_bc1(const uint8_t block[8], uint8_t* rgba, size_t pitch);
void decode_bc2(const uint8_t block[16], uint8_t* rgba, size_t pitch);
void decode_bc3(const uint8_t block[16], uint8_t* rgba, size_t pitch);
// The BC1-style colour half of BC2/BC3 (4-colour palette always); alpha = 255.
void decode_colour4(const uint8_t block[8], uint8_t* rgba, size_t pitch);

// One BC4 channel. Bytes: unsigned value, or signed value + 128.
void decode_bc4_bytes(const uint8_t block[8], bool is_signed, uint8_t out[16]);
// Exact values in [0, 1] (unsigned) or [-1, 1] (signed).
void decode_bc4_float(const uint8_t block[8], bool is_signed, float out[16]);

// The 8-entry palettes the decoders use, exposed for encoders and tests.
// Values as in decode_bc4_bytes.
void bc4_palette(uint8_t e0, uint8_t e1, bool is_signed, uint8_t pal[8]);
// RGB palette of a BC1 colour block, 4 × RGBA8. four_colour forces the
// 4-colour rule (BC2/BC3); otherwise c0 <= c1 selects 3 colours + black/transparent.
void bc1_palette(uint16_t c0, uint16_t c1, bool four_colour, uint8_t pal[16]);

// ---- encoders -----------------------------------------------------------
struct EncodeOptions {
    int level = 3;               // 0 (fastest) … 10 (slowest); fast=0 normal=3 high=6 max=10
    bool perceptual = false;     // weight R,G,B errors by luma importance instead of uniformly
    bool srgb = false;           // values are sRGB-encoded: weigh errors by linear-light slope
    bool bc1_3color = true;      // BC1 may use its 3-colour palette for opaque blocks (no transparent index)
    bool bc1_punchthrough = true;// BC1 encodes texels below alpha_threshold as transparent black
    uint8_t alpha_threshold = 128;
};

// rgba: 16 texels × RGBA8, row-major.
void encode_bc1(const uint8_t rgba[64], uint8_t out[8], const EncodeOptions& opt);
void encode_bc2(const uint8_t rgba[64], uint8_t out[16], const EncodeOptions& opt);
void encode_bc3(const uint8_t rgba[64], uint8_t out[16], const EncodeOptions& opt);
// The 4-colour-only colour half used by BC2/BC3 (alpha ignored).
void encode_colour4(const uint8_t rgba[64], uint8_t out[8], const EncodeOptions& opt);
// values: 16 bytes in the decode_bc4_bytes domain (signed: value + 128, 1..255).
void encode_bc4(const uint8_t values[16], bool is_signed, uint8_t out[8], int level);
// BC5 is two BC4 blocks: red then green.
void encode_bc5(const uint8_t red[16], const uint8_t green[16], bool is_signed, uint8_t out[16], int level);

} // namespace af::bc
