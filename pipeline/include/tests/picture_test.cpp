// The SDK's Image: the host's byte ⇄ float rules (plugins that make levels
// rely on rounding as the host does), moves to and from Pixels<T> that keep
// the buffer, the surface view ABI calls take, and resample keeping the type.
#include "assetforge/picture.hpp"
#include "assetforge/resample.hpp"
#include "assetforge/testing/fake_host.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

using af::sdk::testing::FakeHost;
namespace sdk = af::sdk;

TEST_CASE("image: to_rgba8 clamps, maps NaN to 0 and rounds half away from zero, to_float divides by 255") {
    Texture f = sdk::rgba32f_picture(2, 1, true);
    floats(f) = {
        0.5f, 127.49f / 255.0f, std::numeric_limits<float>::quiet_NaN(), -0.25f, 1.75f, 1.0f / 255.0f, 254.6f / 255.0f,
        0.0f};
    const Texture b = to_rgba8(f);
    CHECK_FALSE(b.is_float());
    CHECK(b.srgb);
    CHECK(b.data == std::vector<uint8_t>{128, 127, 0, 0, 255, 1, 255, 0});
    CHECK(floats(b).empty());

    const Texture back = to_float(b);
    REQUIRE(back.is_float());
    CHECK(back.srgb);
    for (size_t i = 0; i < floats(back).size(); ++i) CHECK(floats(back)[i] == b.data[i] * (1.0f / 255.0f));
    CHECK(to_float(back).rgba32f == floats(back)); // already float: unchanged
}

TEST_CASE("image: image_of moves typed pixels in, rgba8_pixels and rgba32f_pixels convert only across types") {
    Texture px(2, 2, true);
    px.data[5] = 200;
    const uint8_t* buffer = px.data.data();
    const Texture img = sdk::image_of(std::move(px));
    CHECK(img.width == 2);
    CHECK(img.height == 2);
    CHECK(img.srgb);
    CHECK_FALSE(img.is_float());
    CHECK(img.data.data() == buffer); // moved, not copied
    CHECK(img.data[5] == 200);

    const Texture as_float = to_float(img);
    CHECK(as_float.srgb);
    CHECK(as_float.data[5] == 200 * (1.0f / 255.0f));
    const Texture again = to_rgba8(sdk::image_of(Texture(as_float)));
    CHECK(again.data == img.data);

    Texture hdr(1, 1);
    hdr.data = {2.0f, 0.25f, -1.0f, 1.0f};
    const Texture kept = sdk::image_of(std::move(hdr));
    CHECK(kept.is_float());
    CHECK(to_float(kept).data == std::vector<float>{2.0f, 0.25f, -1.0f, 1.0f}); // no clamping
}

TEST_CASE("image: the surface view names the format and covers the whole buffer") {
    const Texture b = sdk::rgba8_picture(3, 2, true);
    af_surface s = b.surface();
    CHECK(s.format == af::FMT_R8G8B8A8_UNORM_SRGB);
    CHECK(s.width == 3);
    CHECK(s.height == 2);
    CHECK(s.depth == 1);
    CHECK(s.data == b.data.data());
    CHECK(s.size == 24);
    CHECK(sdk::rgba8_picture(1, 1).surface().format == af::FMT_R8G8B8A8_UNORM);
    const Texture f = sdk::rgba32f_picture(3, 2, true);
    s = f.surface();
    CHECK(s.format == af::FMT_R32G32B32A32_FLOAT);
    CHECK(s.data == reinterpret_cast<const uint8_t*>(floats(f).data()));
    CHECK(s.size == 24 * sizeof(float));
}

TEST_CASE("image: resample hands the host both surfaces and keeps the pixel type and sRGB tag") {
    FakeHost host;
    host.on_resample = [](const af_surface* s, af_surface* d, const af_resample_options*, af_error*) {
        if (s->format != d->format) return AF_ERR_INTERNAL;
        std::fill(d->data, d->data + d->size, uint8_t(7));
        return AF_OK;
    };
    const Texture b = sdk::resample(host, sdk::rgba8_picture(4, 4, true), 2, 1);
    CHECK_FALSE(b.is_float());
    CHECK(b.srgb);
    CHECK(b.width == 2);
    CHECK(b.height == 1);
    CHECK(b.data == std::vector<uint8_t>(8, 7));
    const Texture f = sdk::resample(host, sdk::rgba32f_picture(4, 4), 1, 1);
    CHECK(f.is_float());
    CHECK(floats(f).size() == 4);
    CHECK(f.data.empty());
}

TEST_CASE("image: filtered_to_unorm8 truncates v*255+0.5 (not to_rgba8's rounding), has_translucency sees any alpha "
          "below one") {
    CHECK(filtered_to_unorm8(std::numeric_limits<float>::quiet_NaN()) == 0);
    CHECK(filtered_to_unorm8(-1.0f) == 0);
    CHECK(filtered_to_unorm8(2.0f) == 255);
    CHECK(filtered_to_unorm8(1.0f) == 255);
    CHECK(filtered_to_unorm8(0.5f) == 128);
    CHECK(filtered_to_unorm8(127.49f / 255.0f) == 127);
    CHECK(filtered_to_unorm8(127.5f / 255.0f) == 128);

    Texture b = sdk::rgba8_picture(2, 1);
    std::fill(b.data.begin(), b.data.end(), uint8_t(255));
    CHECK_FALSE(has_translucency(b));
    b.data[7] = 254;
    CHECK(has_translucency(b));
    b.data[7] = 255;
    b.data[2] = 0; // colour, not alpha
    CHECK_FALSE(has_translucency(b));

    Texture f = sdk::rgba32f_picture(2, 1);
    std::fill(floats(f).begin(), floats(f).end(), 1.0f);
    CHECK_FALSE(has_translucency(f));
    floats(f)[3] = 0.999f;
    CHECK(has_translucency(f));
}
