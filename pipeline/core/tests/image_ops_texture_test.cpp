// generate_texture_mips: whole textures in their own formats.
#include "core/image_ops.hpp"

#include "assetforge/plugin.hpp"
#include "image_ops_test_support.hpp"

#include <catch2/catch.hpp>

#include <cstring>

using namespace af;
using namespace af::test;

namespace {

Texture from_image(const Image& img, uint32_t format, uint32_t layers = 1) {
    TextureDesc d;
    d.format = format;
    d.width = img.width;
    d.height = img.height;
    d.layers = layers;
    Texture t(d);
    for (uint32_t l = 0; l < layers; ++l) {
        SurfaceRef s = t.surface(l, 0, 0);
        image_to_surface(img, format, s.data, s.size);
    }
    return t;
}

} // namespace

TEST_CASE("texture mips: every layer, same format, sRGB from the format") {
    Image palm = read_png_file(data_path("a_palm_b.png"));
    Texture t = from_image(palm, FMT_R8G8B8A8_UNORM_SRGB, 2);
    Texture m = generate_texture_mips(t);
    REQUIRE(m.desc.mips == 9);
    REQUIRE(m.desc.format == FMT_R8G8B8A8_UNORM_SRGB);
    REQUIRE(m.data.size() == texture_bytes(m.desc));
    auto expect = generate_mips(palm);
    for (uint32_t layer = 0; layer < 2; ++layer)
        for (uint32_t mip = 0; mip < m.desc.mips; ++mip) {
            SurfaceRef s = m.surface(layer, 0, mip);
            REQUIRE(s.size == expect[mip].rgba8.size());
            CHECK(std::memcmp(s.data, expect[mip].rgba8.data(), s.size) == 0);
        }
    // UNORM holding the same bytes: linear unless told otherwise.
    Texture unorm = from_image(palm, FMT_R8G8B8A8_UNORM);
    Texture lin_mips = generate_texture_mips(unorm);
    Texture forced_mips = generate_texture_mips(unorm, {}, ColourSpace::Srgb);
    SurfaceRef lin = lin_mips.surface(0, 0, 1), forced = forced_mips.surface(0, 0, 1);
    CHECK(std::memcmp(forced.data, m.surface(0, 0, 1).data, forced.size) == 0);
    CHECK(std::memcmp(lin.data, forced.data, lin.size) != 0);
}

TEST_CASE("texture mips: float formats and SNORM normal maps") {
    Image n = read_png_file(data_path("n_stk_generic_rock_crop128.png"));
    Texture half = from_image(to_float(n), FMT_R16G16B16A16_FLOAT);
    CHECK(generate_texture_mips(half).desc.mips == 8);

    // R8G8_SNORM: two-channel, -1..1.
    Image snorm = to_float(n);
    for (size_t i = 0; i < snorm.rgba32f.size(); ++i)
        if (i % 4 < 3) snorm.rgba32f[i] = snorm.rgba32f[i] * 2.0f - 1.0f;
    Texture t = from_image(snorm, FMT_R8G8_SNORM);
    MipOptions o;
    o.normal_map = true;
    Texture m = generate_texture_mips(t, o);
    for (uint32_t mip = 1; mip < m.desc.mips; ++mip) {
        SurfaceRef s = m.surface(0, 0, mip);
        Image img = surface_to_image(FMT_R8G8_SNORM, s.data, s.size, s.width, s.height);
        for (size_t i = 0; i < img.texels(); ++i) {
            float x = img.rgba32f[i * 4], y = img.rgba32f[i * 4 + 1];
            REQUIRE(x * x + y * y <= 1.02f); // a unit vector's XY, within 8-bit SNORM steps
        }
    }
}

TEST_CASE("texture mips refuse what they cannot do") {
    TextureDesc d;
    d.format = FMT_BC1_UNORM;
    d.width = d.height = 8;
    CHECK_THROWS_WITH(generate_texture_mips(Texture(d)), Catch::Contains("unsupported: mips of BC1_UNORM"));
    d.format = FMT_R8G8B8A8_UNORM;
    d.depth = 4;
    CHECK_THROWS_WITH(generate_texture_mips(Texture(d)), Catch::Contains("volume"));
    d.depth = 1;
    Texture bad(d);
    bad.data.resize(10);
    CHECK_THROWS_WITH(generate_texture_mips(bad), Catch::Contains("holds 10 bytes"));
}
