// Reads an XTF file into its parts: header, layout, low-res image, palettes,
// fallback and high-res texture (deswizzled, native format).
#pragma once

#include "xtf_format.hpp"

#include "assetforge/plugin_abi.h"
#include "assetforge/texture.hpp"

#include <cstdint>
#include <vector>

namespace af::xtf {

struct XtfFile {
    XtfHeader header;
    XtfLayout layout;
    std::vector<uint8_t> lowres;   // lowres_width * lowres_height * 3, bytes R G B
    std::vector<uint8_t> palettes; // frames × 256 × (B, G, R, A), as stored
    Texture image;                 // frames → layers, faces → faces; P8 keeps indices here
    Texture fallback;              // desc.width == 0 when the file has none
};

// `host` may be null (then everything runs on the calling thread and the
// host's size limits are not applied). Throws af::sdk::Error.
XtfFile read_xtf(const uint8_t* data, uint64_t size, const af_host* host);

// Stored BGRA palettes → the Texture's RGBA palette layout.
std::vector<uint8_t> palettes_to_rgba(const std::vector<uint8_t>& bgra);

// P8 → RGBA8 through each layer's palette (RGBA, as in Texture::palette).
Texture expand_palette(const Texture& p8);

// The texture the container hands to the host: the main image or the
// fallback; P8 is expanded unless keep_indices. The main image carries in its
// metadata what a re-save needs (resave_meta.hpp).
Texture xtf_output_texture(XtfFile&& file, bool keep_indices, bool fallback);

} // namespace af::xtf
