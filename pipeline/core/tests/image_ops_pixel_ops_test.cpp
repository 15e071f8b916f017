// resize, crop, channel operations, premultiplication, colour space and
// quantisation.
#include "core/image_ops.hpp"

#include "assetforge/plugin.hpp"
#include "image_ops_test_support.hpp"

#include <algorithm>
#include <catch2/catch.hpp>

using namespace af;
using namespace af::test;

namespace {

Texture texel8(uint8_t r, uint8_t g, uint8_t b, uint8_t a, bool srgb = false) {
    Texture img = rgba8_picture(1, 1, srgb);
    img.data = {r, g, b, a};
    return img;
}

} // namespace

TEST_CASE("resize to any size keeps type, tag, and constants") {
    Texture img = rgba8_picture(10, 6, true);
    for (size_t t = 0; t < texels(img); ++t) img.data[t * 4 + 0] = 77, img.data[t * 4 + 3] = 255;
    for (Filter f : kAllFilters) {
        for (auto [w, h] : {std::pair{23u, 17u}, std::pair{3u, 5u}, std::pair{10u, 1u}}) {
            Texture r = resize(img, w, h, ResizeOptions{f, Edge::Clamp, true, true});
            REQUIRE((r.desc.width == w && r.desc.height == h && is_srgb(r.desc) && !is_float(r)));
            for (size_t t = 0; t < texels(r); ++t) REQUIRE(r.data[t * 4] == 77);
        }
    }
}

TEST_CASE("crop copies a rectangle and refuses one outside the image") {
    Texture img = rgba8_picture(5, 4);
    for (size_t i = 0; i < img.data.size(); ++i) img.data[i] = uint8_t(i);
    Texture c = crop(img, 1, 2, 3, 2);
    REQUIRE((c.desc.width == 3 && c.desc.height == 2));
    CHECK(c.data[0] == img.data[(2 * 5 + 1) * 4]);
    CHECK(c.data[(1 * 3 + 2) * 4 + 3] == img.data[(3 * 5 + 3) * 4 + 3]);
    CHECK_THROWS_WITH(crop(img, 3, 0, 3, 1), Catch::Contains("exceeds"));
    CHECK_THROWS_AS(crop(img, 0, 0, 0, 1), sdk::Error);
}

TEST_CASE("swizzle, fill and invert channels") {
    Texture px = texel8(10, 20, 30, 40);
    CHECK(swizzle_channels(px, "bgra").data == std::vector<uint8_t>{30, 20, 10, 40});
    CHECK(swizzle_channels(px, "RRR1").data == std::vector<uint8_t>{10, 10, 10, 255});
    CHECK(swizzle_channels(px, "a0g1").data == std::vector<uint8_t>{40, 0, 20, 255});
    CHECK_THROWS_WITH(swizzle_channels(px, "bgr"), Catch::Contains("four characters"));
    CHECK_THROWS_WITH(swizzle_channels(px, "bgrx"), Catch::Contains("'x'"));
    CHECK(fill_channels(px, "a", 1.0f).data == std::vector<uint8_t>{10, 20, 30, 255});
    CHECK(fill_channels(px, "rb", 0.5f).data == std::vector<uint8_t>{128, 20, 128, 40});
    CHECK(invert_normal_y(px).data == std::vector<uint8_t>{10, 235, 30, 40});
    CHECK(invert_channels(px, "rgb").data == std::vector<uint8_t>{245, 235, 225, 40});
    CHECK_THROWS_AS(fill_channels(px, "q", 0), sdk::Error);
    Texture f = to_float(px);
    CHECK(floats(swizzle_channels(f, "bgra"))[0] == Approx(30 / 255.0f));
    CHECK(floats(invert_normal_y(f))[1] == Approx(1.0f - 20 / 255.0f));
}

TEST_CASE("premultiply and unpremultiply (linear light for sRGB)") {
    Texture lin = texel8(200, 100, 50, 128);
    Texture pm = premultiply_alpha(lin);
    CHECK(pm.data == std::vector<uint8_t>{100, 50, 25, 128});
    Texture back = unpremultiply_alpha(pm);
    for (int c = 0; c < 3; ++c) CHECK(std::abs(int(back.data[c]) - int(lin.data[c])) <= 1);
    // sRGB white at half alpha: 0.5 linear is 188 encoded.
    CHECK(premultiply_alpha(texel8(255, 255, 255, 128, true)).data[0] == 188);
    CHECK(unpremultiply_alpha(texel8(9, 9, 9, 0)).data[0] == 0);
}

TEST_CASE("sRGB <-> linear conversion of images") {
    Texture s = texel8(188, 0, 255, 77, true);
    Texture l = convert_srgb_to_linear(to_float(s));
    CHECK_FALSE(is_srgb(l.desc));
    CHECK(floats(l)[0] == Approx(0.5).margin(0.003));
    CHECK(floats(l)[3] == Approx(77 / 255.0f));
    Texture again = to_rgba8(convert_linear_to_srgb(l));
    CHECK(is_srgb(again.desc));
    CHECK(again.data == s.data);
    CHECK(convert_srgb_to_linear(s).data[0] == 128); // 8-bit linear output
    CHECK(convert_linear_to_srgb(s).data == s.data); // already sRGB
    // Every 8-bit code survives the float round trip.
    Texture ramp = rgba8_picture(256, 1, true);
    for (int i = 0; i < 256; ++i) ramp.data[i * 4] = uint8_t(i);
    CHECK(convert_linear_to_srgb(convert_srgb_to_linear(ramp)).data[255 * 4] == 255);
    CHECK(to_rgba8(convert_linear_to_srgb(convert_srgb_to_linear(to_float(ramp)))).data == ramp.data);
}

TEST_CASE("float to 8-bit: rounding and dithering keep the mean") {
    Texture f = rgba32f_picture(64, 64);
    const float v = 100.25f / 255.0f;
    for (size_t t = 0; t < texels(f); ++t) floats(f)[t * 4] = v, floats(f)[t * 4 + 3] = 0.7f;
    Texture none = quantize_to_rgba8(f, Dither::None);
    CHECK(none.data == to_rgba8(f).data);
    CHECK(none.data[0] == 100);
    for (Dither d : {Dither::Ordered, Dither::FloydSteinberg}) {
        INFO("dither " << int(d));
        Texture q = quantize_to_rgba8(f, d);
        double mean = 0;
        bool alpha_exact = true;
        for (size_t t = 0; t < texels(q); ++t) {
            mean += q.data[t * 4];
            alpha_exact = alpha_exact && q.data[t * 4 + 3] == 179;
        }
        mean /= double(texels(q));
        CHECK(mean == Approx(100.25).margin(0.02));
        CHECK(alpha_exact);
    }
    Texture nan = rgba32f_picture(1, 1);
    std::ranges::copy(std::vector<float>{std::nanf(""), 2.0f, -1.0f, 0.5f}, floats(nan).begin());
    CHECK(quantize_to_rgba8(nan, Dither::FloydSteinberg).data == std::vector<uint8_t>{0, 255, 0, 128});
}

TEST_CASE("normal-map helpers") {
    // (0.6, 0.8, 0) unnormalised by 2: stored (0.65, 0.7, 0.5).
    Texture f = rgba32f_picture(1, 1);
    std::ranges::copy(std::vector<float>{0.65f, 0.7f, 0.5f, 1.0f}, floats(f).begin());
    Texture n = renormalize_normals(f);
    CHECK(floats(n)[0] == Approx(0.8f));
    CHECK(floats(n)[1] == Approx(0.9f));
    CHECK(floats(n)[2] == Approx(0.5f));
    Texture two = rgba32f_picture(1, 1);
    std::ranges::copy(std::vector<float>{0.5f, 0.5f, 0.0f, 1.0f}, floats(two).begin());
    CHECK(floats(reconstruct_normal_z(two))[2] == Approx(1.0f));
}

TEST_CASE("alpha coverage of an image and scaling to a target") {
    Texture img = rgba8_picture(10, 1);
    for (int i = 0; i < 10; ++i) img.data[i * 4 + 3] = uint8_t(i * 20); // 0..180
    CHECK(alpha_coverage(img, 0.5f) == Approx(0.3));                    // 140 160 180
    Texture scaled = scale_alpha_to_coverage(img, 0.6, 0.5f);
    CHECK(alpha_coverage(scaled, 0.5f) == Approx(0.6));
    CHECK_THROWS_AS(alpha_coverage(img, -0.5f), sdk::Error);
}
