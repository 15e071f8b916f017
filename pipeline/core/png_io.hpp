// PNG read/write with libpng: 8 and 16 bit, grey/grey-alpha/RGB/RGBA, palette
// expanded. 8-bit files read to RGBA8, 16-bit files to RGBA32F.
#pragma once

#include "assetforge/picture.hpp"
#include "core/png_write.hpp"

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace af {

struct PngWriteOptions {
    int bit_depth = 8;       // 8 or 16; 1 for grey without alpha (masks)
    bool drop_alpha = false; // write RGB when true
    bool grey = false;       // write a grey(+alpha) PNG from the R channel
    int compression = 6;     // deflate level 0..12 (libdeflate; 1-9 mean what zlib's do, roughly)
    PngFilter filter = PngFilter::Auto;
    bool tag_linear = false; // write gAMA 1.0 for a non-sRGB image (else no colour chunk)
};

// `name` only appears in error messages. Throws af::sdk::Error on bad data.
Texture decode_png(std::span<const uint8_t> bytes, const std::string& name);
Texture read_png_file(const std::filesystem::path& path);

// sRGB chunk written when img.srgb. Otherwise no colour chunk (viewers assume
// sRGB, which is what untagged game textures hold) unless tag_linear asks for gAMA 1.0.
std::vector<uint8_t> encode_png(const Texture& img, const PngWriteOptions& opt = {});
void write_png_file(const std::filesystem::path& path, const Texture& img, const PngWriteOptions& opt = {});

bool is_png(std::span<const uint8_t> head);

} // namespace af
