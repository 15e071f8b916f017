#include "texture/preview.hpp"

#include "core/image_ops.hpp"
#include "core/png_io.hpp"

#include <algorithm>
#include <cstring>

namespace af::texture {
namespace {

// 8-bit for a PNG to show: float pictures (HDR, signed, 16-bit sources) clamped to 0..1.
struct Shown {
    Texture copy;
    const Texture& img;
    explicit Shown(const Texture& in) : copy(is_float(in) ? to_rgba8(in) : Texture{}), img(is_float(in) ? copy : in) {}
};

Texture box_mean(const Texture& in, uint32_t k) {
    const uint32_t width = in.desc.width, height = in.desc.height;
    const uint32_t bw = std::max(1u, width / k), bh = std::max(1u, height / k);
    Texture box = rgba8_picture(bw, bh, is_srgb(in.desc));
    for (uint32_t y = 0; y < bh; ++y)
        for (uint32_t x = 0; x < bw; ++x) {
            uint32_t sum[4] = {0, 0, 0, 0}, n = 0;
            for (uint32_t sy = y * k; sy < std::min(height, (y + 1) * k); ++sy)
                for (uint32_t sx = x * k; sx < std::min(width, (x + 1) * k); ++sx, ++n) {
                    const uint8_t* p = &in.data[(size_t(sy) * width + sx) * 4];
                    for (int c = 0; c < 4; ++c) sum[c] += p[c];
                }
            for (int c = 0; c < 4; ++c) box.data[(size_t(y) * bw + x) * 4 + c] = uint8_t((sum[c] + n / 2) / n);
        }
    return box;
}

} // namespace

Texture thumbnail(const Texture& shown, uint32_t side) {
    const Shown s(shown);
    const Texture& in = s.img;
    const uint32_t m = std::max(in.desc.width, in.desc.height);
    const uint32_t k = std::max(1u, m / side);
    Texture box = box_mean(in, k);
    const uint32_t bw = box.desc.width, bh = box.desc.height, bm = std::max(bw, bh);
    if (bm <= side) return box;
    const uint32_t w = std::max(1u, bw * side / bm), h = std::max(1u, bh * side / bm);
    Texture out = rgba8_picture(w, h, is_srgb(in.desc));
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x)
            std::memcpy(&out.data[(size_t(y) * w + x) * 4], &box.data[(size_t(y * bh / h) * bw + x * bw / w) * 4], 4);
    return out;
}

std::vector<uint8_t> preview_png(const Texture& img) {
    PngWriteOptions o;
    o.compression = 0;
    o.filter = PngFilter::None;
    return encode_png(Shown(img).img, o);
}

} // namespace af::texture
