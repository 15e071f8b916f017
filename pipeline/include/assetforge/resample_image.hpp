// resample (resample.hpp) for the run-time typed Image: the result keeps the
// input's pixel type and sRGB tag. A header of its own so that code including
// resample.hpp sees no new names.
#pragma once

#include "assetforge/image.hpp"
#include "assetforge/resample.hpp"

namespace af::sdk {

inline Image resample(const af_host* host, const Image& in, uint32_t width, uint32_t height,
                      const ResampleOptions& options = {}) {
    Image out = in.is_float() ? Image::makef(width, height, in.srgb) : Image::make8(width, height, in.srgb);
    af_surface dst = out.surface();
    resample_surface(host, in.surface(), dst, options);
    return out;
}

} // namespace af::sdk
