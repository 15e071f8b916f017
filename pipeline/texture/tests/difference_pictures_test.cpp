// The report's difference pictures: what a player sees, from the same texels as the figures. Colour under
// alpha 0 is masked out and not counted, colour under half alpha counts half, a channel the format does not
// keep is left out, and alpha is a picture of its own.
#include "texture/image_diff.hpp"

#include <catch2/catch.hpp>

using namespace af;
using namespace af::texture;

namespace {

// Four texels in a row: transparent, half transparent, opaque, opaque.
Image source() {
    Image img = Image::make8(4, 1);
    const uint8_t px[16] = {10, 10, 10, 0, 10, 10, 10, 128, 10, 10, 10, 255, 10, 10, 10, 255};
    std::copy(px, px + 16, img.rgba8.begin());
    return img;
}

uint8_t at(const Image& img, size_t texel, int c) { return img.rgba8[texel * 4 + c]; }

} // namespace

TEST_CASE("difference pictures: colour under alpha 0 is masked out and not counted", "[diff][report]") {
    Image a = source(), b = source();
    b.rgba8[0] = 250;    // texel 0 (alpha 0): red off by 240, which nobody sees
    b.rgba8[2 * 4] = 30; // texel 2 (opaque): red off by 20
    b.rgba8[1 * 4] = 30; // texel 1 (alpha 128): red off by 20, seen at half
    const DifferencePictures d = difference_pictures(view_of(a), view_of(b));
    CHECK(d.colour_max == Approx(20.0 / 255));
    CHECK(at(d.colour, 0, 3) == 0); // masked: the page shows its checkerboard there
    CHECK(at(d.colour, 2, 3) == 255);
    CHECK(at(d.colour, 2, 0) == 255);                        // the largest seen error is white
    CHECK(int(at(d.colour, 1, 0)) == Approx(128).margin(1)); // half the alpha, half the error
    CHECK(at(d.colour, 3, 0) == 0);
    CHECK(d.alpha_max == 0);
    // The figures agree: the alpha-weighted PSNR leaves texel 0's error out as the picture does.
    const ImageDiff f = diff_images(view_of(a), view_of(b), {.ssim = false});
    REQUIRE(f.psnr_rgb_alpha_weighted);
    CHECK(*f.psnr_rgb_alpha_weighted > *f.psnr_rgb);
}

TEST_CASE("difference pictures: a channel the result does not keep is left out, alpha is its own picture",
          "[diff][report]") {
    Image a = source(), b = source();
    for (size_t i = 0; i < 4; ++i) b.rgba8[i * 4 + 2] = 0, b.rgba8[i * 4 + 3] = 255; // blue and alpha dropped
    b.rgba8[3 * 4 + 1] = 15;                                                         // green off by 5
    const DifferencePictures kept_rg = difference_pictures(view_of(a), view_of(b), chan::r | chan::g);
    CHECK(kept_rg.colour_max == Approx(5.0 / 255));
    CHECK(at(kept_rg.colour, 3, 1) == 255);
    CHECK(at(kept_rg.colour, 3, 2) == 0); // blue's error of 10 is not the encoder's
    const DifferencePictures all = difference_pictures(view_of(a), view_of(b));
    CHECK(all.colour_max == Approx(10.0 / 255));
    // Alpha: 255 against 0 at texel 0, the largest, white; none at the opaque texels.
    CHECK(all.alpha_max == Approx(1.0));
    CHECK(at(all.alpha, 0, 0) == 255);
    CHECK(at(all.alpha, 2, 0) == 0);
    CHECK(at(all.alpha, 0, 3) == 255);
    CHECK_THROWS_AS(difference_pictures(view_of(Image::make8(2, 2)), view_of(Image::make8(2, 1))),
                    std::invalid_argument);
}

TEST_CASE("difference pictures: float texels give the pictures and scales 8-bit ones give", "[diff][report]") {
    Image a = source(), b = source();
    b.rgba8[0] = 250, b.rgba8[4] = 30, b.rgba8[8 + 1] = 200, b.rgba8[2 * 4] = 30, b.rgba8[3 * 4 + 3] = 100;
    auto as_float = [](const Image& img) {
        Image f = Image::makef(img.width, img.height);
        for (size_t i = 0; i < img.rgba8.size(); ++i) f.rgba32f[i] = float(img.rgba8[i]) / 255.0f;
        return f;
    };
    const Image fa = as_float(a), fb = as_float(b);
    for (uint8_t kept : {uint8_t(chan::rgb), uint8_t(chan::r | chan::g)}) {
        const DifferencePictures whole = difference_pictures(view_of(a), view_of(b), kept),
                                 f = difference_pictures(view_of(fa), view_of(fb), kept);
        CHECK(f.colour_max == Approx(whole.colour_max));
        CHECK(f.alpha_max == Approx(whole.alpha_max));
        for (size_t i = 0; i < whole.colour.rgba8.size(); ++i) {
            INFO(i);
            CHECK(std::abs(int(f.colour.rgba8[i]) - int(whole.colour.rgba8[i])) <= 1);
            CHECK(std::abs(int(f.alpha.rgba8[i]) - int(whole.alpha.rgba8[i])) <= 1);
        }
    }
}
