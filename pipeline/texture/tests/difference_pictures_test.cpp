// The report's difference pictures: what a player sees, from the same texels as the figures. Colour under
// alpha 0 is masked out and not counted, colour under half alpha counts half, a channel the format does not
// keep is left out, and alpha is a picture of its own.
#include "texture/image_diff.hpp"

#include <catch2/catch.hpp>

using namespace af;
using namespace af::texture;

namespace {

// Four texels in a row: transparent, half transparent, opaque, opaque.
Texture source() {
    Texture img = rgba8_picture(4, 1);
    const uint8_t px[16] = {10, 10, 10, 0, 10, 10, 10, 128, 10, 10, 10, 255, 10, 10, 10, 255};
    std::copy(px, px + 16, img.data.begin());
    return img;
}

uint8_t at(const Texture& img, size_t texel, int c) { return img.data[texel * 4 + c]; }

} // namespace

TEST_CASE("difference pictures: colour under alpha 0 is masked out and not counted", "[diff][report]") {
    Texture a = source(), b = source();
    b.data[0] = 250;    // texel 0 (alpha 0): red off by 240, which nobody sees
    b.data[2 * 4] = 30; // texel 2 (opaque): red off by 20
    b.data[1 * 4] = 30; // texel 1 (alpha 128): red off by 20, seen at half
    const DifferencePictures d = difference_pictures(a.surface(0, 0, 0), b.surface(0, 0, 0));
    CHECK(d.colour_max == Approx(20.0 / 255));
    CHECK(at(d.colour, 0, 3) == 0); // masked: the page shows its checkerboard there
    CHECK(at(d.colour, 2, 3) == 255);
    CHECK(at(d.colour, 2, 0) == 255);                        // the largest seen error is white
    CHECK(int(at(d.colour, 1, 0)) == Approx(128).margin(1)); // half the alpha, half the error
    CHECK(at(d.colour, 3, 0) == 0);
    CHECK(d.alpha_max == 0);
    // The figures agree: the alpha-weighted PSNR leaves texel 0's error out as the picture does.
    const ImageDiff f = diff_images(a.surface(0, 0, 0), b.surface(0, 0, 0), {.ssim = false});
    REQUIRE(f.psnr_rgb_alpha_weighted);
    CHECK(*f.psnr_rgb_alpha_weighted > *f.psnr_rgb);
}

TEST_CASE("difference pictures: a channel the result does not keep is left out, alpha is its own picture",
          "[diff][report]") {
    Texture a = source(), b = source();
    for (size_t i = 0; i < 4; ++i) b.data[i * 4 + 2] = 0, b.data[i * 4 + 3] = 255; // blue and alpha dropped
    b.data[3 * 4 + 1] = 15;                                                        // green off by 5
    const DifferencePictures kept_rg = difference_pictures(a.surface(0, 0, 0), b.surface(0, 0, 0), chan::r | chan::g);
    CHECK(kept_rg.colour_max == Approx(5.0 / 255));
    CHECK(at(kept_rg.colour, 3, 1) == 255);
    CHECK(at(kept_rg.colour, 3, 2) == 0); // blue's error of 10 is not the encoder's
    const DifferencePictures all = difference_pictures(a.surface(0, 0, 0), b.surface(0, 0, 0));
    CHECK(all.colour_max == Approx(10.0 / 255));
    // Alpha: 255 against 0 at texel 0, the largest, white; none at the opaque texels.
    CHECK(all.alpha_max == Approx(1.0));
    CHECK(at(all.alpha, 0, 0) == 255);
    CHECK(at(all.alpha, 2, 0) == 0);
    CHECK(at(all.alpha, 0, 3) == 255);
    CHECK_THROWS_AS(difference_pictures(rgba8_picture(2, 2).surface(0, 0, 0), rgba8_picture(2, 1).surface(0, 0, 0)),
                    std::invalid_argument);
}

TEST_CASE("difference pictures: float texels give the pictures and scales 8-bit ones give", "[diff][report]") {
    Texture a = source(), b = source();
    b.data[0] = 250, b.data[4] = 30, b.data[8 + 1] = 200, b.data[2 * 4] = 30, b.data[3 * 4 + 3] = 100;
    auto as_float = [](const Texture& img) {
        Texture f = rgba32f_picture(img.desc.width, img.desc.height);
        for (size_t i = 0; i < img.data.size(); ++i) floats(f)[i] = float(img.data[i]) / 255.0f;
        return f;
    };
    const Texture fa = as_float(a), fb = as_float(b);
    for (uint8_t kept : {uint8_t(chan::rgb), uint8_t(chan::r | chan::g)}) {
        const DifferencePictures whole = difference_pictures(a.surface(0, 0, 0), b.surface(0, 0, 0), kept),
                                 f = difference_pictures(fa.surface(0, 0, 0), fb.surface(0, 0, 0), kept);
        CHECK(f.colour_max == Approx(whole.colour_max));
        CHECK(f.alpha_max == Approx(whole.alpha_max));
        for (size_t i = 0; i < whole.colour.data.size(); ++i) {
            INFO(i);
            CHECK(std::abs(int(f.colour.data[i]) - int(whole.colour.data[i])) <= 1);
            CHECK(std::abs(int(f.alpha.data[i]) - int(whole.alpha.data[i])) <= 1);
        }
    }
}
