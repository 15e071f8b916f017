// ImageView, the one view: a Texture's surface carries its format and exactly its bytes, converts to the ABI's
// af_surface and back field for field, and a picture (picture.hpp) is seen in place.
#include "assetforge/image_view.hpp"
#include "assetforge/picture.hpp"
#include "assetforge/texture.hpp"

#include <catch2/catch.hpp>

TEST_CASE("image view: a texture's surface names its format and covers that surface alone") {
    af::TextureDesc d;
    d.format = af::FMT_BC1_UNORM;
    d.width = 16;
    d.height = 8;
    d.mips = 3;
    d.layers = 2;
    af::Texture t(d);
    const af::ImageView top = t.surface(1, 0, 0), last = t.surface(1, 0, 2);
    CHECK(top.format == af::FMT_BC1_UNORM);
    CHECK(top.width == 16);
    CHECK(top.height == 8);
    CHECK(top.size == 4 * 2 * 8); // 4×2 blocks of 8 bytes
    CHECK(top.data == t.data.data() + af::surface_offset(d, 1, 0, 0));
    CHECK(last.width == 4);
    CHECK(last.height == 2);
    CHECK(last.size == 8); // one block
    CHECK_FALSE(top.is_rgba());
    CHECK(top.u8() == nullptr); // blocks, not texels
    CHECK(top.f32() == nullptr);
    CHECK_THROWS_AS(t.surface(2, 0, 0), std::out_of_range);
}

TEST_CASE("image view: abi() and of() carry every field, stacked() puts a volume's slices under each other") {
    af::TextureDesc d;
    d.format = af::FMT_R32G32B32A32_FLOAT;
    d.width = 4;
    d.height = 2;
    d.depth = 3;
    af::Texture vol(d);
    const af::ImageView v = vol.surface(0, 0, 0);
    const af_surface s = v.abi();
    CHECK(s.format == d.format);
    CHECK(s.width == 4);
    CHECK(s.height == 2);
    CHECK(s.depth == 3);
    CHECK(s.data == vol.data.data());
    CHECK(s.size == vol.data.size());
    const af::ImageView back = af::ImageView::of(s);
    CHECK(back.texels() == 24);
    CHECK(back.is_float());
    CHECK(back.f32() == reinterpret_cast<const float*>(vol.data.data()));
    const af::ImageView tall = v.stacked();
    CHECK(tall.height == 6);
    CHECK(tall.depth == 1);
    CHECK(tall.size == v.size);
    CHECK(tall.data == v.data);
}

TEST_CASE("image view: a picture's view sees its own bytes with its format") {
    af::Texture srgb = af::rgba8_picture(3, 2, true);
    const af::ImageView a = srgb.surface(0, 0, 0);
    CHECK(a.format == af::FMT_R8G8B8A8_UNORM_SRGB);
    CHECK(a.is_rgba());
    CHECK(a.u8() == srgb.data.data());
    CHECK(a.size == srgb.data.size());
    const af::Texture f = af::rgba32f_picture(3, 2);
    const af::ImageView b = f.surface(0, 0, 0);
    CHECK(b.format == af::FMT_R32G32B32A32_FLOAT);
    CHECK(b.f32() == af::floats(f).data());
    CHECK(b.size == af::floats(f).size() * sizeof(float));
}
