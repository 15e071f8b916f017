// Surface loops and the plugin's C entry: determinism, odd sizes, errors.
#include "assetforge/pixels.hpp"
#include "assetforge/plugin.hpp"
#include "test_util.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <random>

extern "C" const af_plugin* assetforge_plugin_entry(const af_host* host);

using namespace bc_test;

namespace {
const uint32_t kBc15[] = {af::FMT_BC1_UNORM, af::FMT_BC2_UNORM, af::FMT_BC3_UNORM, af::FMT_BC4_UNORM,
                          af::FMT_BC4_SNORM, af::FMT_BC5_UNORM, af::FMT_BC5_SNORM};

af::Texture noise(uint32_t w, uint32_t h, uint32_t seed) {
    std::mt19937 rng(seed);
    af::Texture img = af::rgba8_picture(w, h);
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x) {
            uint8_t* p = &img.data[(size_t(y) * w + x) * 4];
            p[0] = uint8_t(x * 17 + (rng() & 15)), p[1] = uint8_t(y * 23 + (rng() & 15)), p[2] = uint8_t(x * y);
            p[3] = uint8_t(200 + (rng() & 31));
        }
    return img;
}

// A w×h RGBA8 picture of one texel value.
af::Texture solid(uint32_t w, uint32_t h, std::array<uint8_t, 4> texel) {
    af::Texture img = af::rgba8_picture(w, h);
    for (size_t i = 0; i < img.data.size(); i += 4) std::copy(texel.begin(), texel.end(), img.data.begin() + i);
    return img;
}
} // namespace

TEST_CASE("Same bytes for 1 thread and many threads") {
    auto img = load("a_palm_128.png");
    for (uint32_t fmt : kBc15)
        for (int lvl : {0, 3}) {
            INFO("format " << fmt << " level " << lvl);
            auto serial = encode(img, fmt, level(lvl), false);
            auto parallel = encode(img, fmt, level(lvl), true);
            REQUIRE(serial == parallel);
            REQUIRE(decode(serial, fmt, img.desc.width, img.desc.height, false).data ==
                    decode(serial, fmt, img.desc.width, img.desc.height, true).data);
        }
}

TEST_CASE("Odd sizes: 1x1, 3x5, 13x7 pad edge blocks by clamping") {
    for (auto [w, h] : {std::pair{1u, 1u}, {3u, 5u}, {13u, 7u}}) {
        auto img = noise(w, h, w * 31 + h);
        for (uint32_t fmt : kBc15) {
            INFO(w << "x" << h << " format " << fmt);
            auto blocks = encode(img, fmt, level(3), true);
            REQUIRE(blocks.size() == ((w + 3) / 4) * ((h + 3) / 4) * (af::format_info(fmt)->block_bytes));
            auto out = decode(blocks, fmt, w, h, true);
            REQUIRE(out.data.size() == img.data.size());
            if (fmt == af::FMT_BC4_UNORM) CHECK(psnr(img, out, {0}) > 35);
            if (fmt == af::FMT_BC1_UNORM) CHECK(psnr(img, out, {0, 1, 2}) > 25);
        }
        // 1×1: the padded block is solid, so BC3 alpha and BC4 reproduce the texel exactly.
        if (w == 1) {
            auto out = decode(encode(img, af::FMT_BC3_UNORM, level(0)), af::FMT_BC3_UNORM, 1, 1);
            CHECK(out.data[3] == img.data[3]);
            for (int c = 0; c < 3; ++c) CHECK(std::abs(int(out.data[c]) - img.data[c]) <= 1);
            out = decode(encode(img, af::FMT_BC4_UNORM, level(0)), af::FMT_BC4_UNORM, 1, 1);
            CHECK(out.data[0] == img.data[0]);
        }
    }
    SECTION("the padding repeats the last column and row") {
        // 5×5 image: columns 4.. of block (1,0) are clamped copies of column 4.
        af::Texture img = af::rgba8_picture(5, 5);
        for (int y = 0; y < 5; ++y)
            for (int x = 0; x < 5; ++x)
                img.data[(y * 5 + x) * 4] = uint8_t(x == 4 ? 200 : 10), img.data[(y * 5 + x) * 4 + 3] = 255;
        auto blocks = encode(img, af::FMT_BC4_UNORM, level(0));
        // block (1,0) sees only the value 200 → solid block
        uint8_t v[16];
        af::bc::decode_bc4_bytes(blocks.data() + 8, false, v);
        for (uint8_t x : v) CHECK(x == 200);
    }
}

TEST_CASE("Float output: SNORM exact, unsigned = bytes / 255") {
    uint8_t blk[8] = {0x7F, 0x81, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}; // 127, -127, all index 7
    FakeHost host;
    std::vector<float> out(16 * 4);
    af_surface src{af::FMT_BC4_SNORM, 4, 4, 1, blk, 8};
    af_surface dst{af::FMT_R32G32B32A32_FLOAT, 4, 4, 1, reinterpret_cast<uint8_t*>(out.data()), out.size() * 4};
    af::bc::decode_surface(host, src, dst);
    CHECK(out[0] == Approx((1 * 127.0 + 6 * -127.0) / 7 / 127));
    CHECK(out[3] == 1.0f);
    std::vector<uint16_t> half(16 * 4);
    af_surface hdst{af::FMT_R16G16B16A16_FLOAT, 4, 4, 1, reinterpret_cast<uint8_t*>(half.data()), half.size() * 2};
    af::bc::decode_surface(host, src, hdst);
    CHECK(half[3] == 0x3c00); // 1.0
}

TEST_CASE("Float input encodes like the equivalent bytes") {
    auto img = load("d_wallpaper_128.png");
    std::vector<float> f(img.data.size());
    for (size_t i = 0; i < f.size(); ++i) f[i] = img.data[i] / 255.0f;
    af::Texture fimg = af::rgba32f_picture(img.desc.width, img.desc.height);
    std::memcpy(fimg.data.data(), f.data(), fimg.data.size());
    for (uint32_t fmt : {af::FMT_BC1_UNORM, af::FMT_BC3_UNORM, af::FMT_BC5_UNORM})
        CHECK(encode(img, fmt, level(0)) == encode(fimg, fmt, level(0), false, af::FMT_R32G32B32A32_FLOAT));
}

TEST_CASE("BC5 normal-map mode renormalises before encoding") {
    // A vector of length 0.5 along +x: (0.5, 0, 0) → stored as (1, 0) after renormalisation.
    const af::Texture img = solid(4, 4, {191, 128, 128, 255});
    auto o = level(3);
    o.normal_map = true;
    auto out = decode(encode(img, af::FMT_BC5_UNORM, o), af::FMT_BC5_UNORM, 4, 4);
    CHECK(out.data[0] == 255);
    CHECK(std::abs(int(out.data[1]) - 128) <= 1);
    o.normal_map = false;
    out = decode(encode(img, af::FMT_BC5_UNORM, o), af::FMT_BC5_UNORM, 4, 4);
    CHECK(out.data[0] == 191);
}

TEST_CASE("Plugin entry: codec table, options and errors") {
    FakeHost host;
    make_parallel(host, true);
    const af_plugin* p = assetforge_plugin_entry(host);
    REQUIRE(p);
    REQUIRE(p->codec_count == 1);
    const af_codec* c = p->codecs[0];
    CHECK(std::string(c->name) == "bc");
    std::vector<uint32_t> ids(c->formats, c->formats + c->format_count);
    for (uint32_t id = 70; id <= 84; ++id) CHECK(std::count(ids.begin(), ids.end(), id) == 1);
    for (uint32_t id = 94; id <= 99; ++id) CHECK(std::count(ids.begin(), ids.end(), id) == 1);

    auto img = noise(8, 8, 1);
    std::vector<uint8_t> blocks(32);
    af_surface src{af::FMT_R8G8B8A8_UNORM, 8, 8, 1, img.data.data(), img.data.size()};
    af_surface dst{af::FMT_BC1_UNORM, 8, 8, 1, blocks.data(), blocks.size()};
    af_error err{};
    af::sdk::OptionList opts;
    opts.set("quality", "high");
    opts.set("weights", "perceptual");
    opts.set("alpha_threshold", "0");
    af_options ov = opts.view();
    CHECK(c->encode(host, &src, &dst, &ov, &err) == AF_OK);

    SECTION("bad option values name the option and the choices") {
        opts.set("quality", "ultra");
        ov = opts.view();
        CHECK(c->encode(host, &src, &dst, &ov, &err) == AF_ERR_USAGE);
        CHECK(std::string(err.message).find("fast, normal, high, max") != std::string::npos);
        opts.set("quality", "fast");
        opts.set("level", "11");
        ov = opts.view();
        CHECK(c->encode(host, &src, &dst, &ov, &err) == AF_ERR_USAGE);
    }
    SECTION("wrong compressed size is invalid data") {
        af_surface bad{af::FMT_BC1_UNORM, 8, 8, 1, blocks.data(), 31};
        std::vector<uint8_t> rgba(8 * 8 * 4);
        af_surface out{af::FMT_R8G8B8A8_UNORM, 8, 8, 1, rgba.data(), rgba.size()};
        CHECK(c->decode(host, &bad, &out, nullptr, &err) == AF_ERR_INVALID_DATA);
        CHECK(std::string(err.message).find("needs 32") != std::string::npos);
    }
    SECTION("unsupported output format") {
        std::vector<uint8_t> rgba(8 * 8 * 4);
        af_surface out{af::FMT_B8G8R8A8_UNORM, 8, 8, 1, rgba.data(), rgba.size()};
        CHECK(c->decode(host, &dst, &out, nullptr, &err) == AF_ERR_USAGE);
    }
}

TEST_CASE("Volume surfaces: depth slices are coded one after another") {
    // 5×3×2: two slices, each one block row of two blocks; slice 1 is slice 0 + 100 in red.
    af::Texture img = af::rgba8_picture(5, 6);
    for (int z = 0; z < 2; ++z)
        for (int i = 0; i < 15; ++i) {
            uint8_t* p = &img.data[size_t(z * 15 + i) * 4];
            p[0] = uint8_t(i * 5 + z * 100), p[1] = 7, p[2] = 9, p[3] = 255;
        }
    FakeHost host;
    make_parallel(host, true);
    std::vector<uint8_t> blocks(af::surface_bytes(af::FMT_BC4_UNORM, 5, 3, 2));
    REQUIRE(blocks.size() == 2 * 2 * 8);
    af_surface src{af::FMT_R8G8B8A8_UNORM, 5, 3, 2, img.data.data(), img.data.size()};
    af_surface dst{af::FMT_BC4_UNORM, 5, 3, 2, blocks.data(), blocks.size()};
    af::bc::encode_surface(host, src, dst, level(6));
    std::vector<uint8_t> out(img.data.size());
    af_surface back{af::FMT_R8G8B8A8_UNORM, 5, 3, 2, out.data(), out.size()};
    af::bc::decode_surface(host, dst, back);
    for (size_t i = 0; i < out.size(); i += 4)
        CHECK(std::abs(int(out[i]) - img.data[i]) <= 5); // 8 levels over a 55-wide block
}

TEST_CASE("A cancelled host stops the codec with AF_ERR_CANCELLED") {
    FakeHost host;
    host.cancel();
    const af_plugin* p = assetforge_plugin_entry(host);
    auto img = noise(16, 16, 2);
    std::vector<uint8_t> blocks(af::surface_bytes(af::FMT_BC1_UNORM, 16, 16));
    af_surface src{af::FMT_R8G8B8A8_UNORM, 16, 16, 1, img.data.data(), img.data.size()};
    af_surface dst{af::FMT_BC1_UNORM, 16, 16, 1, blocks.data(), blocks.size()};
    af_error err{};
    CHECK(p->codecs[0]->encode(host, &src, &dst, nullptr, &err) == AF_ERR_CANCELLED);
}

TEST_CASE("8-bit SNORM input is offset binary and round-trips solid values") {
    for (int v : {0, 1, 64, 128, 200, 255}) {
        const af::Texture img = solid(4, 4, {uint8_t(v), uint8_t(255 - v), 0, 255});
        auto out = decode(encode(img, af::FMT_BC5_SNORM, level(0)), af::FMT_BC5_SNORM, 4, 4);
        CHECK(int(out.data[0]) == std::max(v, 1)); // byte 0 would be -128, which reads as -127 (byte 1)
        CHECK(int(out.data[1]) == std::max(255 - v, 1));
    }
}

TEST_CASE("BC6H to bytes equals the float decode clamped to [0, 1] and rounded") {
    // Random blocks (reserved modes included) in both signednesses.
    uint32_t state = 99;
    auto next = [&] { return state = state * 1664525u + 1013904223u; };
    const uint32_t w = 32, h = 32;
    std::vector<uint8_t> blocks(size_t(w / 4) * (h / 4) * 16);
    for (auto& b : blocks) b = uint8_t(next() >> 24);
    for (uint32_t fmt : {af::FMT_BC6H_UF16, af::FMT_BC6H_SF16}) {
        FakeHost host;
        std::vector<uint8_t> bytes(size_t(w) * h * 4);
        std::vector<float> floats(size_t(w) * h * 4);
        af_surface src{fmt, w, h, 1, blocks.data(), blocks.size()};
        af_surface d8{af::FMT_R8G8B8A8_UNORM, w, h, 1, bytes.data(), bytes.size()};
        af_surface df{af::FMT_R32G32B32A32_FLOAT, w, h, 1, reinterpret_cast<uint8_t*>(floats.data()),
                      floats.size() * 4};
        af::bc::decode_surface(host, src, d8);
        af::bc::decode_surface(host, src, df);
        for (size_t i = 0; i < bytes.size(); ++i) {
            INFO("format " << fmt << " value " << i);
            REQUIRE(int(bytes[i]) == int(std::lround(std::clamp(floats[i], 0.0f, 1.0f) * 255.0f)));
        }
    }
}

TEST_CASE("SDK pixel helpers reach the codec through a fake host's convert") {
    FakeHost host;
    const af_plugin* p = assetforge_plugin_entry(host);
    host.use_codec(p->codecs[0]);
    auto img = noise(8, 8, 3);
    std::vector<uint8_t> blocks(af::surface_bytes(af::FMT_BC3_UNORM, 8, 8));
    af_surface bc3{af::FMT_BC3_UNORM, 8, 8, 1, blocks.data(), blocks.size()};
    af::sdk::put_pixels(host, img, bc3);
    const af::Texture back = af::sdk::get_rgba8(host, bc3);
    CHECK(host.convert_calls() == 2);
    CHECK(back.desc.width == 8);
    CHECK(psnr(back, img, {0, 1, 2, 3}) > 25);
    const af::Texture back_f = af::sdk::get_rgba32f(host, bc3);
    CHECK(af::floats(back_f)[3] == Approx(back.data[3] / 255.0f));
    CHECK(host.live_allocations() == 0);
}
