#include "reflectivity.hpp"

#include "surface_codec.hpp"

#include <algorithm>
#include <cmath>

namespace af::xtf {

std::array<float, 3> compute_reflectivity(const af_host* host, const Texture& t) {
    float sum[3] = {0, 0, 0};
    uint32_t images = 0;
    for (uint32_t l = 0; l < t.desc.layers; ++l)
        for (uint32_t f = 0; f < t.desc.faces; ++f) {
            const Texture px = to_rgba8(decode_surface(host, t, l, f, 0));
            const ImageView s = t.surface(l, f, 0);
            const size_t slice = size_t(s.width) * s.height;
            for (uint32_t z = 0; z < s.depth; ++z) {
                float acc[3] = {0, 0, 0};
                for (size_t i = 0; i < slice; ++i)
                    for (int c = 0; c < 3; ++c) {
                        const float v = float(px.data[(z * slice + i) * 4 + c]) / 255.0f * 0.922f;
                        acc[c] += v * v;
                    }
                for (int c = 0; c < 3; ++c) sum[c] += acc[c] / float(slice);
                ++images;
            }
        }
    return {sum[0] / float(images), sum[1] / float(images), sum[2] / float(images)};
}

std::array<uint8_t, 3> reflectivity_pixel(const std::array<float, 3>& r) {
    std::array<uint8_t, 3> p{};
    // Reflectivity may come from a file header: NaN there becomes 0 instead
    // of an undefined float-to-byte conversion.
    for (int c = 0; c < 3; ++c) p[c] = std::isnan(r[c]) ? 0 : uint8_t(std::clamp(r[c], 0.0f, 1.0f) * 255.0f);
    return p;
}

} // namespace af::xtf
