// Float → 8-bit with rounding and optional dithering of the colour channels.
#include "core/image_ops_internal.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace af {

namespace {

// 8x8 Bayer index matrix: thresholds spread evenly over 64 levels.
constexpr uint8_t kBayer8[8][8] = {{0, 32, 8, 40, 2, 34, 10, 42},  {48, 16, 56, 24, 50, 18, 58, 26},
                                   {12, 44, 4, 36, 14, 46, 6, 38}, {60, 28, 52, 20, 62, 30, 54, 22},
                                   {3, 35, 11, 43, 1, 33, 9, 41},  {51, 19, 59, 27, 49, 17, 57, 25},
                                   {15, 47, 7, 39, 13, 45, 5, 37}, {63, 31, 55, 23, 61, 29, 53, 21}};

uint8_t round_offset(float v, float offset) {
    if (std::isnan(v)) return 0;
    float q = std::floor(std::clamp(v, 0.0f, 1.0f) * 255.0f + 0.5f + offset);
    return uint8_t(std::clamp(q, 0.0f, 255.0f));
}

} // namespace

Texture quantize_to_rgba8(const Texture& in, Dither dither) {
    image_ops::check_image(in, "quantise");
    if (!is_float(in)) return in;
    Texture out = rgba8_picture(in.desc.width, in.desc.height, is_srgb(in.desc));
    const uint32_t w = in.desc.width;

    if (dither != Dither::FloydSteinberg) {
        image_ops::for_each_row(in.desc.height, w, [&](uint32_t y) {
            for (uint32_t x = 0; x < w; ++x) {
                const size_t i = (size_t(y) * w + x) * 4;
                const float off = dither == Dither::Ordered ? (kBayer8[y & 7][x & 7] + 0.5f) / 64.0f - 0.5f : 0.0f;
                for (int k = 0; k < 3; ++k) out.data[i + k] = round_offset(floats(in)[i + k], off);
                out.data[i + 3] = round_offset(floats(in)[i + 3], 0.0f);
            }
        });
        return out;
    }

    // Serpentine Floyd–Steinberg; error kept in units of 1/255, one slot of
    // padding at both ends of each row.
    std::vector<float> cur(size_t(w + 2) * 3, 0.0f), next(size_t(w + 2) * 3, 0.0f);
    for (uint32_t y = 0; y < in.desc.height; ++y) {
        const bool forward = (y & 1) == 0;
        const int dir = forward ? 1 : -1;
        for (uint32_t xi = 0; xi < w; ++xi) {
            const uint32_t x = forward ? xi : w - 1 - xi;
            const size_t i = (size_t(y) * w + x) * 4;
            const size_t e = size_t(x + 1) * 3;
            for (int k = 0; k < 3; ++k) {
                float src = floats(in)[i + k];
                if (std::isnan(src)) src = 0.0f;
                const float v = std::clamp(std::clamp(src, 0.0f, 1.0f) * 255.0f + cur[e + k], 0.0f, 255.0f);
                const float q = std::floor(v + 0.5f);
                out.data[i + k] = uint8_t(q);
                const float err = v - q;
                cur[e + dir * 3 + k] += err * (7.0f / 16.0f);
                next[e - dir * 3 + k] += err * (3.0f / 16.0f);
                next[e + k] += err * (5.0f / 16.0f);
                next[e + dir * 3 + k] += err * (1.0f / 16.0f);
            }
            out.data[i + 3] = round_offset(floats(in)[i + 3], 0.0f);
        }
        std::swap(cur, next);
        std::fill(next.begin(), next.end(), 0.0f);
    }
    return out;
}

} // namespace af
