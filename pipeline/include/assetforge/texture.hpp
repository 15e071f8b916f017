// Texture: the in-memory model every container reads into and writes from.
// Header-only (plugins get it without linking the host).
#pragma once

#include "assetforge/formats.hpp"
#include "assetforge/image_view.hpp"
#include "assetforge/plugin_abi.h"

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace af {

struct TextureDesc {
    uint32_t format = FMT_UNKNOWN;
    uint32_t width = 0, height = 0, depth = 1;
    uint32_t mips = 1;
    uint32_t layers = 1; // array elements, or animation frames
    uint32_t faces = 1;  // 6 for cubemaps
    uint32_t flags = 0;  // AF_TEX_*
    uint32_t alpha_mode = AF_ALPHA_UNKNOWN;

    bool operator==(const TextureDesc&) const = default;
};

// The colour-space rule every route shares (docs/colour-space.md): data is
// sRGB when its format is an _SRGB one or it carries AF_TEX_SRGB; it is known
// linear when it carries AF_TEX_LINEAR or AF_TEX_NORMAL_MAP, or its format
// holds data rather than colour (float/HDR, signed, BC4/BC5). Anything else
// is 8-bit colour of unstated space, which games and viewers read as sRGB.
inline bool is_srgb(const TextureDesc& d) {
    const FormatInfo* f = format_info(d.format);
    return (f && f->srgb()) || (d.flags & AF_TEX_SRGB);
}

inline bool known_linear(const TextureDesc& d) {
    if (is_srgb(d)) return false;
    if (d.flags & (AF_TEX_LINEAR | AF_TEX_NORMAL_MAP)) return true;
    const FormatInfo* f = format_info(d.format);
    if (!f) return false;
    const bool data_block = d.format >= FMT_BC4_TYPELESS && d.format <= FMT_BC5_SNORM;
    return (f->flags & fmtflag::hdr) || f->is_signed() || data_block;
}

// Offsets of every surface in the canonical order layer → face → mip.
inline uint64_t mip_surface_bytes(const TextureDesc& d, uint32_t mip) {
    return surface_bytes(d.format, mip_extent(d.width, mip), mip_extent(d.height, mip), mip_extent(d.depth, mip));
}

inline uint64_t texture_bytes(const TextureDesc& d) {
    uint64_t per_face = 0;
    for (uint32_t m = 0; m < d.mips; ++m) per_face += mip_surface_bytes(d, m);
    return per_face * d.faces * d.layers;
}

inline uint64_t surface_offset(const TextureDesc& d, uint32_t layer, uint32_t face, uint32_t mip) {
    uint64_t per_face = 0, before_mip = 0;
    for (uint32_t m = 0; m < d.mips; ++m) {
        if (m == mip) before_mip = per_face;
        per_face += mip_surface_bytes(d, m);
    }
    return (uint64_t(layer) * d.faces + face) * per_face + before_mip;
}

struct Texture {
    TextureDesc desc;
    std::vector<uint8_t> data;
    std::vector<uint8_t> palette; // P8: 256 × RGBA8 per layer
    std::map<std::string, std::string> meta;

    Texture() = default;
    explicit Texture(const TextureDesc& d) : desc(d), data(texture_bytes(d)) {
        if (d.format == FMT_P8) palette.resize(size_t(d.layers) * 1024);
    }

    // The owner hands out views; there is no implicit conversion, so a view never outlives a temporary unseen.
    ImageView surface(uint32_t layer, uint32_t face, uint32_t mip) {
        if (layer >= desc.layers || face >= desc.faces || mip >= desc.mips)
            throw std::out_of_range("surface index out of range");
        return {.format = desc.format,
                .width = mip_extent(desc.width, mip),
                .height = mip_extent(desc.height, mip),
                .depth = mip_extent(desc.depth, mip),
                .data = data.data() + surface_offset(desc, layer, face, mip),
                .size = mip_surface_bytes(desc, mip)};
    }
    ImageView surface(uint32_t layer, uint32_t face, uint32_t mip) const {
        return const_cast<Texture*>(this)->surface(layer, face, mip);
    }
};

} // namespace af
