// Helpers shared by the BC tests: test pictures (RGBA8), whole-surface round trips, PSNR.
#pragma once

#include "assetforge/formats.hpp"
#include "assetforge/picture.hpp"
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

// A test image as an RGBA8 picture.
inline af::Texture load(const std::string& name) {
    return af::to_rgba8(af::read_png_file(std::string(BC_TEST_DATA) + "/" + name));
}

// The picture's bytes read as src_fmt (RGBA8, or RGBA32F for a float picture).
inline std::vector<uint8_t> encode(const af::Texture& img, uint32_t fmt, const af::bc::SurfaceOptions& opt,
                                   bool parallel = false, uint32_t src_fmt = af::FMT_R8G8B8A8_UNORM) {
    FakeHost host;
    make_parallel(host, parallel);
    const uint32_t w = img.desc.width, h = img.desc.height;
    std::vector<uint8_t> out(af::surface_bytes(fmt, w, h));
    af_surface src{src_fmt, w, h, 1, const_cast<uint8_t*>(img.data.data()), img.data.size()};
    af_surface dst{fmt, w, h, 1, out.data(), out.size()};
    af::bc::encode_surface(host, src, dst, opt);
    return out;
}

inline af::Texture decode(const std::vector<uint8_t>& blocks, uint32_t fmt, uint32_t w, uint32_t h,
                          bool parallel = false) {
    FakeHost host;
    make_parallel(host, parallel);
    af::Texture img = af::rgba8_picture(w, h);
    af_surface src{fmt, w, h, 1, const_cast<uint8_t*>(blocks.data()), blocks.size()};
    af_surface dst{af::FMT_R8G8B8A8_UNORM, w, h, 1, img.data.data(), img.data.size()};
    af::bc::decode_surface(host, src, dst);
    return img;
}

inline af::bc::SurfaceOptions level(int l) {
    af::bc::SurfaceOptions o;
    o.block.level = l;
    return o;
}

// PSNR over the listed channels (0=R … 3=A); 99 dB when identical.
inline double psnr(const af::Texture& a, const af::Texture& b, std::initializer_list<int> channels) {
    double se = 0;
    size_t n = 0;
    for (size_t i = 0; i < a.data.size(); i += 4)
        for (int c : channels) {
            double d = double(a.data[i + c]) - b.data[i + c];
            se += d * d;
            ++n;
        }
    if (se == 0) return 99.0;
    return 10 * std::log10(255.0 * 255.0 * n / se);
}

} // namespace bc_test
