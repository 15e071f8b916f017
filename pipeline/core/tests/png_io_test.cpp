#include "core/png_io.hpp"

#include "assetforge/plugin.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <png.h>

using namespace af;

TEST_CASE("PNG 8-bit RGBA round trip is exact") {
    Texture img = rgba8_picture(13, 7, true);
    for (size_t i = 0; i < img.data.size(); ++i) img.data[i] = uint8_t(i * 31 + 7);
    auto bytes = encode_png(img);
    Texture back = decode_png(bytes, "mem");
    CHECK(back.desc.width == 13);
    CHECK(back.desc.height == 7);
    CHECK(is_srgb(back.desc));
    CHECK(back.data == img.data);
}

TEST_CASE("PNG 16-bit round trip keeps 16 bits") {
    Texture img = rgba32f_picture(5, 3, false);
    for (size_t i = 0; i < floats(img).size(); ++i) floats(img)[i] = float(i * 1031 % 65536) / 65535.0f;
    PngWriteOptions o;
    o.bit_depth = 16;
    o.tag_linear = true;
    Texture back = decode_png(encode_png(img, o), "mem");
    REQUIRE(is_float(back));
    CHECK_FALSE(is_srgb(back.desc));
    for (size_t i = 0; i < floats(img).size(); ++i) CHECK(floats(back)[i] == Approx(floats(img)[i]).margin(1e-6));
}

TEST_CASE("grey, grey+alpha and RGB PNGs expand to RGBA") {
    Texture img = rgba8_picture(4, 4);
    for (size_t i = 0; i < texels(img); ++i) {
        img.data[i * 4] = img.data[i * 4 + 1] = img.data[i * 4 + 2] = uint8_t(i * 16);
        img.data[i * 4 + 3] = uint8_t(255 - i);
    }
    PngWriteOptions o;
    o.grey = true;
    Texture ga = decode_png(encode_png(img, o), "ga");
    CHECK(ga.data == img.data);
    o.drop_alpha = true;
    Texture g = decode_png(encode_png(img, o), "g");
    CHECK(g.data[4 * 5 + 1] == 80);
    CHECK(g.data[4 * 5 + 3] == 255);
    o.grey = false;
    Texture rgb = decode_png(encode_png(img, o), "rgb");
    CHECK(rgb.data[3] == 255);
    CHECK(rgb.data[4 * 5] == 80);
}

TEST_CASE("real corpus PNG decodes") {
    Texture img = read_png_file(std::filesystem::path(AF_TEST_DATA) / "images" / "g_caustics.png");
    CHECK(img.desc.width > 0);
    CHECK(img.desc.height > 0);
}

TEST_CASE("broken PNGs give errors with offsets, not crashes") {
    Texture img = rgba8_picture(32, 32);
    auto bytes = encode_png(img);
    CHECK_THROWS_AS(decode_png(std::span(bytes).first(4), "x"), sdk::Error);
    for (size_t cut = 8; cut < bytes.size(); cut += 7) {
        std::vector<uint8_t> part(bytes.begin(), bytes.begin() + long(cut));
        CHECK_THROWS_AS(decode_png(part, "cut"), sdk::Error);
    }
    bytes[20] ^= 0xff; // corrupt IHDR width: CRC error
    CHECK_THROWS_AS(decode_png(bytes, "crc"), sdk::Error);
}

namespace {
// An Adam7-interlaced RGBA PNG of `depth` bits (encode_png writes plain ones only).
std::vector<uint8_t> interlaced_png(uint32_t w, uint32_t h, int depth, const std::vector<uint8_t>& big_endian_rows) {
    std::vector<uint8_t> out;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    png_infop info = png_create_info_struct(png);
    REQUIRE(setjmp(png_jmpbuf(png)) == 0);
    png_set_write_fn(
        png, &out,
        [](png_structp p, png_bytep d, png_size_t n) {
            auto* v = static_cast<std::vector<uint8_t>*>(png_get_io_ptr(p));
            v->insert(v->end(), d, d + n);
        },
        nullptr);
    png_set_IHDR(png, info, w, h, depth, PNG_COLOR_TYPE_RGB_ALPHA, PNG_INTERLACE_ADAM7, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    std::vector<png_bytep> rows(h);
    const size_t stride = size_t(w) * 4 * size_t(depth / 8);
    for (uint32_t y = 0; y < h; ++y) rows[y] = const_cast<uint8_t*>(big_endian_rows.data()) + y * stride;
    png_write_image(png, rows.data());
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    return out;
}
} // namespace

TEST_CASE("interlaced 8- and 16-bit PNGs decode to the same pixels as plain ones") {
    const uint32_t w = 19, h = 11;
    std::vector<uint8_t> rows8(size_t(w) * h * 4), rows16(size_t(w) * h * 8);
    for (size_t i = 0; i < rows8.size(); ++i) rows8[i] = uint8_t(i * 37 + 5);
    for (size_t i = 0; i < rows16.size(); ++i) rows16[i] = uint8_t(i * 53 + 11);
    Texture a = decode_png(interlaced_png(w, h, 8, rows8), "i8");
    CHECK(a.desc.width == w);
    CHECK(a.data == rows8);
    Texture b = decode_png(interlaced_png(w, h, 16, rows16), "i16");
    REQUIRE(is_float(b));
    REQUIRE(floats(b).size() == size_t(w) * h * 4);
    for (size_t i = 0; i < floats(b).size(); ++i) {
        const uint16_t v = uint16_t(rows16[i * 2] << 8 | rows16[i * 2 + 1]);
        CHECK(floats(b)[i] == v / 65535.0f);
    }
}
