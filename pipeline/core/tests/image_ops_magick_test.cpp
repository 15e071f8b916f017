// Cross-check of resize against an independent implementation: ImageMagick's
// `convert -filter Lanczos -resize 50%`. ImageMagick 6 resizes PNG data in its
// stored (sRGB-encoded) values unless told `-colorspace RGB`, so each variant
// is compared with ours in the same space:
//   stored space: convert in.png -filter Lanczos -resize 50% out.png
//                 vs resize(lanczos3, linear_light = false)
//   linear light: convert in.png -colorspace RGB -filter Lanczos -resize 50% -colorspace sRGB out.png
//                 vs resize(lanczos3) (the default, linear light)
// Remaining differences: ImageMagick drops the taps outside the image and
// renormalises where we clamp (edge texels), and it computes in 16-bit quanta.
#include "core/image_ops.hpp"

#include "image_ops_test_support.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <unistd.h>

using namespace af;
using namespace af::test;

namespace {

bool have_convert() { return std::system("command -v convert >/dev/null 2>&1") == 0; }

Texture magick_half(const std::string& in, const std::string& colour_args_in, const std::string& colour_args_out) {
    namespace fs = std::filesystem;
    fs::path dir = fs::temp_directory_path() / ("af_magick_" + std::to_string(getpid()));
    fs::create_directories(dir);
    fs::path out = dir / "half.png";
    std::string cmd = "convert '" + in + "' " + colour_args_in + " -filter Lanczos -resize 50% " + colour_args_out +
                      " -depth 8 'PNG32:" + out.string() + "'";
    INFO(cmd);
    REQUIRE(std::system(cmd.c_str()) == 0);
    Texture img = read_png_file(out);
    fs::remove_all(dir);
    return img;
}

} // namespace

TEST_CASE("resize matches ImageMagick -filter Lanczos -resize 50%") {
    if (!have_convert()) {
        WARN("skipped: ImageMagick 'convert' not found on PATH");
        return;
    }
    const std::string in = data_path("d_dark-wall-wood_crop256.png");
    Texture src = read_png_file(in);
    REQUIRE(is_srgb(src.desc));

    SECTION("in stored (sRGB-encoded) values") {
        Texture theirs = magick_half(in, "", "");
        Texture ours = resize(src, 128, 128, ResizeOptions{Filter::Lanczos3, Edge::Clamp, false, true});
        REQUIRE((theirs.desc.width == 128 && theirs.desc.height == 128));
        double psnr = psnr_rgb8(ours, theirs);
        WARN("PSNR vs ImageMagick, stored space: " << psnr << " dB");
        CHECK(psnr >= 48.0); // measured 51.1 dB
    }
    SECTION("in linear light") {
        Texture theirs = magick_half(in, "-colorspace RGB", "-colorspace sRGB");
        Texture ours = resize(src, 128, 128, ResizeOptions{Filter::Lanczos3, Edge::Clamp, true, true});
        double psnr = psnr_rgb8(ours, theirs);
        WARN("PSNR vs ImageMagick, linear light: " << psnr << " dB");
        CHECK(psnr >= 45.0); // measured 48.8 dB
        // And the two spaces really differ, so the comparison tells them apart.
        Texture stored = resize(src, 128, 128, ResizeOptions{Filter::Lanczos3, Edge::Clamp, false, true});
        CHECK(psnr_rgb8(stored, theirs) < psnr);
    }
}
