// Writes XTF (spec §12): converts any Texture to the target format, builds the
// mip chain and fallback, quantizes P8, lays out and swizzles the file.
#pragma once

#include "resampling.hpp"
#include "xtf_format.hpp"

#include "assetforge/plugin_abi.h"
#include "assetforge/texture.hpp"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace af::sdk {
struct Param;
class ParamTable;
} // namespace af::sdk

namespace af::xtf {

// Unset optionals were not given: a texture read from an XTF then keeps that
// file's value (resave_meta.hpp), any other gets the default noted.
struct XtfWriteOptions {
    // VTF id; nullopt: the source file's format, else `auto` (auto_format.hpp).
    std::optional<int32_t> format;
    bool fallback = true;                             // false: none
    std::optional<uint32_t> fallback_side;            // largest side, aspect kept; nullopt: the source's size, else 8
    uint32_t fallback_width = 0, fallback_height = 0; // an exact size, when not 0
    std::optional<bool> lowres;                       // the 1×1 RGB888 reflectivity pixel (default on)
    std::optional<uint32_t> flags;                    // as given, except ENVMAP and NOMIP which follow the data
    std::optional<bool> nomip;                        // default off
    bool dither = true;                               // P8 only
    // Mips the texture lacks and fallback images, through the host's resample
    // service. Mitchell on premultiplied alpha in the stored (not linear)
    // space reproduces vtfpp (stb_image_resize2 defaults) to within rounding
    // on the fixtures.
    ResampleSettings resampling;
    std::optional<uint8_t> mip_skip;                  // default 0
    std::optional<float> bumpmap_scale;               // default 1
    std::optional<std::array<float, 3>> reflectivity; // computed from mip 0 when absent
    // Ready fallback images (target format, fallback size, full chain or one
    // mip per NOMIP, one per frame/face) used instead of resampling mip 0.
    const Texture* fallback_images = nullptr;
};

// Option names: format, fallback (auto | none | N | WxH), lowres, flags, nomip,
// dither, filter (box, triangle, mitchell, kaiser, …), premultiply, linear, mipskip,
// reflectivity ("r,g,b"), bumpscale.
XtfWriteOptions parse_xtf_write_options(const af_options* options);
// What parse_xtf_write_options reads: the xtf container's write options and
// the xtf.write stage's parameters.
const sdk::ParamTable& xtf_write_params();

// What an XTF file stores, before layout: linear (unswizzled) images.
struct XtfContent {
    XtfHeader header;              // preload size and image offset are set by serialize_xtf
    Texture image;                 // header format; P8 holds indices
    Texture fallback;              // desc.width == 0 when there is none
    std::vector<uint8_t> palettes; // frames × 256 × (B, G, R, A)
    std::vector<uint8_t> lowres;   // lowres_width × lowres_height × (R, G, B)
};

// `in.meta` may carry what the xtf reader recorded (resave_meta.hpp).
XtfContent prepare_xtf(const af_host* host, const Texture& in, const XtfWriteOptions& opt);
std::vector<uint8_t> serialize_xtf(const af_host* host, XtfContent& content);
inline std::vector<uint8_t> write_xtf(const af_host* host, const Texture& in, const XtfWriteOptions& opt) {
    XtfContent c = prepare_xtf(host, in, opt);
    return serialize_xtf(host, c);
}

// Helpers shared with the VTF writer.
sdk::Param vtf_format_param(std::string doc);
sdk::Param filter_param();
sdk::Param reflectivity_param();
// The VTF writer's `auto`: the VTF id storing the texture's bytes as they are
// (BGRA8888 or RGBA16161616F when VTF has no such layout).
uint32_t auto_vtf_format(uint32_t af_format);
// Frames × faces × mips images of `in` in `format` with `mips` levels: copies
// surfaces when the format matches (or is its sRGB twin) and the chain is there, otherwise decodes,
// regenerates missing mips from mip 0 and encodes. Not for P8.
Texture convert_texture(const af_host* host, const Texture& in, uint32_t format, uint32_t mips,
                        const XtfWriteOptions& opt);

} // namespace af::xtf
