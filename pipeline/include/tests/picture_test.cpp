// Pictures (picture.hpp): the host's byte ⇄ float rules (plugins that make
// levels rely on rounding as the host does), the colour space a picture
// carries through them, the surface view ABI calls take, and resample
// keeping the pixel type.
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

TEST_CASE("picture: to_rgba8 clamps, maps NaN to 0 and rounds half away from zero, to_float divides by 255") {
    af::Texture f = af::rgba32f_picture(2, 1, true);
    const std::vector<float> values = {
        0.5f, 127.49f / 255.0f, std::numeric_limits<float>::quiet_NaN(), -0.25f, 1.75f, 1.0f / 255.0f, 254.6f / 255.0f,
        0.0f};
    REQUIRE(af::floats(f).size() == values.size());
    std::copy(values.begin(), values.end(), af::floats(f).begin());
    const af::Texture b = af::to_rgba8(f);
    CHECK_FALSE(af::is_float(b));
    CHECK(af::is_srgb(b.desc));
    CHECK(b.desc.format == af::FMT_R8G8B8A8_UNORM_SRGB);
    CHECK(b.data == std::vector<uint8_t>{128, 127, 0, 0, 255, 1, 255, 0});
    CHECK(af::floats(b).empty());

    const af::Texture back = af::to_float(b);
    REQUIRE(af::is_float(back));
    CHECK(af::is_srgb(back.desc));
    CHECK(back.desc.format == af::FMT_R32G32B32A32_FLOAT);
    for (size_t i = 0; i < af::floats(back).size(); ++i) CHECK(af::floats(back)[i] == b.data[i] * (1.0f / 255.0f));
    CHECK(af::to_float(back).data == back.data); // already float: unchanged
}

TEST_CASE("picture: to_float and to_rgba8 convert only across types, set_srgb relabels without touching values") {
    af::Texture px = af::rgba8_picture(2, 2, true);
    CHECK(af::is_picture(px));
    CHECK(af::texels(px) == 4);
    CHECK(px.data.size() == 16);
    px.data[5] = 200;
    CHECK(af::to_rgba8(px).data == px.data); // already RGBA8: unchanged

    const af::Texture as_float = af::to_float(px);
    CHECK(af::is_srgb(as_float.desc));
    CHECK(af::floats(as_float)[5] == 200 * (1.0f / 255.0f));
    const af::Texture again = af::to_rgba8(as_float);
    CHECK(again.data == px.data);
    CHECK(again.desc == px.desc);

    af::Texture hdr = af::rgba32f_picture(1, 1);
    const std::vector<float> values = {2.0f, 0.25f, -1.0f, 1.0f};
    std::copy(values.begin(), values.end(), af::floats(hdr).begin());
    const af::Texture kept = af::to_float(hdr);
    CHECK(af::is_float(kept));
    CHECK(std::vector<float>(af::floats(kept).begin(), af::floats(kept).end()) == values); // no clamping

    af::set_srgb(px, false);
    CHECK(px.desc.format == af::FMT_R8G8B8A8_UNORM);
    CHECK_FALSE(af::is_srgb(px.desc));
    CHECK(px.data[5] == 200);
    af::set_srgb(hdr, true);
    CHECK(hdr.desc.format == af::FMT_R32G32B32A32_FLOAT);
    CHECK((hdr.desc.flags & AF_TEX_SRGB));
    CHECK(af::floats(hdr)[0] == 2.0f);
    const af::Texture like = af::picture_like(hdr, 3, 1);
    CHECK(af::is_float(like));
    CHECK(af::is_srgb(like.desc));
    CHECK(af::floats(like).size() == 12);
}

TEST_CASE("picture: the surface view names the format and covers the whole buffer") {
    const af::Texture b = af::rgba8_picture(3, 2, true);
    af_surface s = b.surface(0, 0, 0).abi();
    CHECK(s.format == af::FMT_R8G8B8A8_UNORM_SRGB);
    CHECK(s.width == 3);
    CHECK(s.height == 2);
    CHECK(s.depth == 1);
    CHECK(s.data == b.data.data());
    CHECK(s.size == 24);
    CHECK(af::rgba8_picture(1, 1).surface(0, 0, 0).format == af::FMT_R8G8B8A8_UNORM);
    const af::Texture f = af::rgba32f_picture(3, 2, true);
    s = f.surface(0, 0, 0).abi();
    CHECK(s.format == af::FMT_R32G32B32A32_FLOAT);
    CHECK(s.data == reinterpret_cast<const uint8_t*>(af::floats(f).data()));
    CHECK(s.size == 24 * sizeof(float));
}

TEST_CASE("picture: resample hands the host both surfaces and keeps the pixel type and sRGB tag") {
    FakeHost host;
    host.on_resample = [](const af_surface* s, af_surface* d, const af_resample_options*, af_error*) {
        if (s->format != d->format) return AF_ERR_INTERNAL;
        std::fill(d->data, d->data + d->size, uint8_t(7));
        return AF_OK;
    };
    const af::Texture b = sdk::resample(host, af::rgba8_picture(4, 4, true), 2, 1);
    CHECK_FALSE(af::is_float(b));
    CHECK(af::is_srgb(b.desc));
    CHECK(b.desc.width == 2);
    CHECK(b.desc.height == 1);
    CHECK(b.data == std::vector<uint8_t>(8, 7));
    const af::Texture f = sdk::resample(host, af::rgba32f_picture(4, 4), 1, 1);
    CHECK(af::is_float(f));
    CHECK_FALSE(af::is_srgb(f.desc));
    CHECK(af::floats(f).size() == 4);
    CHECK(f.data.size() == 4 * sizeof(float));
}

TEST_CASE("picture: filtered_to_unorm8 truncates v*255+0.5 (not to_rgba8's rounding), has_translucency sees any "
          "alpha below one") {
    CHECK(af::filtered_to_unorm8(std::numeric_limits<float>::quiet_NaN()) == 0);
    CHECK(af::filtered_to_unorm8(-1.0f) == 0);
    CHECK(af::filtered_to_unorm8(2.0f) == 255);
    CHECK(af::filtered_to_unorm8(1.0f) == 255);
    CHECK(af::filtered_to_unorm8(0.5f) == 128);
    CHECK(af::filtered_to_unorm8(127.49f / 255.0f) == 127);
    CHECK(af::filtered_to_unorm8(127.5f / 255.0f) == 128);

    af::Texture b = af::rgba8_picture(2, 1);
    std::fill(b.data.begin(), b.data.end(), uint8_t(255));
    CHECK_FALSE(af::has_translucency(b));
    b.data[7] = 254;
    CHECK(af::has_translucency(b));
    b.data[7] = 255;
    b.data[2] = 0; // colour, not alpha
    CHECK_FALSE(af::has_translucency(b));

    af::Texture f = af::rgba32f_picture(2, 1);
    std::fill(af::floats(f).begin(), af::floats(f).end(), 1.0f);
    CHECK_FALSE(af::has_translucency(f));
    af::floats(f)[3] = 0.999f;
    CHECK(af::has_translucency(f));
}
