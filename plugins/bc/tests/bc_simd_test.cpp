// The SSE4.1 and AVX2 copies of the hot kernels must write identical bytes:
// the path is chosen per machine, and outputs (and content hashes of build
// products) may not depend on it.
#include "simd_path.hpp"
#include "test_util.hpp"

#include <catch2/catch.hpp>

#include <random>

using namespace af::bc;
using namespace bc_test;

namespace {

// Blocks that stress the integer ranges: full-range extremes, two colours, noise, gradients.
af::Texture synthetic(uint32_t seed) {
    std::mt19937 rng(seed);
    af::Texture img = af::rgba8_picture(64, 64);
    for (uint32_t y = 0; y < 64; ++y)
        for (uint32_t x = 0; x < 64; ++x) {
            uint8_t* p = &img.data[(y * 64 + x) * 4];
            const uint32_t kind = (y / 4 * 16 + x / 4) % 5;
            for (int c = 0; c < 4; ++c) {
                switch (kind) {
                case 0:
                    p[c] = uint8_t(rng());
                    break; // noise
                case 1:
                    p[c] = ((x + y + c) & 1) ? 255 : 0;
                    break; // extremes
                case 2:
                    p[c] = uint8_t(x * 4 + c * 16 + y);
                    break; // gradient
                case 3:
                    p[c] = uint8_t(((x ^ y) & 2) ? 200 + c : 13 * c);
                    break; // two colours
                default:
                    p[c] = uint8_t(128 + int(rng() % 5) - 2);
                    break; // nearly flat
                }
            }
            if (kind != 1) p[3] = 255;
        }
    return img;
}

struct PathGuard {
    SimdPath saved = simd_path();
    ~PathGuard() { force_simd_path(saved); }
};

} // namespace

TEST_CASE("SSE4.1 and AVX2 kernels write identical bytes") {
    if (!cpu_has_avx2()) {
        WARN("this CPU has no AVX2: only the SSE4.1 path can run here, nothing to compare");
        return;
    }
    PathGuard guard;
    std::vector<af::Texture> images = {load("d_rock_128.png"),
                                       load("d_wallpaper_128.png"),
                                       load("a_palm_128.png"),
                                       load("n_rock_128.png"),
                                       load("g_caustics_128.png"),
                                       synthetic(1),
                                       synthetic(2)};
    const uint32_t formats[] = {af::FMT_BC1_UNORM, af::FMT_BC2_UNORM, af::FMT_BC3_UNORM, af::FMT_BC4_UNORM,
                                af::FMT_BC5_UNORM};
    int compared = 0, expected = 0;
    for (int variant = 0; variant < 4; ++variant)
        for (int lvl : {0, 1, 3, 6, 10}) {
            if (variant != 0 && lvl > 3) continue; // the slow levels once, with default options
            expected += 5 * int(images.size());
            SurfaceOptions o = level(lvl);
            o.block.perceptual = variant == 1;
            o.block.srgb = variant == 2;
            o.block.bc1_punchthrough = variant != 3;
            for (uint32_t fmt : formats)
                for (size_t i = 0; i < images.size(); ++i) {
                    REQUIRE(force_simd_path(SimdPath::sse41));
                    auto a = encode(images[i], fmt, o);
                    REQUIRE(force_simd_path(SimdPath::avx2));
                    auto b = encode(images[i], fmt, o);
                    INFO("format " << fmt << " level " << lvl << " variant " << variant << " image " << i);
                    REQUIRE(a == b);
                    ++compared;
                }
        }
    CHECK(compared == expected);
}

TEST_CASE("The SIMD path can be forced and reports itself") {
    PathGuard guard;
    REQUIRE(force_simd_path(SimdPath::sse41));
    CHECK(simd_path() == SimdPath::sse41);
    CHECK(force_simd_path(SimdPath::avx2) == cpu_has_avx2());
    CHECK(simd_path() == (cpu_has_avx2() ? SimdPath::avx2 : SimdPath::sse41));
}
