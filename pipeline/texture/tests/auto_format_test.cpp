#include "texture/auto_format.hpp"
#include "texture/content.hpp"

#include "assetforge/formats.hpp"

#include <catch2/catch.hpp>

using namespace af::texture;

namespace {

af::Texture filled(uint8_t r, uint8_t g, uint8_t b, uint8_t a) {
    af::Texture img = af::rgba8_picture(8, 8, true);
    for (size_t i = 0; i < af::texels(img); ++i) {
        img.data[i * 4] = r, img.data[i * 4 + 1] = g, img.data[i * 4 + 2] = b, img.data[i * 4 + 3] = a;
    }
    return img;
}

uint32_t pick(const af::Texture& img, AutoHints h = {}) {
    h.srgb = af::is_srgb(img.desc);
    return choose_format(analyse(img), h).format;
}

} // namespace

TEST_CASE("auto: the table in docs/auto-format.md") {
    CHECK(pick(filled(200, 100, 50, 255)) == af::FMT_BC1_UNORM_SRGB);
    af::Texture cut = filled(200, 100, 50, 255);
    cut.data[3] = 0;
    CHECK(analyse(cut).alpha == AlphaKind::Cutout);
    CHECK(pick(cut) == af::FMT_BC1_UNORM_SRGB);
    af::Texture soft = filled(200, 100, 50, 128);
    CHECK(pick(soft) == af::FMT_BC3_UNORM_SRGB);
    CHECK(pick(soft, {.quality = Quality::High}) == af::FMT_BC7_UNORM_SRGB);
    CHECK(pick(filled(200, 100, 50, 255), {.quality = Quality::Max}) == af::FMT_BC7_UNORM_SRGB);
}

TEST_CASE("auto: greyscale stays grey unless the shader reads red") {
    af::Texture grey = filled(90, 90, 90, 255);
    CHECK(analyse(grey).grey);
    CHECK(pick(grey) == af::FMT_BC1_UNORM_SRGB);
    CHECK(pick(grey, {.grey_in_red = true}) == af::FMT_BC4_UNORM);
}

TEST_CASE("auto: normal maps by flag, by name and by texels") {
    af::Texture flat = filled(128, 128, 255, 255); // (0, 0, 1)
    af::set_srgb(flat, false);
    CHECK(analyse(flat).unit_vectors);
    CHECK(pick(flat) == af::FMT_BC5_UNORM);
    af::Texture colour = filled(200, 100, 50, 255);
    CHECK(pick(colour, {.name = "rock_normal.png"}) == af::FMT_BC5_UNORM);
    CHECK(pick(colour, {.name = "wall_nrm.png"}) == af::FMT_BC5_UNORM);
    CHECK(pick(colour, {.name = "brown.png"}) == af::FMT_BC1_UNORM_SRGB);
    CHECK(pick(colour, {.normal_map = true}) == af::FMT_BC5_UNORM);
}

TEST_CASE("auto: HDR float data goes to BC6H") {
    af::Texture hdr = af::rgba32f_picture(4, 4);
    for (float& v : af::floats(hdr)) v = 2.0f;
    CHECK(pick(hdr) == af::FMT_BC6H_UF16);
    af::floats(hdr)[0] = -1.0f;
    CHECK(pick(hdr) == af::FMT_BC6H_SF16);
}
