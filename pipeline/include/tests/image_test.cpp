// The SDK's Image: the host's byte ⇄ float rules (plugins that make levels
// rely on rounding as the host does), moves to and from Pixels<T> that keep
// the buffer, the surface view ABI calls take, and resample keeping the type.
#include "assetforge/image.hpp"
#include "assetforge/resample_image.hpp"
#include "assetforge/testing/fake_host.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

using af::sdk::testing::FakeHost;
namespace sdk = af::sdk;

TEST_CASE("image: to_rgba8 clamps, maps NaN to 0 and rounds half away from zero, to_float divides by 255") {
    sdk::Image f = sdk::Image::makef(2, 1, true);
    f.rgba32f = {
        0.5f, 127.49f / 255.0f, std::numeric_limits<float>::quiet_NaN(), -0.25f, 1.75f, 1.0f / 255.0f, 254.6f / 255.0f,
        0.0f};
    const sdk::Image b = sdk::to_rgba8(f);
    CHECK_FALSE(b.is_float());
    CHECK(b.srgb);
    CHECK(b.rgba8 == std::vector<uint8_t>{128, 127, 0, 0, 255, 1, 255, 0});
    CHECK(b.rgba32f.empty());

    const sdk::Image back = sdk::to_float(b);
    REQUIRE(back.is_float());
    CHECK(back.srgb);
    for (size_t i = 0; i < back.rgba32f.size(); ++i) CHECK(back.rgba32f[i] == b.rgba8[i] * (1.0f / 255.0f));
    CHECK(sdk::to_float(back).rgba32f == back.rgba32f); // already float: unchanged
}

TEST_CASE("image: image_of moves typed pixels in, rgba8_pixels and rgba32f_pixels convert only across types") {
    sdk::Rgba8 px(2, 2, true);
    px.data[5] = 200;
    const uint8_t* buffer = px.data.data();
    const sdk::Image img = sdk::image_of(std::move(px));
    CHECK(img.width == 2);
    CHECK(img.height == 2);
    CHECK(img.srgb);
    CHECK_FALSE(img.is_float());
    CHECK(img.rgba8.data() == buffer); // moved, not copied
    CHECK(img.rgba8[5] == 200);

    const sdk::Rgba32f as_float = sdk::rgba32f_pixels(img);
    CHECK(as_float.srgb);
    CHECK(as_float.data[5] == 200 * (1.0f / 255.0f));
    const sdk::Rgba8 again = sdk::rgba8_pixels(sdk::image_of(sdk::Rgba32f(as_float)));
    CHECK(again.data == img.rgba8);

    sdk::Rgba32f hdr(1, 1);
    hdr.data = {2.0f, 0.25f, -1.0f, 1.0f};
    const sdk::Image kept = sdk::image_of(std::move(hdr));
    CHECK(kept.is_float());
    CHECK(sdk::rgba32f_pixels(kept).data == std::vector<float>{2.0f, 0.25f, -1.0f, 1.0f}); // no clamping
}

TEST_CASE("image: the surface view names the format and covers the whole buffer") {
    const sdk::Image b = sdk::Image::make8(3, 2, true);
    af_surface s = b.surface();
    CHECK(s.format == af::FMT_R8G8B8A8_UNORM_SRGB);
    CHECK(s.width == 3);
    CHECK(s.height == 2);
    CHECK(s.depth == 1);
    CHECK(s.data == b.rgba8.data());
    CHECK(s.size == 24);
    CHECK(sdk::Image::make8(1, 1).surface().format == af::FMT_R8G8B8A8_UNORM);
    const sdk::Image f = sdk::Image::makef(3, 2, true);
    s = f.surface();
    CHECK(s.format == af::FMT_R32G32B32A32_FLOAT);
    CHECK(s.data == reinterpret_cast<const uint8_t*>(f.rgba32f.data()));
    CHECK(s.size == 24 * sizeof(float));
}

TEST_CASE("image: resample hands the host both surfaces and keeps the pixel type and sRGB tag") {
    FakeHost host;
    host.on_resample = [](const af_surface* s, af_surface* d, const af_resample_options*, af_error*) {
        if (s->format != d->format) return AF_ERR_INTERNAL;
        std::fill(d->data, d->data + d->size, uint8_t(7));
        return AF_OK;
    };
    const sdk::Image b = sdk::resample(host, sdk::Image::make8(4, 4, true), 2, 1);
    CHECK_FALSE(b.is_float());
    CHECK(b.srgb);
    CHECK(b.width == 2);
    CHECK(b.height == 1);
    CHECK(b.rgba8 == std::vector<uint8_t>(8, 7));
    const sdk::Image f = sdk::resample(host, sdk::Image::makef(4, 4), 1, 1);
    CHECK(f.is_float());
    CHECK(f.rgba32f.size() == 4);
    CHECK(f.rgba8.empty());
}

TEST_CASE("image: filtered_to_unorm8 truncates v*255+0.5 (not to_rgba8's rounding), has_translucency sees any alpha "
          "below one") {
    CHECK(sdk::filtered_to_unorm8(std::numeric_limits<float>::quiet_NaN()) == 0);
    CHECK(sdk::filtered_to_unorm8(-1.0f) == 0);
    CHECK(sdk::filtered_to_unorm8(2.0f) == 255);
    CHECK(sdk::filtered_to_unorm8(1.0f) == 255);
    CHECK(sdk::filtered_to_unorm8(0.5f) == 128);
    CHECK(sdk::filtered_to_unorm8(127.49f / 255.0f) == 127);
    CHECK(sdk::filtered_to_unorm8(127.5f / 255.0f) == 128);

    sdk::Image b = sdk::Image::make8(2, 1);
    std::fill(b.rgba8.begin(), b.rgba8.end(), uint8_t(255));
    CHECK_FALSE(sdk::has_translucency(b));
    b.rgba8[7] = 254;
    CHECK(sdk::has_translucency(b));
    b.rgba8[7] = 255;
    b.rgba8[2] = 0; // colour, not alpha
    CHECK_FALSE(sdk::has_translucency(b));

    sdk::Image f = sdk::Image::makef(2, 1);
    std::fill(f.rgba32f.begin(), f.rgba32f.end(), 1.0f);
    CHECK_FALSE(sdk::has_translucency(f));
    f.rgba32f[3] = 0.999f;
    CHECK(sdk::has_translucency(f));
}
