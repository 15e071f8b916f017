// Whole-surface helpers for the BPTC tests: block loops with edge padding
// (the plugin's real loops live in the bc plugin), PSNR, test image loading.
#pragma once

#include "assetforge/picture.hpp"
#include "bptc.hpp"
#include "core/png_io.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace af::bc::test {

// Test data sits next to this header, so the tests work from any build directory.
inline std::filesystem::path test_data_dir() { return std::filesystem::path(BC_TEST_DATA) / "bptc"; }

inline af::Texture load_test_image(const std::string& name) {
    return af::to_rgba8(af::read_png_file(test_data_dir() / name));
}

// 16 texels of block (bx, by); texels past the edge repeat the last row/column.
inline void gather_rgba8(const uint8_t* img, int w, int h, int bx, int by, uint8_t out[64]) {
    for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 4; ++x) {
            const int ix = std::min(bx * 4 + x, w - 1), iy = std::min(by * 4 + y, h - 1);
            memcpy(out + 4 * (4 * y + x), img + 4 * (size_t(iy) * w + ix), 4);
        }
}

inline std::vector<uint8_t> encode_bc7_surface(const uint8_t* rgba, int w, int h, const Bc7Options& opt) {
    const int bw = (w + 3) / 4, bh = (h + 3) / 4;
    std::vector<uint8_t> blocks(size_t(bw) * bh * 16);
    for (int by = 0; by < bh; ++by)
        for (int bx = 0; bx < bw; ++bx) {
            uint8_t px[64];
            gather_rgba8(rgba, w, h, bx, by, px);
            encode_bc7_block(px, &blocks[16 * (size_t(by) * bw + bx)], opt);
        }
    return blocks;
}

inline std::vector<uint8_t> decode_bc7_surface(const std::vector<uint8_t>& blocks, int w, int h) {
    const int bw = (w + 3) / 4, bh = (h + 3) / 4;
    std::vector<uint8_t> img(size_t(w) * h * 4);
    for (int by = 0; by < bh; ++by)
        for (int bx = 0; bx < bw; ++bx) {
            uint8_t px[64];
            decode_bc7_block(&blocks[16 * (size_t(by) * bw + bx)], px);
            for (int y = 0; y < 4; ++y)
                for (int x = 0; x < 4; ++x) {
                    const int ix = bx * 4 + x, iy = by * 4 + y;
                    if (ix < w && iy < h) memcpy(&img[4 * (size_t(iy) * w + ix)], px + 4 * (4 * y + x), 4);
                }
        }
    return img;
}

// PSNR over the channels [c0, c1) of two RGBA8 images (99 when identical).
inline double psnr_rgba8(const std::vector<uint8_t>& a, const uint8_t* b, int c0, int c1) {
    double se = 0;
    size_t n = 0;
    for (size_t i = 0; i < a.size(); i += 4)
        for (int c = c0; c < c1; ++c, ++n) {
            const double d = double(a[i + c]) - double(b[i + c]);
            se += d * d;
        }
    return se == 0 ? 99.0 : 10.0 * std::log10(255.0 * 255.0 * double(n) / se);
}

} // namespace af::bc::test
