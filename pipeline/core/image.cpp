#include "core/image.hpp"

#include <algorithm>
#include <cmath>

namespace af {

Image to_float(const Image& in) {
    if (in.is_float()) return in;
    Image out = Image::makef(in.width, in.height, in.srgb);
    for (size_t i = 0; i < in.rgba8.size(); ++i) out.rgba32f[i] = in.rgba8[i] * (1.0f / 255.0f);
    return out;
}

Image to_rgba8(const Image& in) {
    if (!in.is_float()) return in;
    Image out = Image::make8(in.width, in.height, in.srgb);
    for (size_t i = 0; i < in.rgba32f.size(); ++i) {
        float v = in.rgba32f[i];
        v = std::isnan(v) ? 0.0f : std::clamp(v, 0.0f, 1.0f);
        out.rgba8[i] = uint8_t(std::lround(v * 255.0f));
    }
    return out;
}

} // namespace af
