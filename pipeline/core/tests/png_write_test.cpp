// The libdeflate PNG encoder: every level and filter gives a standard file
// that libpng, Pillow and ImageMagick read back texel for texel.
#include "core/png_io.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <unistd.h>

using namespace af;
namespace fs = std::filesystem;

namespace {

// Smooth gradients with noise: every filter has something to win.
Texture test_image(uint32_t w, uint32_t h, bool with_alpha, bool wide) {
    std::mt19937 rng(w * 31 + h);
    Texture img = wide ? rgba32f_picture(w, h) : rgba8_picture(w, h);
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x)
            for (int c = 0; c < 4; ++c) {
                const size_t i = (size_t(y) * w + x) * 4 + c;
                const int v = c == 3 && !with_alpha ? 255 : int((x * (c + 1) + y * 3) % 256) ^ int(rng() & 7);
                if (wide)
                    floats(img)[i] =
                        c == 3 && !with_alpha ? 1.0f : float((v * 257 + int(rng() % 200)) % 65536) / 65535.f;
                else
                    img.data[i] = uint8_t(v);
            }
    return img;
}

void same_texels(const Texture& a, const Texture& b, int channels) {
    REQUIRE(a.desc.width == b.desc.width);
    REQUIRE(a.desc.height == b.desc.height);
    for (size_t i = 0; i < texels(a); ++i)
        for (int c = 0; c < channels; ++c) {
            const size_t k = i * 4 + c;
            if (is_float(a))
                REQUIRE(std::lround(floats(a)[k] * 65535) == std::lround(floats(b)[k] * 65535));
            else
                REQUIRE(int(a.data[k]) == int(b.data[k]));
        }
}

} // namespace

TEST_CASE("PNG writer: every level and filter reads back exactly") {
    const Texture rgba = test_image(37, 23, true, false), rgb = test_image(64, 9, false, false),
                  wide = test_image(13, 11, true, true);
    for (int level = 0; level <= 12; ++level)
        for (PngFilter f : {PngFilter::Auto, PngFilter::None, PngFilter::Sub, PngFilter::Up, PngFilter::Paeth}) {
            INFO("level " << level << " filter " << int(f));
            PngWriteOptions o;
            o.compression = level;
            o.filter = f;
            same_texels(rgba, decode_png(encode_png(rgba, o), "rgba"), 4);
            o.drop_alpha = true;
            same_texels(rgb, decode_png(encode_png(rgb, o), "rgb"), 3);
            o.drop_alpha = false;
            o.bit_depth = 16;
            same_texels(wide, decode_png(encode_png(wide, o), "wide"), 4);
        }
}

TEST_CASE("PNG writer: higher levels are not larger, and tags are written as asked") {
    const Texture img = test_image(256, 256, true, false);
    PngWriteOptions o;
    o.compression = 0;
    const size_t stored = encode_png(img, o).size();
    o.compression = 1;
    const size_t fast = encode_png(img, o).size();
    o.compression = 12;
    const size_t best = encode_png(img, o).size();
    CHECK(fast < stored);
    CHECK(best <= fast);
    Texture srgb = img;
    set_srgb(srgb, true);
    auto has = [](const std::vector<uint8_t>& png, const char* chunk) {
        return std::search(png.begin(), png.end(), chunk, chunk + 4) != png.end();
    };
    auto s = encode_png(srgb, {});
    CHECK(has(s, "sRGB"));
    CHECK(is_srgb(decode_png(s, "s").desc));
    o = {};
    o.tag_linear = true;
    auto l = encode_png(img, o);
    CHECK(has(l, "gAMA"));
    CHECK_FALSE(has(l, "sRGB"));
    CHECK_FALSE(is_srgb(decode_png(l, "l").desc));
    CHECK_FALSE(has(encode_png(img, {}), "gAMA"));
}

TEST_CASE("PNG writer: Pillow and ImageMagick read every level texel for texel", "[external]") {
    const char* python = "/usr/bin/python3";
    if (access(python, X_OK) != 0 || std::system("/usr/bin/python3 -c 'import PIL' 2>/dev/null") != 0) {
        WARN("Pillow (python3-pil) is not installed: skipped");
        return;
    }
    const fs::path dir = fs::temp_directory_path() / fs::path("af-png-write-").concat(std::to_string(getpid()));
    fs::create_directories(dir);
    const Texture img = test_image(61, 17, true, false);
    for (int level : {0, 1, 6, 9, 12}) {
        INFO("level " << level);
        PngWriteOptions o;
        o.compression = level;
        auto bytes = encode_png(img, o);
        fs::path png = dir / "l";
        png.concat(std::to_string(level)).concat(".png");
        std::ofstream(png, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
        std::ofstream(dir / "raw.bin", std::ios::binary)
            .write(reinterpret_cast<const char*>(img.data.data()), img.data.size());
        // Built with a stream: GCC 12's -Wrestrict misfires on long + chains.
        std::ostringstream pil;
        pil << python << " -c \"from PIL import Image; im = Image.open('" << png.string()
            << "'); im.load(); assert im.mode == 'RGBA' and im.size == (61, 17); assert im.tobytes() == open('"
            << (dir / "raw.bin").string() << "', 'rb').read()\"";
        CHECK(std::system(pil.str().c_str()) == 0);
        if (access("/usr/bin/convert", X_OK) == 0) {
            std::ostringstream magick;
            magick << "/usr/bin/convert '" << png.string() << "' -depth 8 'RGBA:" << (dir / "magick.bin").string()
                   << "' && cmp -s '" << (dir / "magick.bin").string() << "' '" << (dir / "raw.bin").string() << "'";
            CHECK(std::system(magick.str().c_str()) == 0);
        }
    }
    fs::remove_all(dir);
}
