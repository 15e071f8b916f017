// Uncompressed RGBA pixels of any surface, through the host's convert service:
// a plugin reads or writes a BC7, R10G10B10A2 or B5G6R5 surface as an RGBA8
// or RGBA32F picture (picture.hpp) without a decoder of its own (compressed
// formats go through the codec plugins the host has loaded).
//
//   af::Texture px = af::sdk::get_rgba8(host, surface);         // any format → RGBA8
//   ...edit px.data (af::floats(px) for RGBA32F)...
//   af::sdk::put_pixels(host, px, out_surface);                  // RGBA8 → out_surface.format
#pragma once

#include "assetforge/error.hpp"
#include "assetforge/formats.hpp"
#include "assetforge/picture.hpp"
#include "assetforge/plugin_abi.h"

#include <cstdint>
#include <vector>

namespace af::sdk {

// Fails with the host's status and message; `what` says which call, for the message.
inline void check_host_call(af_status st, const af_error& e, const char* what) {
    if (st != AF_OK) fail(st, e.offset, format("%s: %s", what, e.message[0] ? e.message : "failed without a message"));
}

// Any 2-D surface → an RGBA8 or RGBA32F picture (as_float), tagged sRGB when
// the source's format is an _SRGB one.
inline Texture get_picture(const af_host* host, const af_surface& src, bool as_float,
                           const af_options* options = nullptr) {
    if (!host || !host->convert) unsupported("reading pixels needs the host's convert service");
    if (src.depth > 1) usage("get_pixels: one 2-D surface at a time (depth > 1)");
    const FormatInfo* f = format_info(src.format);
    const bool srgb = f && f->srgb();
    Texture out = as_float ? rgba32f_picture(src.width, src.height, srgb) : rgba8_picture(src.width, src.height, srgb);
    af_surface dst = out.surface(0, 0, 0).abi();
    af_error e{};
    check_host_call(host->convert(&src, &dst, options, &e), e, "converting to RGBA");
    return out;
}
inline Texture get_rgba8(const af_host* host, const af_surface& src, const af_options* options = nullptr) {
    return get_picture(host, src, false, options);
}
inline Texture get_rgba32f(const af_host* host, const af_surface& src, const af_options* options = nullptr) {
    return get_picture(host, src, true, options);
}

// Pixels → dst (its format, size and buffer set by the caller; sizes must match).
// options reach the codec when dst is compressed ("quality" = "high").
inline void put_pixels(const af_host* host, const Texture& px, af_surface& dst, const af_options* options = nullptr) {
    if (!host || !host->convert) unsupported("writing pixels needs the host's convert service");
    if (!is_picture(px)) usage("put_pixels: the pixels must be one RGBA8 or RGBA32F picture");
    if (dst.width != px.desc.width || dst.height != px.desc.height || dst.depth > 1)
        usage(format("put_pixels: %ux%u pixels into a %ux%ux%u surface", px.desc.width, px.desc.height, dst.width,
                     dst.height, dst.depth));
    const af_surface src = px.surface(0, 0, 0).abi();
    af_error e{};
    check_host_call(host->convert(&src, &dst, options, &e), e, "converting from RGBA");
}

} // namespace af::sdk
