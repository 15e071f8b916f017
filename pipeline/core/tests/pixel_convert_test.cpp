#include "core/pixel_convert.hpp"

#include "assetforge/formats.hpp"
#include "assetforge/plugin.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <random>

using namespace af;

namespace {
// Largest error a format may introduce for a value in [0,1] (or [-1,1]).
float tolerance(const FormatInfo& f) {
    int bits = 32;
    for (const auto& c : f.ch)
        if (c.bits) bits = std::min<int>(bits, c.bits);
    if (f.ch[0].type == ChannelType::Float) return bits == 16 ? 1e-3f : 1e-6f;
    return 0.5f / float((1u << std::min(bits, 24)) - 1) + 1e-6f;
}
} // namespace

TEST_CASE("every plain format round-trips through RGBA32F") {
    std::mt19937 rng(7);
    for (const auto& f : all_formats()) {
        if (f.layout != Layout::Plain || (f.flags & fmtflag::depth)) continue;
        const uint32_t w = 5, h = 3;
        std::vector<uint8_t> bytes(surface_bytes(f.id, w, h));
        for (auto& b : bytes) b = uint8_t(rng());
        // Decode arbitrary bytes, encode, decode again: must be stable.
        std::vector<float> a(w * h * 4), b(w * h * 4);
        decode_texels(f.id, bytes.data(), bytes.size(), w, h, a.data());
        std::vector<uint8_t> again(bytes.size());
        encode_texels(f.id, a.data(), w, h, again.data(), again.size());
        decode_texels(f.id, again.data(), again.size(), w, h, b.data());
        INFO(f.name);
        for (size_t i = 0; i < a.size(); ++i) {
            if (std::isnan(a[i])) continue;
            CHECK(b[i] == Approx(a[i]).margin(tolerance(f)));
        }
    }
}

TEST_CASE("known texel layouts decode to the right channels") {
    float o[4];
    const uint8_t bgra[4] = {10, 20, 30, 40};
    decode_texels(FMT_B8G8R8A8_UNORM, bgra, 4, 1, 1, o);
    CHECK(o[0] == Approx(30 / 255.0f));
    CHECK(o[2] == Approx(10 / 255.0f));
    CHECK(o[3] == Approx(40 / 255.0f));
    const uint8_t rgb565[2] = {0x1f, 0x00}; // B5G6R5: blue in the low bits
    decode_texels(FMT_B5G6R5_UNORM, rgb565, 2, 1, 1, o);
    CHECK(o[2] == 1.0f);
    CHECK(o[0] == 0.0f);
    CHECK(o[3] == 1.0f);
    const uint8_t l8[1] = {128};
    decode_texels(FMT_L8, l8, 1, 1, 1, o);
    CHECK(o[0] == o[1]);
    CHECK(o[1] == o[2]);
    const uint8_t a8[1] = {51};
    decode_texels(FMT_A8_UNORM, a8, 1, 1, 1, o);
    CHECK(o[0] == 0.0f);
    CHECK(o[3] == Approx(0.2f));
    const uint8_t sn[1] = {0x81}; // -127 → -1
    decode_texels(FMT_R8_SNORM, sn, 1, 1, 1, o);
    CHECK(o[0] == -1.0f);
    const uint8_t blue[3] = {0, 0, 255};
    decode_texels(FMT_R8G8B8_BLUESCREEN, blue, 3, 1, 1, o);
    CHECK(o[3] == 0.0f);
}

TEST_CASE("8-bit formats convert exactly through RGBA8 images") {
    std::vector<uint8_t> bytes(4 * 4 * 4);
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = uint8_t(i * 37);
    Texture img = surface_to_image(FMT_R8G8B8A8_UNORM, bytes.data(), bytes.size(), 4, 4);
    REQUIRE(!is_float(img));
    CHECK(img.data == bytes);
    std::vector<uint8_t> bgra(bytes.size());
    image_to_surface(img, FMT_B8G8R8A8_UNORM, bgra.data(), bgra.size());
    CHECK(bgra[0] == bytes[2]);
    CHECK(bgra[2] == bytes[0]);
    Texture back = surface_to_image(FMT_B8G8R8A8_UNORM, bgra.data(), bgra.size(), 4, 4);
    CHECK(back.data == bytes);
}

TEST_CASE("special formats") {
    float in[8] = {1.5f, 0.25f, 100.0f, 1, 0, 0.0625f, 3.0f, 1};
    uint8_t buf[8];
    float out[8];
    encode_texels(FMT_R11G11B10_FLOAT, in, 2, 1, buf, 8);
    decode_texels(FMT_R11G11B10_FLOAT, buf, 8, 2, 1, out);
    for (int i : {0, 1, 2, 4, 5, 6}) CHECK(out[i] == Approx(in[i]).epsilon(1.0 / 32));
    encode_texels(FMT_R9G9B9E5_SHAREDEXP, in, 2, 1, buf, 8);
    decode_texels(FMT_R9G9B9E5_SHAREDEXP, buf, 8, 2, 1, out);
    CHECK(out[2] == Approx(100.0f).epsilon(0.01));
    CHECK(out[0] == Approx(1.5f).margin(100.0f / 256));
    CHECK_THROWS_AS(decode_texels(FMT_BC1_UNORM, buf, 8, 4, 4, out), sdk::Error);
    CHECK_THROWS_AS(decode_texels(FMT_R8G8B8A8_UNORM, buf, 3, 1, 1, out), sdk::Error);
}

TEST_CASE("P8 expands through its palette") {
    std::vector<uint8_t> pal(1024);
    for (int i = 0; i < 256; ++i) {
        pal[i * 4] = uint8_t(i);
        pal[i * 4 + 1] = uint8_t(255 - i);
        pal[i * 4 + 3] = 255;
    }
    const uint8_t idx[2] = {3, 200};
    Texture img = surface_to_image(FMT_P8, idx, 2, 2, 1, pal.data());
    REQUIRE(!is_float(img));
    CHECK(img.data[0] == 3);
    CHECK(img.data[1] == 252);
    CHECK(img.data[4] == 200);
}

TEST_CASE("sRGB transfer functions invert each other") {
    for (int i = 0; i <= 255; ++i) {
        float v = i / 255.0f;
        CHECK(linear_to_srgb(srgb_to_linear(v)) == Approx(v).margin(1e-5));
    }
    CHECK(srgb_to_linear(0.5f) == Approx(0.214041f).margin(1e-5));
}
