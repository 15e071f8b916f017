#include "page_images.hpp"

#include "assetforge/plugin.hpp"
#include "assetforge/write_texture.hpp"

#include <algorithm>

namespace af::vtpages {

namespace {
// The RGBA8 texel (x, y) of a picture.
uint8_t* texel(Texture& img, uint32_t x, uint32_t y) { return img.data.data() + (size_t(y) * img.desc.width + x) * 4; }
} // namespace

void size_colour(double t, uint8_t rgb[3]) {
    t = std::clamp(t, 0.0, 1.0);
    static constexpr uint8_t stops[5][3] = {{40, 60, 255}, {0, 220, 255}, {40, 230, 40}, {255, 230, 0}, {255, 30, 30}};
    const double s = t * 4.0;
    const int i = std::min(3, int(s));
    const double f = s - i;
    for (int c = 0; c < 3; ++c) rgb[c] = uint8_t(stops[i][c] + (stops[i + 1][c] - stops[i][c]) * f + 0.5);
}

OccupancyMap occupancy_map(const PagesFile& f, int level) {
    if (level < 0 || level >= f.levels())
        sdk::usage(sdk::format("level %d: the file has levels 0..%d", level, f.levels() - 1));
    OccupancyMap m;
    m.grid = f.across() >> level;
    m.cell = std::max(1u, 256u / m.grid);
    std::vector<uint32_t> used(size_t(m.grid) * m.grid, 0);
    walk_tree(f, [&](const WalkStep& s) {
        if (s.page.node.level != level) return;
        used[size_t(s.page.node.y) * m.grid + s.page.node.x] = uint32_t(s.page.used());
        ++m.present;
    });
    m.min_used = UINT64_MAX;
    for (uint32_t u : used)
        if (u) m.min_used = std::min<uint64_t>(m.min_used, u), m.max_used = std::max<uint64_t>(m.max_used, u);
    if (!m.present) m.min_used = 0;
    const uint32_t side = m.grid * m.cell, bar = std::max(8u, side / 32);
    m.image = rgba8_picture(side, side + bar);
    auto put = [&](uint32_t x, uint32_t y, const uint8_t* rgb) {
        uint8_t* p = texel(m.image, x, y);
        p[0] = rgb[0], p[1] = rgb[1], p[2] = rgb[2], p[3] = 255;
    };
    const double span = double(m.max_used - m.min_used);
    for (uint32_t gy = 0; gy < m.grid; ++gy)
        for (uint32_t gx = 0; gx < m.grid; ++gx) {
            uint8_t rgb[3] = {0, 0, 0};
            if (uint32_t u = used[size_t(gy) * m.grid + gx]) size_colour(span > 0 ? (u - m.min_used) / span : 0.5, rgb);
            for (uint32_t y = 0; y < m.cell; ++y)
                for (uint32_t x = 0; x < m.cell; ++x) put(gx * m.cell + x, gy * m.cell + y, rgb);
        }
    // Legend: a colour bar from the smallest (left) to the largest (right) page, under a 2-pixel gap.
    for (uint32_t y = side + 2; y < side + bar; ++y)
        for (uint32_t x = 0; x < side; ++x) {
            uint8_t rgb[3];
            size_colour(side > 1 ? double(x) / (side - 1) : 0.0, rgb);
            put(x, y, rgb);
        }
    for (uint32_t y = side; y < side + 2; ++y)
        for (uint32_t x = 0; x < side; ++x) texel(m.image, x, y)[3] = 255;
    return m;
}

bool cover_bit(std::span<const uint8_t> mask, uint32_t x, uint32_t y, BitOrder order) {
    const uint8_t byte = mask[size_t(y) * 16 + x / 8];
    const int bit = order == BitOrder::LsbFirst ? int(x & 7) : 7 - int(x & 7);
    return (byte >> bit) & 1;
}

std::vector<uint8_t> cover_png(const af_host* host, std::span<const uint8_t> mask, BitOrder order) {
    if (mask.size() != kCoverMaskSize) sdk::invalid(0, "a cover mask has 2048 bytes");
    Texture img = rgba8_picture(128, 128);
    for (uint32_t y = 0; y < 128; ++y)
        for (uint32_t x = 0; x < 128; ++x) {
            uint8_t* p = texel(img, x, y);
            p[0] = p[1] = p[2] = cover_bit(mask, x, y, order) ? 255 : 0;
            p[3] = 255;
        }
    sdk::OptionList o;
    o.set("channels", "grey");
    o.set("bit_depth", "1");
    const af_options ov = o.view();
    return sdk::encode_texture(host, "png", img, &ov);
}

std::vector<uint8_t> png_of(const af_host* host, const Texture& image) {
    return sdk::encode_texture(host, "png", image);
}

} // namespace af::vtpages
