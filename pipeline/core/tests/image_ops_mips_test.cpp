// Mip-chain properties every filter must have: constants stay constant,
// averaging is energy-preserving and done in linear light, sizes halve with
// floor, the image is not shifted, threads do not change the result.
#include "core/image_ops.hpp"

#include "assetforge/plugin.hpp"
#include "image_ops_test_support.hpp"

#include <catch2/catch.hpp>
#include <tbb/task_arena.h>

using namespace af;
using namespace af::test;

namespace {

Texture constant8(uint32_t w, uint32_t h, bool srgb, const uint8_t rgba[4]) {
    Texture img = rgba8_picture(w, h, srgb);
    for (size_t t = 0; t < texels(img); ++t)
        for (int c = 0; c < 4; ++c) img.data[t * 4 + c] = rgba[c];
    return img;
}

Texture checker8(uint32_t w, uint32_t h, bool srgb) {
    Texture img = rgba8_picture(w, h, srgb);
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x) {
            uint8_t v = ((x + y) & 1) ? 255 : 0;
            size_t i = (size_t(y) * w + x) * 4;
            img.data[i] = img.data[i + 1] = img.data[i + 2] = v;
            img.data[i + 3] = 255;
        }
    return img;
}

MipOptions mip_options(Filter f, Edge e) {
    MipOptions o;
    o.filter = f;
    o.edge = e;
    return o;
}

} // namespace

TEST_CASE("constant images stay constant at every level, every filter and edge") {
    const uint8_t colour[4] = {200, 90, 31, 170}; // translucent: premultiplied path too
    for (Filter f : kAllFilters)
        for (Edge e : {Edge::Clamp, Edge::Wrap})
            for (bool srgb : {false, true}) {
                INFO("filter " << int(f) << " edge " << int(e) << " srgb " << srgb);
                Texture top = constant8(37, 21, srgb, colour);
                auto mips = generate_mips(top, mip_options(f, e));
                REQUIRE(mips.size() == 6); // 37x21 18x10 9x5 4x2 2x1 1x1
                for (const Texture& m : mips)
                    for (size_t t = 0; t < texels(m); ++t)
                        for (int c = 0; c < 4; ++c) REQUIRE(m.data[t * 4 + c] == colour[c]);

                Texture topf = to_float(top);
                auto mipsf = generate_mips(topf, mip_options(f, e));
                for (const Texture& m : mipsf) {
                    REQUIRE(is_float(m));
                    for (size_t t = 0; t < texels(m); ++t)
                        for (int c = 0; c < 4; ++c)
                            REQUIRE(floats(m)[t * 4 + c] == Approx(colour[c] / 255.0f).margin(2e-6));
                }
            }
}

TEST_CASE("a 1-texel checkerboard averages to grey (linear data)") {
    for (Filter f : kAveragingFilters) {
        INFO("filter " << int(f));
        auto mips = generate_mips(checker8(64, 64, false), mip_options(f, Edge::Wrap));
        for (size_t l = 1; l < mips.size(); ++l)
            for (size_t t = 0; t < texels(mips[l]); ++t) {
                int v = mips[l].data[t * 4];
                REQUIRE((v == 127 || v == 128));
            }
        // Clamped edges: the interior is grey as well.
        auto clamped = generate_mips(checker8(64, 64, false), mip_options(f, Edge::Clamp));
        const Texture& l1 = clamped[1];
        for (uint32_t y = 4; y < 28; ++y)
            for (uint32_t x = 4; x < 28; ++x) {
                int v = l1.data[(size_t(y) * 32 + x) * 4];
                REQUIRE((v == 127 || v == 128));
            }
    }
    // Point sampling keeps one texel of each pair: not grey (documented).
    auto point = generate_mips(checker8(64, 64, false), mip_options(Filter::Point, Edge::Wrap));
    CHECK((point[1].data[0] == 0 || point[1].data[0] == 255));
}

TEST_CASE("sRGB-aware mips of a black/white checker give 188, not 128") {
    for (Filter f : kAveragingFilters) {
        INFO("filter " << int(f));
        auto mips = generate_mips(checker8(16, 16, true), mip_options(f, Edge::Wrap));
        for (size_t l = 1; l < mips.size(); ++l)
            for (size_t t = 0; t < texels(mips[l]); ++t) REQUIRE(mips[l].data[t * 4 + 1] == 188);
    }
    MipOptions raw = mip_options(Filter::Box, Edge::Wrap);
    raw.linear_light = false; // filtering the encoded values: the classic mistake
    auto mips = generate_mips(checker8(16, 16, true), raw);
    CHECK((mips[1].data[0] == 127 || mips[1].data[0] == 128));
    CHECK(is_srgb(mips[1].desc));
}

TEST_CASE("energy (mean, linear light) is preserved within 0.5/255 at every level") {
    Texture wood = read_png_file(data_path("d_dark-wall-wood_crop256.png"));
    REQUIRE(is_srgb(wood.desc));
    for (Filter f : kAveragingFilters) {
        INFO("filter " << int(f));
        auto mips = generate_mips(wood, mip_options(f, Edge::Wrap));
        REQUIRE(mips.size() == 9);
        for (int c = 0; c < 3; ++c) {
            double m0 = mean_linear(mips[0], c);
            for (size_t l = 1; l < mips.size(); ++l) {
                INFO("level " << l << " channel " << c);
                CHECK(std::fabs(mean_linear(mips[l], c) - m0) <= 0.5 / 255.0);
            }
        }
        // Float: no rounding, so the mean holds to float precision.
        Texture wf = convert_srgb_to_linear(to_float(wood));
        auto mf = generate_mips(wf, mip_options(f, Edge::Wrap));
        for (size_t l = 1; l < mf.size(); ++l)
            CHECK(mean_linear(mf[l], 0) == Approx(mean_linear(mf[0], 0)).margin(1e-5));
    }
}

TEST_CASE("odd and NPOT sizes halve with floor down to 1x1") {
    Texture img = rgba8_picture(7, 3);
    auto m = generate_mips(img);
    REQUIRE(m.size() == 3);
    CHECK((m[1].desc.width == 3 && m[1].desc.height == 1));
    CHECK((m[2].desc.width == 1 && m[2].desc.height == 1));

    auto n = generate_mips(rgba8_picture(100, 60));
    const uint32_t expect[][2] = {{100, 60}, {50, 30}, {25, 15}, {12, 7}, {6, 3}, {3, 1}, {1, 1}};
    REQUIRE(n.size() == 7);
    for (size_t l = 0; l < n.size(); ++l) {
        CHECK(n[l].desc.width == expect[l][0]);
        CHECK(n[l].desc.height == expect[l][1]);
    }
}

TEST_CASE("mips do not shift the image") {
    // A bright column in the middle of 7x3 stays centred in 3x1.
    Texture img = rgba32f_picture(7, 3);
    for (size_t t = 0; t < texels(img); ++t) floats(img)[t * 4 + 3] = 1.0f;
    for (uint32_t y = 0; y < 3; ++y) floats(img)[(size_t(y) * 7 + 3) * 4] = 1.0f;
    for (Filter f : kAveragingFilters) {
        auto m = generate_mips(img, mip_options(f, Edge::Clamp));
        CHECK(floats(m[1])[0] == Approx(floats(m[1])[8]).margin(1e-6));
        CHECK(floats(m[1])[4] > floats(m[1])[0]);
    }
    // A linear ramp is reproduced at the output texel centres (x + 0.5)·2 − 0.5.
    Texture ramp = rgba32f_picture(64, 1);
    for (uint32_t x = 0; x < 64; ++x) floats(ramp)[x * 4] = float(x) / 64.0f;
    for (Filter f : {Filter::Box, Filter::Triangle, Filter::Kaiser, Filter::Lanczos3, Filter::Mitchell}) {
        INFO("filter " << int(f));
        Texture half = resize(ramp, 32, 1, ResizeOptions{f, Edge::Clamp, false, false});
        for (uint32_t x = 4; x < 28; ++x) CHECK(floats(half)[x * 4] * 64.0f == Approx(2.0f * x + 0.5f).margin(1e-3));
    }
}

TEST_CASE("level count: full chain, count N, min_size S") {
    Texture img = rgba8_picture(256, 64);
    CHECK(generate_mips(img).size() == 9);
    MipOptions o;
    o.count = 3;
    CHECK(generate_mips(img, o).size() == 3);
    o.count = 100;
    CHECK(generate_mips(img, o).size() == 9);
    o.count = 0;
    o.min_size = 16; // 256 128 64 32 16
    auto m = generate_mips(img, o);
    REQUIRE(m.size() == 5);
    CHECK(m.back().desc.width == 16);
}

TEST_CASE("results do not depend on the number of threads") {
    Texture palm = read_png_file(data_path("a_palm_b.png"));
    MipOptions o;
    o.alpha_coverage_ref = 0.5f;
    std::vector<Texture> one;
    tbb::task_arena single(1);
    single.execute([&] { one = generate_mips(palm, o); });
    auto many = generate_mips(palm, o);
    REQUIRE(one.size() == many.size());
    for (size_t l = 0; l < one.size(); ++l) CHECK(one[l].data == many[l].data);
}

TEST_CASE("float and 8-bit inputs give the same levels within rounding") {
    Texture palm = read_png_file(data_path("a_palm_b.png"));
    auto m8 = generate_mips(palm);
    auto mf = generate_mips(to_float(palm));
    REQUIRE(m8.size() == mf.size());
    for (size_t l = 1; l < m8.size(); ++l) {
        Texture back = to_rgba8(mf[l]);
        for (size_t i = 0; i < back.data.size(); ++i) REQUIRE(std::abs(int(back.data[i]) - int(m8[l].data[i])) <= 1);
    }
}

TEST_CASE("alpha coverage is held within 1% at every level of a real alpha texture") {
    Texture palm = read_png_file(data_path("a_palm_b.png"));
    const float ref = 0.5f;
    const double c0 = alpha_coverage(palm, ref);
    REQUIRE(c0 > 0.3);
    REQUIRE(c0 < 0.8);
    MipOptions o;
    o.alpha_coverage_ref = ref;
    auto kept = generate_mips(palm, o);
    auto plain = generate_mips(palm);
    double worst_plain = 0;
    for (size_t l = 1; l < kept.size(); ++l) {
        INFO("level " << l << " " << kept[l].desc.width << "x" << kept[l].desc.height);
        // Levels of a few texels can only hit multiples of 1/texels.
        double tol = std::max(0.01, 1.0 / double(texels(kept[l])));
        CHECK(std::fabs(alpha_coverage(kept[l], ref) - c0) <= tol);
        if (texels(plain[l]) >= 64) worst_plain = std::max(worst_plain, std::fabs(alpha_coverage(plain[l], ref) - c0));
    }
    // Without the correction coverage does drift on this texture, so the check above is meaningful.
    CHECK(worst_plain > 0.01);
}

TEST_CASE("renormalised normal-map mips have unit length within 1%") {
    Texture n = read_png_file(data_path("n_stk_generic_rock_crop128.png"));
    MipOptions o;
    o.normal_map = true;
    auto m = generate_mips(n, o);
    auto length = [](const Texture& img, size_t t) {
        double s = 0;
        for (int c = 0; c < 3; ++c) {
            double v = img.data[t * 4 + c] / 255.0 * 2.0 - 1.0;
            s += v * v;
        }
        return std::sqrt(s);
    };
    for (size_t l = 1; l < m.size(); ++l)
        for (size_t t = 0; t < texels(m[l]); ++t) REQUIRE(std::fabs(length(m[l], t) - 1.0) <= 0.01);

    // Plain filtering shortens them: the renormalisation is what the test sees.
    MipOptions plain;
    plain.linear_light = false;
    auto p = generate_mips(n, plain);
    double shortest = 1;
    for (size_t t = 0; t < texels(p[1]); ++t) shortest = std::min(shortest, length(p[1], t));
    CHECK(shortest < 0.99);
}

TEST_CASE("two-channel normal maps: Z is reconstructed for filtering, blue stays 0") {
    Texture n = swizzle_channels(read_png_file(data_path("n_stk_generic_rock_crop128.png")), "rg01");
    MipOptions o;
    o.normal_map = true;
    auto m = generate_mips(n, o);
    for (size_t l = 1; l < m.size(); ++l) {
        for (size_t t = 0; t < texels(m[l]); ++t) REQUIRE(m[l].data[t * 4 + 2] == 0);
        Texture full = reconstruct_normal_z(m[l]);
        for (size_t t = 0; t < texels(full); ++t) {
            double s = 0;
            for (int c = 0; c < 3; ++c) {
                double v = full.data[t * 4 + c] / 255.0 * 2.0 - 1.0;
                s += v * v;
            }
            REQUIRE(std::fabs(std::sqrt(s) - 1.0) <= 0.01);
        }
    }
}

TEST_CASE("bad inputs are refused with a clear error") {
    Texture broken = rgba8_picture(16, 16);
    broken.data.resize(100);
    CHECK_THROWS_WITH(generate_mips(broken), Catch::Contains("holds 100 values"));
    CHECK_THROWS_AS(resize(rgba8_picture(4, 4), 0, 4), sdk::Error);
    CHECK_THROWS_WITH(resize(rgba8_picture(4, 4), 65536, 65536), Catch::Contains("exceeds the limit"));
    CHECK_THROWS_AS(generate_mips(Texture{}), sdk::Error);
    CHECK_THROWS_WITH(parse_filter("gauss"), Catch::Contains("kaiser, lanczos3"));
    CHECK(parse_filter("Lanczos") == Filter::Lanczos3);
    CHECK(parse_edge("wrap") == Edge::Wrap);
    CHECK_THROWS_AS(parse_edge("mirror"), sdk::Error);
    MipOptions o;
    o.alpha_coverage_ref = 2.0f;
    CHECK_THROWS_AS(generate_mips(rgba8_picture(4, 4), o), sdk::Error);
}

TEST_CASE("colour is weighted by alpha while filtering, transparent texels keep their colour") {
    // Left half opaque red, right half fully transparent green.
    Texture img = rgba8_picture(16, 4, true);
    for (uint32_t y = 0; y < 4; ++y)
        for (uint32_t x = 0; x < 16; ++x) {
            uint8_t* p = &img.data[(size_t(y) * 16 + x) * 4];
            if (x < 8)
                p[0] = 255, p[3] = 255;
            else
                p[1] = 255, p[3] = 0;
        }
    for (Filter f : kAveragingFilters) {
        INFO("filter " << int(f));
        auto m = generate_mips(img, mip_options(f, Edge::Clamp));
        const Texture& l1 = m[1]; // 8x2: x 0..3 from red, 4..7 from green
        for (uint32_t x = 0; x < 8; ++x) {
            const uint8_t* p = &l1.data[x * 4];
            if (p[3] > 8) { // visible: pure red, never mixed with the hidden green
                CHECK(p[0] == 255);
                CHECK(p[1] == 0);
            } else if (p[3] == 0) { // invisible: the neighbourhood's own colour, not black
                CHECK(p[1] > 200);
            }
        }
        CHECK(l1.data[0 * 4 + 3] == 255);
        CHECK(l1.data[7 * 4 + 3] == 0);
    }
    MipOptions straight = mip_options(Filter::Box, Edge::Clamp);
    straight.premultiply_alpha = false;
    auto s = generate_mips(img, straight);
    CHECK(s[1].data[3 * 4 + 1] == 0); // box keeps the halves apart at x=3...
    MipOptions tri = mip_options(Filter::Triangle, Edge::Clamp);
    tri.premultiply_alpha = false;
    auto t = generate_mips(img, tri);
    CHECK(t[1].data[3 * 4 + 1] > 0); // ...a wider filter without premultiplication bleeds green into red
}
