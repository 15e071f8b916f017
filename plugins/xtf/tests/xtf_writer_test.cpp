// Write → read round trips over every format and shape, and the writer's refusals.
#include "test_support.hpp"
#include "vtf_formats.hpp"
#include "xtf_reader.hpp"
#include "xtf_writer.hpp"

#include "assetforge/plugin.hpp"
#include "core/png_io.hpp"

#include <catch2/catch.hpp>

#include <random>

using namespace af::xtf;
using xtftest::xtftest_opts;

namespace {

af::Texture random_texture(uint32_t fmt, uint32_t w, uint32_t h, uint32_t d, uint32_t mips, uint32_t layers,
                           uint32_t faces, uint32_t seed) {
    af::TextureDesc desc;
    desc.format = fmt;
    desc.width = w;
    desc.height = h;
    desc.depth = d;
    desc.mips = mips;
    desc.layers = layers;
    desc.faces = faces;
    desc.flags = faces == 6 ? AF_TEX_CUBE : 0;
    af::Texture t(desc);
    std::mt19937 rng(seed);
    for (auto& b : t.data) b = uint8_t(rng());
    for (auto& b : t.palette) b = uint8_t(rng());
    return t;
}

std::string message_of(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const af::sdk::Error& e) {
        return e.what();
    }
    return "";
}

} // namespace

TEST_CASE("xtf writer: write → read round trip for every format and shape", "[xtf][writer]") {
    struct Shape {
        uint32_t w, h, d, layers, faces;
        bool nomip, fallback;
    };
    const Shape shapes[] = {{16, 8, 1, 1, 1, false, true},  {8, 32, 1, 3, 1, false, true},
                            {8, 8, 1, 1, 6, false, true},   {32, 32, 1, 2, 6, true, true},
                            {16, 16, 1, 1, 1, true, false}, {64, 4, 1, 2, 1, false, false},
                            {8, 4, 4, 1, 1, false, false},  {4, 4, 8, 2, 1, true, false}};
    uint32_t seed = 1;
    for (int32_t vf = 0; vf < kVtfFormatCount; ++vf) {
        if (vf == VTF_DXT1_ONEBITALPHA) continue; // written as DXT1 + flag, tested below
        const uint32_t fmt = *af_format_of(vf);
        const bool dxt = af::format_info(fmt)->compressed();
        for (const Shape& s : shapes) {
            if (dxt && s.d > 1) continue;
            INFO(vtf_format_name(vf) << " " << s.w << "x" << s.h << "x" << s.d << " frames " << s.layers << " faces "
                                     << s.faces << " nomip " << s.nomip << " fallback " << s.fallback);
            const uint32_t mips = s.nomip ? 1 : af::full_mip_count(s.w, s.h, s.d);
            af::Texture in = random_texture(fmt, s.w, s.h, s.d, mips, s.layers, s.faces, seed++);
            XtfWriteOptions o;
            o.format = vf;
            o.nomip = s.nomip;
            // DXT fallbacks are resampled and re-encoded: that needs the BC codec.
            o.fallback = s.fallback && (!dxt || xtftest::bc_codec_available());
            if (dxt && !xtftest::bc_codec_available()) o.reflectivity = std::array<float, 3>{0.5f, 0.25f, 0.125f};
            const auto bytes = write_xtf(xtftest::host(true), in, o);
            XtfFile x = read_xtf(bytes.data(), bytes.size(), xtftest::host(true));
            CHECK(x.header.image_format == vf);
            CHECK(x.image.desc.layers == s.layers);
            CHECK(x.image.desc.faces == s.faces);
            CHECK(x.image.desc.mips == mips);
            CHECK(x.image.desc.depth == s.d);
            CHECK(bool(x.header.flags & vtfflag::nomip) == s.nomip);
            CHECK(bool(x.header.flags & vtfflag::envmap) == (s.faces == 6));
            CHECK(bool(x.fallback.desc.width) == (o.fallback && s.d == 1));
            CHECK((x.image.data == in.data));
            if (vf == VTF_P8) CHECK((x.image.palette == in.palette));
            CHECK(bytes.size() == x.layout.file_size);
            CHECK((bytes.size() <= 512 || bytes.size() % 512 == 0));
        }
    }
}

TEST_CASE("xtf writer: regenerates the mip chain and fallback from a single mip", "[xtf][writer]") {
    af::Texture in = random_texture(af::FMT_R8G8B8A8_UNORM, 128, 256, 1, 1, 1, 1, 99);
    const auto bytes = write_xtf(xtftest::host(), in, xtftest_opts(VTF_BGRA8888));
    XtfFile x = read_xtf(bytes.data(), bytes.size(), xtftest::host());
    CHECK(x.image.desc.mips == 9);
    CHECK(x.header.fallback_width == 4); // largest side 8, aspect kept
    CHECK(x.header.fallback_height == 8);
    CHECK(x.layout.fallback_mips == 4);
    CHECK(x.header.image_offset % 512 == 0);
    CHECK(x.header.lowres_width == 1);
    CHECK(x.header.flags == vtfflag::eightbitalpha);
    // mip 0 is the input, with R and B swapped into BGRA.
    for (size_t i = 0; i < in.data.size() / 4 / 1; i += 4 * 97) {
        const size_t t = i / 4 * 4;
        CHECK(x.image.data[t] == in.data[t + 2]);
        CHECK(x.image.data[t + 2] == in.data[t]);
        CHECK(x.image.data[t + 3] == in.data[t + 3]);
    }
    XtfWriteOptions o = xtftest_opts(VTF_BGRA8888);
    o.fallback = false;
    o.lowres = false;
    const auto b2 = write_xtf(xtftest::host(), in, o);
    XtfFile y = read_xtf(b2.data(), b2.size(), xtftest::host());
    CHECK(y.header.fallback_width == 0);
    CHECK(y.header.lowres_width == 0);
    CHECK(y.header.image_offset == 58); // no fallback: not aligned
    CHECK(y.header.preload_size == 58);
}

TEST_CASE("xtf writer: DXT1 with one-bit alpha is written as id 13 plus ONEBITALPHA", "[xtf][writer]") {
    af::Texture in = random_texture(af::FMT_BC1_UNORM, 16, 16, 1, 5, 1, 1, 5);
    XtfWriteOptions o = xtftest_opts(VTF_DXT1_ONEBITALPHA);
    o.fallback = false;
    o.reflectivity = std::array<float, 3>{0, 0, 0};
    const auto bytes = write_xtf(xtftest::host(), in, o);
    XtfFile x = read_xtf(bytes.data(), bytes.size(), xtftest::host());
    CHECK(x.header.image_format == VTF_DXT1);
    CHECK((x.header.flags & vtfflag::onebitalpha));
    CHECK((x.image.data == in.data));
}

TEST_CASE("xtf writer: refuses what XTF cannot represent", "[xtf][writer]") {
    auto npot = random_texture(af::FMT_R8G8B8A8_UNORM, 12, 8, 1, 1, 1, 1, 3);
    auto m = message_of([&] { write_xtf(xtftest::host(), npot, xtftest_opts(VTF_BGRA8888)); });
    CHECK_THAT(m, Catch::Contains("12x8x1 is not a power-of-two size") && Catch::Contains("swizzled"));
    auto odd = random_texture(af::FMT_BC1_UNORM, 6, 6, 1, 1, 1, 1, 3);
    m = message_of([&] { write_xtf(xtftest::host(), odd, xtftest_opts(VTF_DXT1, true)); });
    CHECK_THAT(m, Catch::Contains("multiple of 4"));
    auto five = random_texture(af::FMT_R8G8B8A8_UNORM, 8, 8, 1, 1, 1, 5, 3);
    m = message_of([&] { write_xtf(xtftest::host(), five, {}); });
    CHECK_THAT(m, Catch::Contains("6-face cubemap"));
    // 300 P8 frames: the palettes alone overflow the 16-bit preload fields.
    auto many = random_texture(af::FMT_P8, 4, 4, 1, 3, 300, 1, 3);
    m = message_of([&] { write_xtf(xtftest::host(), many, xtftest_opts(VTF_P8)); });
    CHECK_THAT(m, Catch::Contains("16-bit preload size"));
    af_kv kv[] = {{"format", "RGBA9999"}};
    af_options opts{kv, 1};
    m = message_of([&] { parse_xtf_write_options(&opts); });
    CHECK_THAT(m, Catch::Contains("BGRA8888"));
}

TEST_CASE("xtf writer: options parse", "[xtf][writer]") {
    af_kv kv[] = {{"format", "dxt5"},
                  {"fallback", "4x8"},
                  {"lowres", "false"},
                  {"flags", "0x08000000"},
                  {"nomip", "true"},
                  {"dither", "off"},
                  {"reflectivity", "0.1,0.2,0.3"}};
    af_options opts{kv, 7};
    XtfWriteOptions o = parse_xtf_write_options(&opts);
    CHECK(o.format == VTF_DXT5);
    CHECK(o.fallback_width == 4);
    CHECK(o.fallback_height == 8);
    CHECK(o.lowres == false);
    CHECK(o.flags == 0x08000000u);
    CHECK(o.nomip == true);
    CHECK_FALSE(o.dither);
    CHECK((*o.reflectivity)[2] == Approx(0.3f));
    af_kv kv2[] = {{"fallback", "none"}};
    af_options o2{kv2, 1};
    CHECK_FALSE(parse_xtf_write_options(&o2).fallback);
}

TEST_CASE("xtf writer: P8 through libimagequant, per-frame palettes, dithering on and off", "[xtf][writer][p8]") {
    af::Texture png = af::read_png_file(xtftest::data_dir() / "p8_32x32_mips" / "source.png");
    af::Texture other = af::read_png_file(xtftest::data_dir() / "bgra8888_anim2_32x32_mips" / "source_frame0.png");
    af::TextureDesc d;
    d.format = af::FMT_R8G8B8A8_UNORM;
    d.width = d.height = 32;
    d.layers = 2;
    af::Texture in(d);
    std::memcpy(in.surface(0, 0, 0).data, png.data.data(), png.data.size());
    std::memcpy(in.surface(1, 0, 0).data, other.data.data(), other.data.size());
    for (bool dither : {true, false}) {
        XtfWriteOptions o = xtftest_opts(VTF_P8);
        o.dither = dither;
        const auto bytes = write_xtf(xtftest::host(), in, o);
        XtfFile x = read_xtf(bytes.data(), bytes.size(), xtftest::host());
        REQUIRE(x.palettes.size() == 2048);
        CHECK((std::vector<uint8_t>(x.palettes.begin(), x.palettes.begin() + 1024) !=
               std::vector<uint8_t>(x.palettes.begin() + 1024, x.palettes.end())));
        CHECK(x.layout.fallback_mips == 4);
        for (uint32_t f = 0; f < 2; ++f) {
            af::Texture got = xtftest::surface_rgba8(x.image, f, 0, 0);
            const af::Texture& src = f == 0 ? png : other;
            // Premultiplied: libimagequant rightly merges the colours of
            // fully transparent texels.
            double err = 0;
            for (size_t i = 0; i < got.data.size(); ++i) {
                const size_t a = i / 4 * 4 + 3;
                const double g = i == a ? got.data[i] : got.data[i] * got.data[a] / 255.0;
                const double s = i == a ? src.data[i] : src.data[i] * src.data[a] / 255.0;
                err += std::abs(g - s);
            }
            err /= double(got.data.size());
            INFO("frame " << f << " dither " << dither << " mean abs error " << err);
            CHECK(err < 4.0);
        }
    }
}

// (`auto` picks by content now: xtf_auto_format_test.cpp.)
TEST_CASE("xtf writer: any texture format goes in, converted to the format named", "[xtf][writer]") {
    struct Case {
        uint32_t in;
        int32_t expect;
    };
    const Case cases[] = {{af::FMT_R8G8B8A8_UNORM_SRGB, VTF_RGBA8888},
                          {af::FMT_B8G8R8X8_UNORM, VTF_BGRX8888},
                          {af::FMT_R32G32B32A32_FLOAT, VTF_RGBA16161616F},
                          {af::FMT_R8G8_UNORM, VTF_BGRA8888},
                          {af::FMT_A8_UNORM, VTF_A8},
                          {af::FMT_B5G6R5_UNORM, VTF_BGR565}};
    for (const Case& c : cases) {
        INFO(af::format_info(c.in)->name);
        af::TextureDesc d;
        d.format = c.in;
        d.width = 8;
        d.height = 8;
        af::Texture in(d);
        if (c.in == af::FMT_R32G32B32A32_FLOAT) {
            for (size_t i = 0; i < in.data.size() / 4; ++i) {
                const float v = float(i % 17) / 16.0f;
                std::memcpy(&in.data[i * 4], &v, 4);
            }
        } else {
            for (size_t i = 0; i < in.data.size(); ++i) in.data[i] = uint8_t(i * 7);
        }
        const auto bytes = write_xtf(xtftest::host(), in, xtftest_opts(c.expect));
        XtfFile x = read_xtf(bytes.data(), bytes.size(), xtftest::host());
        CHECK(x.header.image_format == c.expect);
        CHECK(x.image.desc.mips == 4);
        // mip 0 carries the input's values (exactly, or to the target's precision).
        af::Texture a = af::to_float(xtftest::surface_rgba8(x.image, 0, 0, 0));
        af::Texture b = af::to_float(xtftest::surface_rgba8(in, 0, 0, 0));
        double err = 0;
        for (size_t i = 0; i < floats(a).size(); ++i)
            err = std::max(err, double(std::abs(floats(a)[i] - floats(b)[i])));
        CHECK(err <= 1.0 / 255.0 + 1e-6);
    }
}
