// How far one image is from another: per-channel PSNR, RMSE and largest
// error, SSIM on luminance, and an error heatmap. Values are compared as
// stored, scaled to 0..1 (8-bit: /255; float formats as they are), so the
// figures match what texdiag's and nvimgdiff's diff report for the same pixels.
// The one difference of the pipeline: encode's measure, `compare` and the
// HTML report's figures all come from here.
#pragma once

#include "assetforge/format_channels.hpp"
#include "assetforge/formats.hpp"
#include "assetforge/image_view.hpp"
#include "assetforge/picture.hpp"

#include <array>
#include <optional>
#include <vector>

namespace af::texture {

struct ChannelDiff {
    double mse = 0, rmse = 0, max_error = 0;
    std::optional<double> psnr; // dB for a peak of 1.0; nullopt when identical
};

struct ImageDiff {
    uint32_t width = 0, height = 0;
    std::array<ChannelDiff, 4> channel; // R, G, B, A
    std::optional<double> psnr_rgb;     // from the mean MSE of the colour channels asked (R, G and B unless told)
    // A's alpha below 1 somewhere: the colour's error weighted by A's alpha, so colour under transparent texels
    // (invisible in the game, and what BC1 cut-outs and premultiplied editors change freely) does not count.
    // nullopt when A has no alpha, when nothing differs, or when every texel is fully transparent.
    bool has_alpha = false;
    std::optional<double> psnr_rgb_alpha_weighted;
    double ssim = 1; // mean SSIM of the luminance (Rec. 709 weights); 1 when not measured
};

struct DiffOptions {
    bool ssim = true; // most of the time only when asked: the build's HTML report shows PSNR and max error
    // The colour channels psnr_rgb counts (chan:: bits): the ones the
    // encoded format stores (stored_colour, assetforge/format_channels.hpp), so a channel the
    // format drops (BC5's blue, BC4's green and blue) reports the encode, not the drop.
    uint8_t psnr_channels = chan::rgb;
};

// A and B are RGBA8 or RGBA32F views, read in place (a picture's surface(0, 0, 0), or a surface that is RGBA
// already: no copy of a 4096² source); a volume's slices as one tall view (ImageView::stacked).
// Throws std::invalid_argument when the sizes differ.
ImageDiff diff_images(const ImageView& a, const ImageView& b, DiffOptions opt = {});

// The same figures, fed a band of rows of both images at a time, top to
// bottom, so two large surfaces never need to be decoded whole: it holds the
// last 11 rows of the SSIM window's sums (about 440 bytes per column), not
// the images. Bit for bit what diff_images gives.
class DiffRows {
  public:
    DiffRows(uint32_t width, uint32_t height, DiffOptions opt = {});
    // The next rows of A and B (equal sizes, `width` wide). Throws
    // std::invalid_argument on a size mismatch or rows beyond `height`.
    void add(const ImageView& a, const ImageView& b);
    // Once every row was added.
    ImageDiff finish();

  private:
    void ssim_row(const double* x, const double* y);
    uint32_t width_, height_, rows_ = 0;
    bool with_ssim_;
    uint8_t psnr_channels_;
    bool small_; // under the 11×11 window in either direction: one window over all (luminance kept whole)
    std::array<double, 4> sq_{};
    std::array<double, 4> max_{};
    bool whole_levels_ = false; // the 8-bit path without SSIM: exact integer sums
    std::array<uint64_t, 4> isq_{};
    std::array<int, 4> imax_{};
    double wsq_ = 0, wsum_ = 0;     // Σ alpha·colour error², Σ alpha (floats and 8-bit alike, alpha 0..1)
    uint64_t iwsq_ = 0, iwsum_ = 0; // the same in whole levels
    bool alpha_below_one_ = false;
    double g_[11] = {};
    std::vector<double> small_x_, small_y_;
    std::vector<double> ring_; // 11 rows × 5 sums (x, y, xx, yy, xy) × (width - 10), horizontally blurred
    double ssim_total_ = 0;
    uint64_t ssim_count_ = 0;
};

// The difference a player can see, as pictures (the build's HTML report): the
// colour error of the channels the result keeps, weighted by A's alpha as
// psnr_rgb_alpha_weighted weighs it, transparent where A's alpha is 0 (not
// counted there), and the alpha error as a grey picture of its own. Each is
// brightened so its largest error is white (no brightening when it is 0).
struct DifferencePictures {
    Texture colour, alpha;
    double colour_max = 0, alpha_max = 0; // 0..1: the largest weighted colour error, the largest alpha error
};
DifferencePictures difference_pictures(const ImageView& a, const ImageView& b, uint8_t colour_channels = chan::rgb);

// Per texel, the largest channel error, as a colour ramp (black → red →
// yellow → white) scaled so `scale` (e.g. the largest error) is white.
Texture error_heatmap(const ImageView& a, const ImageView& b, double scale);

} // namespace af::texture
