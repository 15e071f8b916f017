// OpenEXR read/write (Debian's OpenEXR 3.1): the HDR edit format, a peer of
// PNG. Linear values in half or 32-bit float channels, above 1 and below 0
// kept. OpenEXR's headers stay in exr_io.cpp (they cost every file that
// includes them); this header needs none.
#pragma once

#include "assetforge/texture.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace af {

// Checked on the header, before OpenEXR allocates the offset table or the pixels; 0 means no limit.
struct ExrLimits {
    uint32_t max_dimension = 0;
    uint64_t max_texture_bytes = 0;
};

struct ExrHeader {
    uint32_t width = 0, height = 0;
    std::string channels;    // the names, comma-separated: "R,G,B,A"
    bool all_half = true;    // every channel is half (else float or uint is among them)
    std::string compression; // "zip", "piz", …
    bool tiled = false;
};

// `name` starts error messages ("": they start with what went wrong).

// What the file's first header says, with the limits checked; `bytes` may be the file's head (the header is
// all it reads). Throws af::sdk::Error naming `name`.
ExrHeader read_exr_header(std::span<const uint8_t> bytes, const std::string& name, const ExrLimits& limits = {});

// The top level of part 0. A lone R channel reads to R16_FLOAT (half) or
// R32_FLOAT; anything else to R16G16B16A16_FLOAT when every channel is half,
// else R32G32B32A32_FLOAT: R, G and B (0 when absent; a lone Y, luminance, to
// all three) and A (1 when absent). Throws af::sdk::Error whose message starts
// with `name`; OpenEXR's exceptions never pass.
Texture decode_exr(std::span<const uint8_t> bytes, const std::string& name, const ExrLimits& limits = {});

enum class ExrPixel { Auto, Half, Float };

struct ExrWriteOptions {
    // Auto: half for half data, and for float data every value of which a half holds exactly; else float.
    ExrPixel pixel = ExrPixel::Auto;
    // Auto: RGB when alpha is 1 everywhere, else RGBA (one-channel formats write R).
    enum class Channels { Auto, Rgba, Rgb } channels = Channels::Auto;
    std::string compression = "zip"; // lossless: none, rle, zips, zip, piz
};

// `img`: one 2-D surface of R16G16B16A16_FLOAT, R32G32B32A32_FLOAT, R16_FLOAT
// or R32_FLOAT (the caller converts other formats). Throws af::sdk::Error.
std::vector<uint8_t> encode_exr(const Texture& img, const ExrWriteOptions& opt = {});

bool is_exr(std::span<const uint8_t> head);

} // namespace af
