// BC6H and BC7 (the BPTC family): block kernels. Pure functions over one
// 4×4 block; no allocation, no threads. Texels are row-major, 16 per block.
#pragma once

#include <cstddef>
#include <cstdint>

namespace af::bc {

// 16 texels × RGBA8.
void decode_bc7_block(const uint8_t in[16], uint8_t out_rgba[64]);
// 16 texels × RGB half floats (IEEE binary16 bit patterns).
void decode_bc6h_block(const uint8_t in[16], uint16_t out_rgb_half[48], bool is_signed);
// 16 texels × RGBA float (alpha 1): the same values as decode_bc6h_block, widened.
void decode_bc6h_block_float(const uint8_t in[16], float out_rgba[64], bool is_signed);
// 16 texels × RGBA8 into rows `pitch` bytes apart: each value clamped to [0, 1] and
// rounded to the nearest of 255 steps (negative values and -Inf give 0), alpha 255.
void decode_bc6h_block_rgba8(const uint8_t in[16], uint8_t* out, size_t pitch, bool is_signed);

struct Bc7Options {
    int level = 3;           // 0 (fastest) … 10 (slowest); presets fast=0 normal=3 high=6 max=10
    bool perceptual = false; // weight channel errors by luma importance instead of uniformly
    bool opaque = false;     // input alpha is all 255: output must decode to exactly 255
};
void encode_bc7_block(const uint8_t rgba[64], uint8_t out[16], const Bc7Options& opt);

struct Bc6hOptions {
    int level = 3; // same scale as Bc7Options::level
    bool is_signed = false;
};
// 16 texels × RGB float, linear light.
void encode_bc6h_block(const float rgb[48], uint8_t out[16], const Bc6hOptions& opt);

} // namespace af::bc
