// `format: auto` picks by content (DXT1 opaque, DXT1 + ONEBITALPHA cut-out,
// DXT5 smooth alpha, compressed and P8 input kept), and ONEBITALPHA follows
// cut-out DXT1 data however DXT1 was chosen.
#include "test_support.hpp"
#include "vtf_formats.hpp"
#include "xtf_reader.hpp"
#include "xtf_writer.hpp"

#include "assetforge/plugin.hpp"
#include "core/png_io.hpp"

#include <catch2/catch.hpp>

#include <cstring>

using namespace af::xtf;

namespace {

enum class Alpha { Opaque, CutOut, Smooth };

// A real image (a fixture's 64x64 source, smooth alpha) with its alpha made
// opaque, cut at 128, or left as it is.
af::Texture source_image(Alpha alpha) {
    af::Texture png = af::read_png_file(xtftest::data_dir() / "dxt1_64x64_mips" / "source.png");
    af::TextureDesc d;
    d.format = af::FMT_R8G8B8A8_UNORM;
    d.width = png.desc.width;
    d.height = png.desc.height;
    af::Texture t(d);
    std::memcpy(t.data.data(), png.data.data(), t.data.size());
    for (size_t i = 3; i < t.data.size(); i += 4) {
        if (alpha == Alpha::Opaque) t.data[i] = 255;
        if (alpha == Alpha::CutOut) t.data[i] = t.data[i] < 128 ? 0 : 255;
    }
    return t;
}

XtfFile written(const std::vector<uint8_t>& bytes) { return read_xtf(bytes.data(), bytes.size(), xtftest::host()); }

bool needs_codec() {
    if (xtftest::bc_codec_available()) return false;
    WARN("skipped: DXT encoding needs the BC codec plugin (af_bc), not built here");
    return true;
}

constexpr uint32_t kAlphaFlags = vtfflag::onebitalpha | vtfflag::eightbitalpha;

// DXT1 blocks in the three-colour mode with a transparent texel.
size_t cutout_blocks(const af::Texture& t) {
    size_t n = 0;
    for (size_t o = 0; o + 8 <= t.data.size(); o += 8) {
        const uint16_t c0 = uint16_t(t.data[o] | t.data[o + 1] << 8), c1 = uint16_t(t.data[o + 2] | t.data[o + 3] << 8);
        uint32_t idx;
        std::memcpy(&idx, &t.data[o + 4], 4);
        if (c0 <= c1 && (idx & (idx >> 1) & 0x55555555u)) ++n;
    }
    return n;
}

} // namespace

TEST_CASE("auto: an opaque image is written as DXT1 without alpha flags", "[xtf][auto]") {
    if (needs_codec()) return;
    const XtfFile x = written(write_xtf(xtftest::host(), source_image(Alpha::Opaque), {}));
    CHECK(vtf_format_name(x.header.image_format) == "DXT1");
    CHECK((x.header.flags & kAlphaFlags) == 0);
    CHECK(x.image.desc.mips == 7);

    // The size that prompted the rule: an opaque 512x512 image was 1.4 MB of
    // RGBA8888; as DXT1 with mips and fallback it is about 171 KiB.
    af::TextureDesc d;
    d.format = af::FMT_R8G8B8A8_UNORM;
    d.width = d.height = 512;
    af::Texture big(d);
    for (size_t i = 0; i < big.data.size(); ++i) big.data[i] = i % 4 == 3 ? 255 : uint8_t(i / 4 % 512 + i / 2048 % 512);
    const auto bytes = write_xtf(xtftest::host(), big, {});
    CHECK(written(bytes).header.image_format == VTF_DXT1);
    CHECK(bytes.size() < 180 * 1024);
}

TEST_CASE("auto: smooth alpha is written as DXT5 with EIGHTBITALPHA", "[xtf][auto]") {
    if (needs_codec()) return;
    const XtfFile x = written(write_xtf(xtftest::host(), source_image(Alpha::Smooth), {}));
    CHECK(vtf_format_name(x.header.image_format) == "DXT5");
    CHECK((x.header.flags & kAlphaFlags) == vtfflag::eightbitalpha);
}

TEST_CASE("ONEBITALPHA: cut-out alpha chosen by auto is DXT1 with the flag", "[xtf][auto][onebitalpha]") {
    if (needs_codec()) return;
    // Through the container, as a pipeline writes a PNG it was given.
    af::Texture t = source_image(Alpha::CutOut);
    af_texture ct{};
    af::sdk::export_texture(xtftest::host(), t, &ct);
    af_kv kv[] = {{"format", "auto"}};
    af_options o{kv, 1};
    xtftest::ByteSink out;
    af_error err{};
    const af_status st = xtftest::container("xtf")->write(xtftest::host(), &ct, &o, &out.sink, &err);
    xtftest::host()->free(ct.data);
    INFO(err.message);
    REQUIRE(st == AF_OK);
    const XtfFile x = written(out.bytes);
    CHECK(x.header.image_format == VTF_DXT1); // id 13, never 20
    CHECK((x.header.flags & kAlphaFlags) == vtfflag::onebitalpha);
    CHECK(cutout_blocks(x.image) > 0);
}

TEST_CASE("ONEBITALPHA: DXT1 asked for by name gets the flag when its data has cut-outs", "[xtf][onebitalpha]") {
    XtfWriteOptions dxt1;
    dxt1.format = VTF_DXT1;

    // Already-compressed blocks: a 4x4 texture of one three-colour block with
    // texel 0 transparent (index 3), every other texel colour 0.
    af::TextureDesc d;
    d.format = af::FMT_BC1_UNORM;
    d.width = d.height = 4;
    d.mips = 3;
    af::Texture blocks(d);
    for (uint32_t m = 0; m < 3; ++m) {
        const uint8_t block[8] = {0x00, 0x10, 0xFF, 0xFF, 0x03, 0x00, 0x00, 0x00}; // c0 0x1000 <= c1 0xFFFF
        std::memcpy(blocks.surface(0, 0, m).data, block, 8);
    }
    dxt1.fallback = false;
    dxt1.reflectivity = std::array<float, 3>{0, 0, 0}; // nothing to decode: runs without the codec
    XtfFile x = written(write_xtf(xtftest::host(), blocks, dxt1));
    CHECK(x.header.image_format == VTF_DXT1);
    CHECK((x.header.flags & kAlphaFlags) == vtfflag::onebitalpha);

    // The same block in four-colour order (c0 > c1): index 3 is a colour, no flag.
    for (uint32_t m = 0; m < 3; ++m) {
        const uint8_t block[8] = {0xFF, 0xFF, 0x00, 0x10, 0x03, 0x00, 0x00, 0x00};
        std::memcpy(blocks.surface(0, 0, m).data, block, 8);
    }
    x = written(write_xtf(xtftest::host(), blocks, dxt1));
    CHECK((x.header.flags & kAlphaFlags) == 0);

    // Encoded here from a cut-out image.
    if (needs_codec()) return;
    dxt1.fallback = true;
    dxt1.reflectivity.reset();
    x = written(write_xtf(xtftest::host(), source_image(Alpha::CutOut), dxt1));
    CHECK(x.header.image_format == VTF_DXT1);
    CHECK((x.header.flags & kAlphaFlags) == vtfflag::onebitalpha);
    // And an opaque one stays without.
    x = written(write_xtf(xtftest::host(), source_image(Alpha::Opaque), dxt1));
    CHECK((x.header.flags & kAlphaFlags) == 0);
}

TEST_CASE("auto: compressed and paletted textures keep their format", "[xtf][auto]") {
    struct Case {
        uint32_t in;
        int32_t expect;
    };
    for (const Case c : {Case{af::FMT_BC1_UNORM, VTF_DXT1}, Case{af::FMT_BC2_UNORM_SRGB, VTF_DXT3},
                         Case{af::FMT_BC3_UNORM, VTF_DXT5}, Case{af::FMT_P8, VTF_P8}}) {
        INFO(af::format_info(c.in)->name);
        af::TextureDesc d;
        d.format = c.in;
        d.width = d.height = 8;
        d.mips = 4;
        af::Texture t(d);
        for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = uint8_t(i * 13 + 5);
        for (size_t i = 0; i < t.palette.size(); ++i) t.palette[i] = uint8_t(i);
        XtfWriteOptions o;
        o.fallback = c.in == af::FMT_P8; // a DXT fallback would need the codec
        o.reflectivity = std::array<float, 3>{0.5f, 0.5f, 0.5f};
        const XtfFile x = written(write_xtf(xtftest::host(), t, o));
        CHECK(x.header.image_format == c.expect);
        CHECK((x.image.data == t.data)); // copied, not re-encoded
    }
}

TEST_CASE("auto: without a DXT codec the write fails and says why", "[xtf][auto]") {
    af_host no_codec = *xtftest::host();
    no_codec.convert = [](const af_surface*, af_surface*, const af_options*, af_error* e) -> af_status {
        std::snprintf(e->message, sizeof e->message, "no codec plugin handles BC1_UNORM");
        e->code = AF_ERR_UNSUPPORTED;
        return AF_ERR_UNSUPPORTED;
    };
    std::string message;
    try {
        write_xtf(&no_codec, source_image(Alpha::Opaque), {});
    } catch (const af::sdk::Error& e) {
        message = e.what();
    }
    CHECK_THAT(message, Catch::Contains("format auto picks DXT1") && Catch::Contains("opaque") &&
                            Catch::Contains("no codec plugin handles BC1_UNORM") &&
                            Catch::Contains("format: BGRA8888"));
    // Asked for by name, an uncompressed format still needs no codec.
    XtfWriteOptions bgra;
    bgra.format = VTF_BGRA8888;
    CHECK(written(write_xtf(&no_codec, source_image(Alpha::Opaque), bgra)).header.image_format == VTF_BGRA8888);
}

// Not a content choice: a PC VTF converted to XTF stays in its Valve format
// (what `assetforge convert a.vtf b.xtf` relies on to keep the pixels exact).
TEST_CASE("auto: a texture read from a VTF keeps the VTF's format", "[xtf][auto][vtf]") {
    const af_host* h = xtftest::host();
    const auto file = xtftest::read_bytes(xtftest::data_dir() / "bgra8888_64x64_mips" / "bgra8888_64x64_mips.xtf");
    af_input in = xtftest::input_of(file, "a.xtf");
    af_texture tex{};
    af_error err{};
    REQUIRE(xtftest::container("xtf")->read(h, &in, nullptr, &tex, &err) == AF_OK);
    af_kv off[] = {{"thumbnail", "off"}};
    af_options o{off, 1};
    xtftest::ByteSink vtf;
    REQUIRE(xtftest::container("vtf")->write(h, &tex, &o, &vtf.sink, &err) == AF_OK);
    h->free(tex.data);

    af_input vin = xtftest::input_of(vtf.bytes, "a.vtf");
    REQUIRE(xtftest::container("vtf")->read(h, &vin, nullptr, &tex, &err) == AF_OK);
    xtftest::ByteSink xtf;
    const af_options none{nullptr, 0};
    const af_status st = xtftest::container("xtf")->write(h, &tex, &none, &xtf.sink, &err);
    const af::Texture read_back = af::sdk::import_texture(tex);
    h->free(tex.data);
    INFO(err.message);
    REQUIRE(st == AF_OK);
    const XtfFile x = written(xtf.bytes);
    CHECK(x.header.image_format == VTF_BGRA8888);
    CHECK((x.image.data == read_back.data));
}
