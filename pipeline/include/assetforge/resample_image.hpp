// resample (resample.hpp) for the run-time typed Image: the result keeps the
// input's pixel type and sRGB tag. A header of its own so that code including
// resample.hpp sees no new names.
#pragma once

#include "assetforge/image.hpp"
#include "assetforge/resample.hpp"

namespace af::sdk {

inline Image resample(const af_host* host, const Image& in, uint32_t width, uint32_t height,
                      const ResampleOptions& options = {}) {
    if (!AF_HOST_HAS(host, resample)) unsupported("resampling needs a host with API 1.3 (af_host.resample)");
    Image out = in.is_float() ? Image::makef(width, height, in.srgb) : Image::make8(width, height, in.srgb);
    const af_surface src = in.surface();
    af_surface dst = out.surface();
    const af_resample_options o = options.table();
    af_error e{};
    check_host_call(host->resample(&src, &dst, &o, &e), e, "resampling");
    return out;
}

} // namespace af::sdk
