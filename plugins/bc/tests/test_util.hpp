// Helpers shared by the BC tests: test images, whole-surface round trips, PSNR.
#pragma once

#include "assetforge/formats.hpp"
#include "assetforge/testing/fake_host.hpp"
#include "bc_surface.hpp"
#include "core/png_io.hpp"

#include <cmath>
#include <string>
#include <vector>

namespace bc_test {

using af::sdk::testing::FakeHost;

// Parallel runs use several threads, so determinism across thread counts is
// tested with real concurrency.
inline void make_parallel(FakeHost& host, bool parallel) { host.set_threads(parallel ? 8 : 0); }

struct Texture {
    uint32_t w = 0, h = 0;
    std::vector<uint8_t> px;
};

inline Texture load(const std::string& name) {
    af::Texture im = af::read_png_file(std::string(BC_TEST_DATA) + "/" + name);
    if (im.is_float()) im = af::to_rgba8(im);
    return {im.width, im.height, im.data};
}

inline std::vector<uint8_t> encode(const Texture& img, uint32_t fmt, const af::bc::SurfaceOptions& opt,
                                   bool parallel = false, uint32_t src_fmt = af::FMT_R8G8B8A8_UNORM) {
    FakeHost host;
    make_parallel(host, parallel);
    std::vector<uint8_t> out(af::surface_bytes(fmt, img.w, img.h));
    af_surface src{src_fmt, img.w, img.h, 1, const_cast<uint8_t*>(img.px.data()), img.px.size()};
    af_surface dst{fmt, img.w, img.h, 1, out.data(), out.size()};
    af::bc::encode_surface(host, src, dst, opt);
    return out;
}

inline Texture decode(const std::vector<uint8_t>& blocks, uint32_t fmt, uint32_t w, uint32_t h, bool parallel = false) {
    FakeHost host;
    make_parallel(host, parallel);
    Texture img{w, h, std::vector<uint8_t>(size_t(w) * h * 4)};
    af_surface src{fmt, w, h, 1, const_cast<uint8_t*>(blocks.data()), blocks.size()};
    af_surface dst{af::FMT_R8G8B8A8_UNORM, w, h, 1, img.px.data(), img.px.size()};
    af::bc::decode_surface(host, src, dst);
    return img;
}

inline af::bc::SurfaceOptions level(int l) {
    af::bc::SurfaceOptions o;
    o.block.level = l;
    return o;
}

// PSNR over the listed channels (0=R … 3=A); 99 dB when identical.
inline double psnr(const Texture& a, const Texture& b, std::initializer_list<int> channels) {
    double se = 0;
    size_t n = 0;
    for (size_t i = 0; i < a.px.size(); i += 4)
        for (int c : channels) {
            double d = double(a.px[i + c]) - b.px[i + c];
            se += d * d;
            ++n;
        }
    if (se == 0) return 99.0;
    return 10 * std::log10(255.0 * 255.0 * n / se);
}

} // namespace bc_test
