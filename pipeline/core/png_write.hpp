// The PNG encoder: rows filtered here, the zlib stream and CRCs from
// libdeflate (several times faster than zlib at the same ratio, and levels up
// to 12). libpng stays the reader.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace af {

enum class PngFilter : uint8_t { Auto, None, Sub, Up, Paeth };

// "auto", "none", "sub", "up", "paeth"; anything else is a usage error.
PngFilter parse_png_filter(std::string_view name);

struct PngLayout {
    uint32_t width = 0, height = 0;
    int bit_depth = 8;  // 1, 8 or 16
    int color_type = 6; // PNG colour types: 0 grey, 2 RGB, 4 grey+alpha, 6 RGBA
    int channels = 4;
};

struct PngTags {
    bool srgb = false;   // sRGB chunk (with the gAMA and cHRM a reader without sRGB support needs)
    bool linear = false; // gAMA 1.0 (ignored when srgb)
};

// `pixels`: the rows packed, big-endian samples, no filter bytes.
// `level`: 0 (stored) to 12 (libdeflate's slowest); auto filtering picks, per
// row, the filter whose output has the smallest sum of absolute values (as
// libpng does), except at level 0 where nothing is gained by filtering.
std::vector<uint8_t> write_png_stream(const uint8_t* pixels, const PngLayout& layout, const PngTags& tags, int level,
                                      PngFilter filter);

} // namespace af
