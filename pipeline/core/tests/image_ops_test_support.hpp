// Helpers shared by the image-ops tests.
#pragma once

#include "assetforge/picture.hpp"
#include "core/image_ops.hpp"
#include "core/pixel_convert.hpp"
#include "core/png_io.hpp"

#include <cmath>
#include <string>
#include <vector>

namespace af::test {

inline constexpr Filter kAllFilters[] = {Filter::Box,      Filter::Triangle, Filter::Kaiser,
                                         Filter::Lanczos3, Filter::Mitchell, Filter::Point};
// Every filter that averages (point samples, so it cannot turn a checker grey).
inline constexpr Filter kAveragingFilters[] = {Filter::Box, Filter::Triangle, Filter::Kaiser, Filter::Lanczos3,
                                               Filter::Mitchell};

inline std::string data_path(const std::string& name) { return std::string(AF_TEST_DATA) + "/images/" + name; }

inline float channel(const Texture& img, uint32_t x, uint32_t y, int c) {
    size_t i = (size_t(y) * img.desc.width + x) * 4 + c;
    return is_float(img) ? floats(img)[i] : img.data[i] / 255.0f;
}

// Colour channel in linear light (decoded when the image is sRGB-tagged).
inline float linear(const Texture& img, uint32_t x, uint32_t y, int c) {
    float v = channel(img, x, y, c);
    return is_srgb(img.desc) ? srgb_to_linear(v) : v;
}

inline double mean_linear(const Texture& img, int c) {
    double s = 0;
    for (uint32_t y = 0; y < img.desc.height; ++y)
        for (uint32_t x = 0; x < img.desc.width; ++x) s += linear(img, x, y, c);
    return s / double(texels(img));
}

// PSNR over RGB of two same-size 8-bit images.
inline double psnr_rgb8(const Texture& a, const Texture& b) {
    double se = 0;
    size_t n = 0;
    for (size_t t = 0; t < texels(a); ++t)
        for (int c = 0; c < 3; ++c) {
            double d = double(a.data[t * 4 + c]) - double(b.data[t * 4 + c]);
            se += d * d;
            ++n;
        }
    double mse = se / double(n);
    return mse == 0 ? 99.0 : 10.0 * std::log10(255.0 * 255.0 / mse);
}

} // namespace af::test
