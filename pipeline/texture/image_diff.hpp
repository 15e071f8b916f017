// How far one image is from another: per-channel PSNR, RMSE and largest
// error, SSIM on luminance, and an error heatmap. Values are compared as
// stored, scaled to 0..1 (8-bit: /255; float formats as they are), so the
// figures match what texdiag's and nvimgdiff's diff report for the same pixels.
#pragma once

#include "core/image.hpp"

#include <array>
#include <optional>

namespace af::texture {

struct ChannelDiff {
    double mse = 0, rmse = 0, max_error = 0;
    std::optional<double> psnr; // dB for a peak of 1.0; nullopt when identical
};

struct ImageDiff {
    uint32_t width = 0, height = 0;
    std::array<ChannelDiff, 4> channel; // R, G, B, A
    std::optional<double> psnr_rgb;     // from the mean of R, G and B's MSE
    double ssim = 1;                    // mean SSIM of the luminance (Rec. 709 weights); 1 when not measured
};

// Throws std::invalid_argument when the sizes differ. SSIM (most of the
// time) only when asked: the build's HTML report shows PSNR and max error.
ImageDiff diff_images(const Image& a, const Image& b, bool with_ssim = true);

// Per texel, the largest channel error, as a colour ramp (black → red →
// yellow → white) scaled so `scale` (e.g. the largest error) is white.
Image error_heatmap(const Image& a, const Image& b, double scale);

} // namespace af::texture
