// Resizing RGBA8 / RGBA32F pictures with the host's filters (af_host.resample,
// API 1.3): the same kaiser/lanczos/mitchell/… kernels, edge modes, linear-light
// and alpha weighting the host uses for mips, without linking an image library.
#pragma once

#include "assetforge/pixels.hpp"
#include "assetforge/plugin.hpp"

namespace af::sdk {

struct ResampleOptions {
    uint32_t filter = AF_FILTER_KAISER;
    uint32_t edge = AF_EDGE_CLAMP;
    bool linear_light = true;      // filter sRGB colour in linear light
    bool premultiply_alpha = true; // weight colour by alpha
    bool srgb = false;             // treat the colour as sRGB even when the pixels are not tagged so

    af_resample_options table() const {
        af_resample_options o{};
        init_header(o);
        o.filter = filter;
        o.edge = edge;
        o.flags = (linear_light ? AF_RESAMPLE_LINEAR_LIGHT : 0u) |
                  (premultiply_alpha ? AF_RESAMPLE_PREMULTIPLIED_ALPHA : 0u) | (srgb ? AF_RESAMPLE_SRGB : 0u);
        return o;
    }
};

// The host's resampler from one surface into another (its size and type say what to make).
inline void resample_surface(const af_host* host, const af_surface& src, af_surface& dst,
                             const ResampleOptions& options) {
    if (!AF_HOST_HAS(host, resample)) unsupported("resampling needs a host with API 1.3 (af_host.resample)");
    const af_resample_options o = options.table();
    af_error e{};
    check_host_call(host->resample(&src, &dst, &o, &e), e, "resampling");
}

// A picture (picture.hpp) at another size; the result keeps its pixel type and colour space.
inline Texture resample(const af_host* host, const Texture& in, uint32_t width, uint32_t height,
                        const ResampleOptions& options = {}) {
    if (!is_picture(in)) usage("resample: one RGBA8 or RGBA32F picture at a time");
    Texture out = picture_like(in, width, height);
    af_surface dst = out.surface(0, 0, 0).abi();
    resample_surface(host, in.surface(0, 0, 0).abi(), dst, options);
    return out;
}

} // namespace af::sdk
