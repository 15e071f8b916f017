// Legacy DDS_PIXELFORMAT ⇄ format-table ids: FourCCs, D3DFMT numbers used as
// FourCCs, and uncompressed layouts identified by bit count and channel masks.
#pragma once

#include "dds_format.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace af::dds {

struct LegacyFormat {
    uint32_t format = 0;     // format-table id
    uint32_t alpha_mode = 0; // AF_ALPHA_PREMULTIPLIED for DXT2/DXT4, else unknown
    std::string source;      // how it was recognised: "FourCC 'DXT1'", "D3DFMT_A8R8G8B8 (RGB 32-bit masks …)"
};

// Throws af::sdk::Error naming the pixel format's offset when DDS_PIXELFORMAT
// describes nothing the format table holds.
LegacyFormat format_from_pixel_format(const PixelFormat& pf);

// The legacy pixel format that stores `format` exactly (nullopt when only the
// DX10 header can). premultiplied selects DXT2/DXT4 for BC2/BC3.
std::optional<PixelFormat> legacy_pixel_format(uint32_t format, bool premultiplied);

// Whether `dx10=auto` writes a legacy header for this format (as texconv does):
// DXT1–5, ATI1/ATI2, RGBG/GRGB, YUY2 and unsigned mask formats. Signed,
// float, sRGB, typeless and BC6H/BC7 go to DX10, and so do R8, R8G8, R16 and
// R10G10B10A2, whose legacy forms other readers misread (luminance, or the
// long-standing swapped 10:10:10:2 masks).
bool legacy_preferred(uint32_t format);

// "D3DFMT_A8R8G8B8" style name of the legacy format, or "" if none is known.
std::string d3dfmt_name(uint32_t format);

} // namespace af::dds
