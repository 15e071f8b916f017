// What an XTF write will produce, settled before any pixel work: each header
// value comes from the option that names it, else from the file the texture
// was read from (resave_meta.hpp), else from the content (auto_format.hpp) or
// the format's default. Also checks that XTF can hold the result.
#pragma once

#include "resave_meta.hpp"
#include "xtf_writer.hpp"

#include "assetforge/plugin_abi.h"
#include "assetforge/texture.hpp"

#include <array>
#include <cstdint>
#include <optional>

namespace af::xtf {

struct XtfWritePlan {
    int32_t vtf_format = 0; // never VTF_DXT1_ONEBITALPHA
    uint32_t format = 0;    // the AssetForge id of vtf_format
    // As given or kept, before ENVMAP, NOMIP and ONEBITALPHA follow the data.
    uint32_t flags = 0;
    bool one_bit_alpha = false; // asked for (DXT1_ONEBITALPHA) or picked by auto for cut-outs
    bool nomip = false;
    uint32_t mips = 1;
    uint32_t fallback_width = 0, fallback_height = 0, fallback_mips = 0;
    uint8_t mip_skip = 0;
    float bumpmap_scale = 1.0f;
    std::optional<std::array<float, 3>> reflectivity; // nullopt: compute from the written mip 0
    bool lowres = true;                               // write a low-res image
    bool keep_lowres = false;                         // kept->lowres, else the 1×1 reflectivity pixel
    // The source file's derived data (fallback, low-res image, reflectivity,
    // palettes), when it still describes these pixels in this format.
    const XtfSource* kept = nullptr;
    bool keep_fallback = false; // kept->fallback fits the planned fallback
};

XtfWritePlan plan_xtf_write(const af_host* host, const Texture& in, const XtfWriteOptions& opt,
                            const std::optional<XtfSource>& source);

} // namespace af::xtf
