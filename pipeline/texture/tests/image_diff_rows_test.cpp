// DiffRows, fed bands of rows, gives bit for bit what diff_images gives on the whole images: the banded
// `compare` of large textures reports the same figures as before.
#include "texture/image_diff.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>

using namespace af;
using namespace af::texture;

namespace {

Texture band_of(const Texture& img, uint32_t y0, uint32_t rows) {
    const uint32_t width = img.desc.width;
    Texture out = is_float(img) ? rgba32f_picture(width, rows) : rgba8_picture(width, rows);
    const size_t from = size_t(y0) * width * 4, n = size_t(rows) * width * 4;
    if (is_float(img))
        std::copy_n(floats(img).begin() + std::ptrdiff_t(from), n, floats(out).begin());
    else
        std::copy_n(img.data.begin() + std::ptrdiff_t(from), n, out.data.begin());
    return out;
}

Texture noisy(uint32_t w, uint32_t h, bool is_float, uint32_t seed) {
    std::mt19937 rng(seed);
    Texture img = is_float ? rgba32f_picture(w, h) : rgba8_picture(w, h);
    if (is_float)
        for (float& v : floats(img)) v = float(rng() % 10000) / 9999.0f;
    else
        for (uint8_t& v : img.data) v = uint8_t(rng());
    return img;
}

void same(const ImageDiff& x, const ImageDiff& y) {
    CHECK(x.width == y.width);
    CHECK(x.height == y.height);
    for (int c = 0; c < 4; ++c) {
        CHECK(x.channel[c].mse == y.channel[c].mse);
        CHECK(x.channel[c].max_error == y.channel[c].max_error);
        CHECK(x.channel[c].psnr == y.channel[c].psnr);
    }
    CHECK(x.psnr_rgb == y.psnr_rgb);
    CHECK(x.ssim == y.ssim);
}

} // namespace

TEST_CASE("DiffRows over bands equals diff_images over the whole", "[diff]") {
    for (const bool is_float : {false, true})
        for (const auto& [w, h] : {std::pair<uint32_t, uint32_t>{37, 29}, {11, 11}, {8, 40}, {40, 8}, {64, 3}})
            for (const bool ssim : {true, false})
                for (const uint32_t band : {1u, 4u, 7u, 64u}) {
                    INFO((is_float ? "float " : "8-bit ") << w << "x" << h << " band " << band << " ssim " << ssim);
                    const Texture a = noisy(w, h, is_float, 1), b = noisy(w, h, is_float, 2);
                    DiffRows rows(w, h, {.ssim = ssim});
                    for (uint32_t y = 0; y < h; y += band) {
                        const uint32_t n = std::min(band, h - y);
                        rows.add(band_of(a, y, n).surface(0, 0, 0), band_of(b, y, n).surface(0, 0, 0));
                    }
                    same(rows.finish(), diff_images(a.surface(0, 0, 0), b.surface(0, 0, 0), {.ssim = ssim}));
                }
}

TEST_CASE("DiffRows refuses rows that do not continue the comparison", "[diff]") {
    DiffRows rows(8, 8);
    CHECK_THROWS_AS(rows.add(rgba8_picture(7, 2).surface(0, 0, 0), rgba8_picture(7, 2).surface(0, 0, 0)),
                    std::invalid_argument);
    CHECK_THROWS_AS(rows.add(rgba8_picture(8, 2).surface(0, 0, 0), rgba8_picture(8, 3).surface(0, 0, 0)),
                    std::invalid_argument);
    rows.add(rgba8_picture(8, 8).surface(0, 0, 0), rgba8_picture(8, 8).surface(0, 0, 0));
    CHECK_THROWS_AS(rows.add(rgba8_picture(8, 1).surface(0, 0, 0), rgba8_picture(8, 1).surface(0, 0, 0)),
                    std::invalid_argument);
}

TEST_CASE("PSNR RGB counts the colour channels the format stores", "[diff]") {
    // Red off by one level, green exact, blue off by 255 (BC5's dropped blue).
    Texture a = rgba8_picture(4, 4), b = rgba8_picture(4, 4);
    for (size_t i = 0; i < texels(a); ++i) {
        a.data[i * 4] = 100, b.data[i * 4] = 101;
        a.data[i * 4 + 2] = 255;
    }
    const FormatInfo& bc5 = *format_info(FMT_BC5_UNORM);
    const ImageDiff xy =
        diff_images(a.surface(0, 0, 0), b.surface(0, 0, 0), {.ssim = false, .psnr_channels = stored_colour(bc5)});
    const ImageDiff rgb = diff_images(a.surface(0, 0, 0), b.surface(0, 0, 0), {.ssim = false});
    const double level = 1.0 / 255;
    REQUIRE(xy.psnr_rgb);
    CHECK(*xy.psnr_rgb == Approx(10 * std::log10(2 / (level * level))));
    CHECK(*rgb.psnr_rgb < 5.0); // the drop, not the encode
    CHECK(*diff_images(a.surface(0, 0, 0), b.surface(0, 0, 0), {.ssim = false, .psnr_channels = chan::r}).psnr_rgb ==
          Approx(10 * std::log10(1 / (level * level))));
    // The source's own RGBA8 bytes give what its picture's view gives.
    const ImageDiff view = diff_images(ImageView{FMT_R8G8B8A8_UNORM, 4, 4, 1, a.data.data(), a.data.size()},
                                       b.surface(0, 0, 0), {.ssim = false});
    CHECK(view.psnr_rgb == rgb.psnr_rgb);
    // Only texels are compared: a view of blocks is refused, not read as bytes.
    CHECK_THROWS_AS(diff_images(ImageView{FMT_BC1_UNORM, 4, 4, 1, a.data.data(), 8}, b.surface(0, 0, 0)),
                    std::invalid_argument);
}

TEST_CASE("one table says which channels a format stores", "[diff]") {
    CHECK(stored_channels(*format_info(FMT_BC4_UNORM)) == chan::r);
    CHECK(stored_channels(*format_info(FMT_BC5_SNORM)) == (chan::r | chan::g));
    CHECK(stores_xy_only(*format_info(FMT_BC5_UNORM)));
    CHECK(stores_xy_only(*format_info(FMT_R8G8_UNORM)));
    CHECK(!stores_xy_only(*format_info(FMT_BC1_UNORM)));
    CHECK(stored_channels(*format_info(FMT_BC6H_UF16)) == chan::rgb);
    CHECK(stored_channels(*format_info(FMT_BC7_UNORM_SRGB)) == chan::rgba);
    CHECK(stored_channels(*format_info(FMT_B5G6R5_UNORM)) == chan::rgb);
    CHECK(stored_colour(*format_info(FMT_L8A8)) == chan::r);
    CHECK(stored_colour(*format_info(FMT_A8_UNORM)) == chan::rgb); // grey when decoded
}
