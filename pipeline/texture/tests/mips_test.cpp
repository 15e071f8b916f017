// texture::mips: whole textures, every layer and face, through the one mip
// loop (af::generate_mips).
#include "texture/texture_ops.hpp"

#include "core/pixel_convert.hpp"
#include "core/png_io.hpp"

#include <catch2/catch.hpp>

#include <cstring>

using namespace af;
namespace tx = af::texture;

namespace {

std::string data_path(const std::string& name) { return std::string(AF_TEST_DATA) + "/images/" + name; }

Texture from_picture(const Texture& img, uint32_t format, uint32_t layers = 1) {
    TextureDesc d;
    d.format = format;
    d.width = img.desc.width;
    d.height = img.desc.height;
    d.layers = layers;
    Texture t(d);
    for (uint32_t l = 0; l < layers; ++l) {
        ImageView s = t.surface(l, 0, 0);
        image_to_surface(img, format, s.data, s.size);
    }
    return t;
}

} // namespace

TEST_CASE("mips: every layer, sRGB data filtered in linear light") {
    host::PluginRegistry reg;
    tx::Ops ops{reg};
    Texture palm = read_png_file(data_path("a_palm_b.png"));
    Texture t = from_picture(palm, FMT_R8G8B8A8_UNORM_SRGB, 2);
    Texture m = tx::mips(ops, t, {.normal_map = tx::NormalMapMode::No});
    REQUIRE(m.desc.mips == 9);
    REQUIRE(m.desc.format == FMT_R8G8B8A8_UNORM_SRGB);
    REQUIRE(m.data.size() == texture_bytes(m.desc));
    auto expect = generate_mips(palm);
    for (uint32_t layer = 0; layer < 2; ++layer)
        for (uint32_t mip = 0; mip < m.desc.mips; ++mip) {
            ImageView s = m.surface(layer, 0, mip);
            REQUIRE(s.size == expect[mip].data.size());
            CHECK(std::memcmp(s.data, expect[mip].data.data(), s.size) == 0);
        }
    // UNORM holding the same bytes is colour of unstated space: filtered as
    // linear unless the request says sRGB.
    Texture unorm = from_picture(palm, FMT_R8G8B8A8_UNORM);
    Texture lin = tx::mips(ops, unorm, {.normal_map = tx::NormalMapMode::No});
    Texture forced = tx::mips(ops, unorm, {.normal_map = tx::NormalMapMode::No, .colour = tx::ColourTag::Srgb});
    ImageView l1 = lin.surface(0, 0, 1), f1 = forced.surface(0, 0, 1);
    CHECK(std::memcmp(f1.data, m.surface(0, 0, 1).data, f1.size) == 0);
    CHECK(std::memcmp(l1.data, f1.data, l1.size) != 0);
}

TEST_CASE("mips: float data, and SNORM normal maps renormalised") {
    host::PluginRegistry reg;
    tx::Ops ops{reg};
    Texture n = read_png_file(data_path("n_stk_generic_rock_crop128.png"));
    Texture half = from_picture(to_float(n), FMT_R16G16B16A16_FLOAT);
    Texture hm = tx::mips(ops, half, {});
    CHECK(hm.desc.mips == 8);
    CHECK(hm.desc.format == FMT_R32G32B32A32_FLOAT);

    // R8G8_SNORM: two-channel, -1..1. Mips see it 0..1 (as decode shows it)
    // and keep every level's XY inside the unit circle.
    Texture snorm = to_float(n);
    for (size_t i = 0; i < floats(snorm).size(); ++i)
        if (i % 4 < 3) floats(snorm)[i] = floats(snorm)[i] * 2.0f - 1.0f;
    Texture t = from_picture(snorm, FMT_R8G8_SNORM);
    Texture m = tx::mips(ops, t, {.normal_map = tx::NormalMapMode::Yes});
    CHECK((m.desc.flags & AF_TEX_NORMAL_MAP));
    CHECK((m.desc.flags & AF_TEX_LINEAR));
    for (uint32_t mip = 1; mip < m.desc.mips; ++mip) {
        ImageView s = m.surface(0, 0, mip);
        Texture img = surface_to_image(m.desc.format, s.data, s.size, s.width, s.height);
        Texture f = to_float(img);
        for (size_t i = 0; i < texels(f); ++i) {
            float x = floats(f)[i * 4] * 2 - 1, y = floats(f)[i * 4 + 1] * 2 - 1;
            REQUIRE(x * x + y * y <= 1.03f); // a unit vector's XY, within 8-bit steps
        }
    }
}

TEST_CASE("mips: normal maps are recognised by the one rule") {
    host::PluginRegistry reg;
    tx::Ops ops{reg};
    Texture n = read_png_file(data_path("n_stk_generic_rock_crop128.png"));
    Texture t = from_picture(n, FMT_R8G8B8A8_UNORM_SRGB);
    Texture m = tx::mips(ops, t, {.name = "rock.png"});
    CHECK((m.desc.flags & AF_TEX_NORMAL_MAP));  // by its texels
    CHECK(m.desc.format == FMT_R8G8B8A8_UNORM); // vectors are data, not sRGB colour
    Texture palm = read_png_file(data_path("a_palm_b.png"));
    Texture c = tx::mips(ops, from_picture(palm, FMT_R8G8B8A8_UNORM_SRGB), {.name = "palm.png"});
    CHECK_FALSE((c.desc.flags & AF_TEX_NORMAL_MAP));
}

TEST_CASE("mips refuse what they cannot do") {
    host::PluginRegistry reg;
    tx::Ops ops{reg};
    TextureDesc d;
    d.format = FMT_BC1_UNORM;
    d.width = d.height = 8;
    CHECK_THROWS_WITH(tx::mips(ops, Texture(d), {}), Catch::Contains("BC1_UNORM"));
    d.format = FMT_R8G8B8A8_UNORM;
    d.depth = 4;
    CHECK_THROWS_WITH(tx::mips(ops, Texture(d), {}), Catch::Contains("volume"));
}
