// One surface ⇄ image: whole-byte layouts by a byte shuffle here, every
// other format through af_host.convert (the core for uncompressed formats,
// the BC codec plugin for compressed ones). Depth slices are stacked
// vertically: the picture is width × (height·depth). Decoding gives RGBA8 for
// uncompressed formats that fit in 8 bits, RGBA32F otherwise.
#pragma once

#include "assetforge/picture.hpp"

#include "assetforge/plugin_abi.h"
#include "assetforge/texture.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace af::xtf {

// `palette` (256 × RGBA8) is needed for FMT_P8 only.
Texture decode_surface(const af_host* host, uint32_t format, const uint8_t* data, uint64_t size, uint32_t width,
                       uint32_t height, uint32_t depth, const uint8_t* palette = nullptr);
inline Texture decode_surface(const af_host* host, const Texture& t, uint32_t layer, uint32_t face, uint32_t mip) {
    ImageView s = t.surface(layer, face, mip);
    const uint8_t* pal = t.desc.format == FMT_P8 ? t.palette.data() + size_t(layer) * 1024 : nullptr;
    return decode_surface(host, t.desc.format, s.data, s.size, s.width, s.height, s.depth, pal);
}

// Not for FMT_P8 (that needs a palette: see p8_quantizer.hpp). RGBA8 or RGBA32F in.
void encode_surface(const af_host* host, const Texture& img, uint32_t format, uint8_t* dst, uint64_t size,
                    uint32_t width, uint32_t height, uint32_t depth);

// Why `format` cannot be encoded here (no convert service, no codec plugin
// for it), or nullopt when one 4×4 block encodes: lets a writer say so before
// it has resampled anything, instead of failing halfway through.
std::optional<std::string> encoder_missing(const af_host* host, uint32_t format);

// Box-filters a volume (slices stacked vertically) to the next mip extent.
Texture halve_volume(const Texture& vol, uint32_t width, uint32_t height, uint32_t depth);

} // namespace af::xtf
