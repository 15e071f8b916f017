#include "texture/image_diff.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace af::texture {

namespace {

// The texels as floats 0..1, RGBA, read in place: float copies of two
// 4096² images would be 512 MB, and the build's HTML report diffs every texture.
struct Texels {
    const uint8_t* u8 = nullptr;
    const float* f = nullptr;
    explicit Texels(const ImageView& img) : u8(img.u8()), f(img.f32()) {
        if (!img.is_rgba()) throw std::invalid_argument("a difference of RGBA8 or RGBA32F texels only");
    }
    float operator[](size_t i) const { return f ? f[i] : float(u8[i]) * (1.0f / 255.0f); }
};

std::optional<double> psnr_of(double mse) {
    if (mse <= 0) return std::nullopt;
    return 10.0 * std::log10(1.0 / mse);
}

// Wang et al.'s SSIM: an 11×11 Gaussian window (σ 1.5) over every position
// where it fits, C1 = (0.01·L)², C2 = (0.03·L)² with L = 1. An image smaller
// than the window is one window over all of it.
double ssim_of(const std::vector<double>& x, const std::vector<double>& y, uint32_t w, uint32_t h) {
    constexpr double C1 = 0.01 * 0.01, C2 = 0.03 * 0.03;
    if (w < 11 || h < 11) {
        const double n = double(x.size());
        double mx = 0, my = 0;
        for (size_t i = 0; i < x.size(); ++i) mx += x[i], my += y[i];
        mx /= n, my /= n;
        double vx = 0, vy = 0, cxy = 0;
        for (size_t i = 0; i < x.size(); ++i) {
            vx += (x[i] - mx) * (x[i] - mx);
            vy += (y[i] - my) * (y[i] - my);
            cxy += (x[i] - mx) * (y[i] - my);
        }
        vx /= n, vy /= n, cxy /= n;
        return ((2 * mx * my + C1) * (2 * cxy + C2)) / ((mx * mx + my * my + C1) * (vx + vy + C2));
    }
    double g[11], sum = 0;
    for (int i = 0; i < 11; ++i) sum += g[i] = std::exp(-double((i - 5) * (i - 5)) / (2 * 1.5 * 1.5));
    for (double& v : g) v /= sum;
    // Separable: filter rows ("valid" positions only), then columns.
    const uint32_t ow = w - 10, oh = h - 10;
    auto blur = [&](const std::vector<double>& in) {
        std::vector<double> rows(size_t(ow) * h), out(size_t(ow) * oh);
        for (uint32_t r = 0; r < h; ++r)
            for (uint32_t c = 0; c < ow; ++c) {
                double s = 0;
                for (int k = 0; k < 11; ++k) s += g[k] * in[size_t(r) * w + c + k];
                rows[size_t(r) * ow + c] = s;
            }
        for (uint32_t r = 0; r < oh; ++r)
            for (uint32_t c = 0; c < ow; ++c) {
                double s = 0;
                for (int k = 0; k < 11; ++k) s += g[k] * rows[size_t(r + k) * ow + c];
                out[size_t(r) * ow + c] = s;
            }
        return out;
    };
    std::vector<double> xx(x.size()), yy(x.size()), xy(x.size());
    for (size_t i = 0; i < x.size(); ++i) xx[i] = x[i] * x[i], yy[i] = y[i] * y[i], xy[i] = x[i] * y[i];
    const auto mx = blur(x), my = blur(y), sxx = blur(xx), syy = blur(yy), sxy = blur(xy);
    double total = 0;
    for (size_t i = 0; i < mx.size(); ++i) {
        const double vx = sxx[i] - mx[i] * mx[i], vy = syy[i] - my[i] * my[i], cxy = sxy[i] - mx[i] * my[i];
        total += ((2 * mx[i] * my[i] + C1) * (2 * cxy + C2)) / ((mx[i] * mx[i] + my[i] * my[i] + C1) * (vx + vy + C2));
    }
    return total / double(mx.size());
}

} // namespace

ImageDiff diff_images(const ImageView& a, const ImageView& b, DiffOptions opt) {
    if (a.width != b.width || a.height != b.height)
        throw std::invalid_argument("the images differ in size: " + std::to_string(a.width) + "x" +
                                    std::to_string(a.height) + " and " + std::to_string(b.width) + "x" +
                                    std::to_string(b.height));
    DiffRows rows(a.width, a.height, opt);
    rows.add(a, b);
    return rows.finish();
}

DiffRows::DiffRows(uint32_t width, uint32_t height, DiffOptions opt)
    : width_(width), height_(height), with_ssim_(opt.ssim), psnr_channels_(opt.psnr_channels & chan::rgb),
      small_(width < 11 || height < 11) {
    if (!psnr_channels_) throw std::invalid_argument("a PSNR over no colour channel");
    double sum = 0;
    for (int i = 0; i < 11; ++i) sum += g_[i] = std::exp(-double((i - 5) * (i - 5)) / (2 * 1.5 * 1.5));
    for (double& v : g_) v /= sum;
    if (with_ssim_ && !small_) ring_.assign(size_t(11) * 5 * (width - 10), 0.0);
}

// One luminance row of each image into the window: its horizontal sums go into
// the ring, and once 11 rows are there the vertical sums give one SSIM row.
// Sums run in the order the whole-image filter ran them (rows, then columns).
void DiffRows::ssim_row(const double* x, const double* y) {
    constexpr double C1 = 0.01 * 0.01, C2 = 0.03 * 0.03;
    const uint32_t ow = width_ - 10;
    double* slot = ring_.data() + size_t(rows_ % 11) * 5 * ow;
    for (uint32_t c = 0; c < ow; ++c) {
        double s[5] = {0, 0, 0, 0, 0};
        for (int k = 0; k < 11; ++k) {
            const double xv = x[c + k], yv = y[c + k];
            s[0] += g_[k] * xv;
            s[1] += g_[k] * yv;
            s[2] += g_[k] * (xv * xv);
            s[3] += g_[k] * (yv * yv);
            s[4] += g_[k] * (xv * yv);
        }
        for (int q = 0; q < 5; ++q) slot[size_t(q) * ow + c] = s[q];
    }
    if (rows_ < 10) return;
    const uint32_t top = rows_ - 10;
    for (uint32_t c = 0; c < ow; ++c) {
        double v[5] = {0, 0, 0, 0, 0};
        for (int k = 0; k < 11; ++k) {
            const double* row = ring_.data() + size_t((top + k) % 11) * 5 * ow;
            for (int q = 0; q < 5; ++q) v[q] += g_[k] * row[size_t(q) * ow + c];
        }
        const double mx = v[0], my = v[1];
        const double vx = v[2] - mx * mx, vy = v[3] - my * my, cxy = v[4] - mx * my;
        ssim_total_ += ((2 * mx * my + C1) * (2 * cxy + C2)) / ((mx * mx + my * my + C1) * (vx + vy + C2));
    }
    ssim_count_ += ow;
}

void DiffRows::add(const ImageView& a, const ImageView& b) {
    if (a.width != width_ || b.width != width_ || a.height != b.height || rows_ + a.height > height_)
        throw std::invalid_argument("rows of " + std::to_string(a.width) + "x" + std::to_string(a.height) + " and " +
                                    std::to_string(b.width) + "x" + std::to_string(b.height) + " do not continue a " +
                                    std::to_string(width_) + "x" + std::to_string(height_) + " comparison");
    const Texels fa(a), fb(b);
    // Two 8-bit images and no SSIM (the build's HTML report, once per
    // texture): whole levels, exact, several times faster than through floats.
    if (!a.is_float() && !b.is_float() && !with_ssim_) {
        for (size_t i = 0; i < a.texels() * 4; i += 4) {
            uint64_t colour = 0;
            for (int c = 0; c < 4; ++c) {
                const int e = std::abs(int(a.u8()[i + c]) - int(b.u8()[i + c]));
                isq_[c] += uint64_t(e * e);
                imax_[c] = std::max(imax_[c], e);
                if (c < 3 && (psnr_channels_ & (1u << c))) colour += uint64_t(e * e);
            }
            const uint64_t alpha = a.u8()[i + 3];
            alpha_below_one_ |= alpha < 255;
            iwsq_ += alpha * colour;
            iwsum_ += alpha;
        }
        whole_levels_ = true;
        rows_ += a.height;
        return;
    }
    std::vector<double> ya(with_ssim_ ? width_ : 0), yb(with_ssim_ ? width_ : 0);
    for (uint32_t r = 0; r < a.height; ++r) {
        for (uint32_t col = 0; col < width_; ++col) {
            const size_t i = size_t(r) * width_ + col;
            double colour = 0;
            for (int c = 0; c < 4; ++c) {
                const double e = double(fa[i * 4 + c]) - double(fb[i * 4 + c]);
                sq_[c] += e * e;
                max_[c] = std::max(max_[c], std::abs(e));
                if (c < 3 && (psnr_channels_ & (1u << c))) colour += e * e;
            }
            const double alpha = std::clamp(double(fa[i * 4 + 3]), 0.0, 1.0);
            alpha_below_one_ |= alpha < 1.0;
            wsq_ += alpha * colour;
            wsum_ += alpha;
            if (!with_ssim_) continue;
            ya[col] = 0.2126 * fa[i * 4] + 0.7152 * fa[i * 4 + 1] + 0.0722 * fa[i * 4 + 2];
            yb[col] = 0.2126 * fb[i * 4] + 0.7152 * fb[i * 4 + 1] + 0.0722 * fb[i * 4 + 2];
        }
        if (with_ssim_) {
            if (small_) {
                small_x_.insert(small_x_.end(), ya.begin(), ya.end());
                small_y_.insert(small_y_.end(), yb.begin(), yb.end());
            } else {
                ssim_row(ya.data(), yb.data());
            }
        }
        ++rows_;
    }
}

ImageDiff DiffRows::finish() {
    const size_t texels = size_t(width_) * height_;
    ImageDiff d;
    d.width = width_;
    d.height = height_;
    if (whole_levels_)
        for (int c = 0; c < 4; ++c) sq_[c] = double(isq_[c]) / (255.0 * 255.0), max_[c] = imax_[c] / 255.0;
    for (int c = 0; c < 4; ++c) {
        ChannelDiff& ch = d.channel[c];
        ch.max_error = max_[c];
        ch.mse = texels ? sq_[c] / double(texels) : 0;
        ch.rmse = std::sqrt(ch.mse);
        ch.psnr = psnr_of(ch.mse);
    }
    double colour_mse = 0;
    int counted = 0;
    for (int c = 0; c < 3; ++c)
        if (psnr_channels_ & (1u << c)) colour_mse += d.channel[c].mse, ++counted;
    d.psnr_rgb = psnr_of(colour_mse / counted);
    d.has_alpha = alpha_below_one_;
    if (whole_levels_) wsq_ += double(iwsq_) / (255.0 * 255.0 * 255.0), wsum_ += double(iwsum_) / 255.0;
    if (d.has_alpha && wsum_ > 0) d.psnr_rgb_alpha_weighted = psnr_of(wsq_ / (wsum_ * counted));
    if (!texels || !with_ssim_)
        d.ssim = 1;
    else if (small_)
        d.ssim = ssim_of(small_x_, small_y_, width_, height_);
    else
        d.ssim = ssim_count_ ? ssim_total_ / double(ssim_count_) : 1;
    return d;
}

Texture error_heatmap(const ImageView& a, const ImageView& b, double scale) {
    const Texels fa(a), fb(b);
    Texture out = rgba8_picture(a.width, a.height);
    const double s = scale > 0 ? scale : 1;
    for (size_t i = 0; i < size_t(a.width) * a.height; ++i) {
        double e = 0;
        for (int c = 0; c < 4; ++c) e = std::max(e, std::abs(double(fa[i * 4 + c]) - double(fb[i * 4 + c])));
        const double t = std::clamp(e / s, 0.0, 1.0) * 3; // three legs: black→red, red→yellow, yellow→white
        out.data[i * 4 + 0] = uint8_t(std::lround(255 * std::min(t, 1.0)));
        out.data[i * 4 + 1] = uint8_t(std::lround(255 * std::clamp(t - 1, 0.0, 1.0)));
        out.data[i * 4 + 2] = uint8_t(std::lround(255 * std::clamp(t - 2, 0.0, 1.0)));
        out.data[i * 4 + 3] = 255;
    }
    return out;
}

DifferencePictures difference_pictures(const ImageView& a, const ImageView& b, uint8_t colour_channels) {
    if (a.width != b.width || a.height != b.height)
        throw std::invalid_argument("the images differ in size: " + std::to_string(a.width) + "x" +
                                    std::to_string(a.height) + " and " + std::to_string(b.width) + "x" +
                                    std::to_string(b.height));
    const size_t n = a.texels();
    DifferencePictures d;
    d.colour = rgba8_picture(a.width, a.height);
    d.alpha = rgba8_picture(a.width, a.height);
    // Two 8-bit images (the build's HTML report, once per texture): whole levels, several times faster than
    // through floats, and the same pictures but for rounding.
    if (!a.is_float() && !b.is_float()) {
        const uint8_t *pa = a.u8(), *pb = b.u8();
        // A channel left out weighs 0; no branch in the loops, which the compiler then vectorises.
        const uint32_t on[3] = {colour_channels & 1u, (colour_channels >> 1) & 1u, (colour_channels >> 2) & 1u};
        uint32_t cmax = 0, amax = 0; // alpha × |Δ| in levels², |Δalpha| in levels
        for (size_t i = 0; i < n * 4; i += 4) {
            for (int c = 0; c < 3; ++c)
                cmax = std::max(cmax, on[c] * pa[i + 3] * uint32_t(std::abs(int(pa[i + c]) - int(pb[i + c]))));
            amax = std::max(amax, uint32_t(std::abs(int(pa[i + 3]) - int(pb[i + 3]))));
        }
        d.colour_max = cmax / (255.0 * 255.0), d.alpha_max = amax / 255.0;
        const float kc = cmax ? 255.0f / float(cmax) : 0.0f, ka = amax ? 255.0f / float(amax) : 0.0f;
        uint8_t alpha_level[256];
        for (uint32_t e = 0; e < 256; ++e) alpha_level[e] = uint8_t(std::min(255.0f, float(e) * ka + 0.5f));
        for (size_t i = 0; i < n * 4; i += 4) {
            for (int c = 0; c < 3; ++c) {
                const uint32_t e = on[c] * pa[i + 3] * uint32_t(std::abs(int(pa[i + c]) - int(pb[i + c])));
                d.colour.data[i + c] = uint8_t(std::min(255.0f, float(e) * kc + 0.5f));
            }
            d.colour.data[i + 3] = pa[i + 3] > 0 ? 255 : 0;
            const uint8_t level = alpha_level[std::abs(int(pa[i + 3]) - int(pb[i + 3]))];
            d.alpha.data[i] = d.alpha.data[i + 1] = d.alpha.data[i + 2] = level;
            d.alpha.data[i + 3] = 255;
        }
        return d;
    }
    const Texels fa(a), fb(b);
    auto colour_error = [&](size_t i, int c) {
        const double alpha = std::clamp(double(fa[i * 4 + 3]), 0.0, 1.0);
        return alpha * std::abs(double(fa[i * 4 + c]) - double(fb[i * 4 + c]));
    };
    // The first pass finds the scale: the second draws with it.
    for (size_t i = 0; i < n; ++i) {
        for (int c = 0; c < 3; ++c)
            if (colour_channels & (1u << c)) d.colour_max = std::max(d.colour_max, colour_error(i, c));
        d.alpha_max = std::max(d.alpha_max, std::abs(double(fa[i * 4 + 3]) - double(fb[i * 4 + 3])));
    }
    const double kc = d.colour_max > 0 ? 1 / d.colour_max : 1, ka = d.alpha_max > 0 ? 1 / d.alpha_max : 1;
    auto level = [](double v) { return uint8_t(std::lround(255 * std::clamp(v, 0.0, 1.0))); };
    for (size_t i = 0; i < n; ++i) {
        for (int c = 0; c < 3; ++c)
            d.colour.data[i * 4 + c] = colour_channels & (1u << c) ? level(colour_error(i, c) * kc) : 0;
        d.colour.data[i * 4 + 3] = fa[i * 4 + 3] > 0 ? 255 : 0; // colour under alpha 0 is nobody's to see
        const uint8_t e = level(std::abs(double(fa[i * 4 + 3]) - double(fb[i * 4 + 3])) * ka);
        for (int c = 0; c < 3; ++c) d.alpha.data[i * 4 + c] = e;
        d.alpha.data[i * 4 + 3] = 255;
    }
    return d;
}

} // namespace af::texture
