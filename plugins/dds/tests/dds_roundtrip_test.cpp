// Write → read for every format in the table DDS can carry, in every shape
// (odd sizes, mips, cube, array, volume) and header style, checking the
// header the writer produced and every byte of the surfaces.
#include "dds_format.hpp"
#include "dds_layout.hpp"
#include "dds_pixel_format.hpp"
#include "dds_reader.hpp"
#include "dds_writer.hpp"
#include "test_support.hpp"

#include "assetforge/formats.hpp"
#include "assetforge/plugin.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

#include <set>

using namespace dds_test;
using af::dds::Dx10Mode;

namespace {

struct Shape {
    const char* name;
    uint32_t w, h, d, mips, layers, faces;
};

// mips == 0 means the full chain.
const Shape kShapes[] = {
    {"1x1", 1, 1, 1, 1, 1, 1},
    {"3x5", 3, 5, 1, 1, 1, 1},
    {"4x4", 4, 4, 1, 1, 1, 1},
    {"13x7", 13, 7, 1, 1, 1, 1},
    {"256x64", 256, 64, 1, 1, 1, 1},
    {"13x7 mips", 13, 7, 1, 0, 1, 1},
    {"256x64 mips", 256, 64, 1, 0, 1, 1},
    {"cube 4x4 mips", 4, 4, 1, 0, 1, 6},
    {"array 5x3 x3 mips", 5, 3, 1, 2, 3, 1},
    {"cube array 8x8 x2", 8, 8, 1, 2, 2, 6},
    {"volume 4x4x3 mips", 4, 4, 3, 0, 1, 1},
    {"volume 13x7x5", 13, 7, 5, 1, 1, 1},
};

// Formats DDS has no way to store, and why (a new format missing from DDS fails this test).
const std::set<uint32_t> kNotInDds = {
    af::FMT_P8,                // palette DDS files are not supported
    af::FMT_R8G8B8_BLUESCREEN, // VTF-only semantics
    af::FMT_B8G8R8_BLUESCREEN, // VTF-only semantics
    af::FMT_U8V8L8X8,          // mixed signed/unsigned: D3DFMT_X8L8V8U8 (BUMPLUMINANCE) not supported
};

af::TextureDesc desc_for(uint32_t fmt, const Shape& s) {
    af::TextureDesc d;
    d.format = fmt;
    d.width = s.w;
    d.height = s.h;
    d.depth = s.d;
    d.mips = s.mips ? s.mips : af::full_mip_count(s.w, s.h, s.d);
    d.layers = s.layers;
    d.faces = s.faces;
    if (s.faces == 6) d.flags |= AF_TEX_CUBE;
    if (s.d > 1) d.flags |= AF_TEX_VOLUME;
    if (af::format_info(fmt)->srgb()) d.flags |= AF_TEX_SRGB;
    return d;
}

// Writes, checks the header fields, reads back and compares everything.
void round_trip(const af::Texture& t, Dx10Mode mode) {
    std::vector<uint8_t> file = dds_test::write_dds(t, mode);
    af::dds::RawHeader h = af::dds::parse_raw_header(file.data(), file.size());
    const af::FormatInfo* f = af::format_info(t.desc.format);
    if (mode == Dx10Mode::Always) CHECK(h.dx10.has_value());
    if (mode == Dx10Mode::Never) CHECK_FALSE(h.dx10.has_value());
    CHECK(file.size() == h.data_offset() + t.data.size());
    CHECK(h.size == 124);
    CHECK(h.pf.size == 32);
    CHECK((h.flags & 0x1007) == 0x1007);
    CHECK(h.mip_count == t.desc.mips);
    if (f->compressed()) {
        CHECK((h.flags & af::dds::hflag::linearsize));
        CHECK(h.pitch_or_linear_size == af::surface_bytes(t.desc.format, t.desc.width, t.desc.height, 1));
    } else {
        CHECK((h.flags & af::dds::hflag::pitch));
        CHECK(h.pitch_or_linear_size == af::row_pitch(t.desc.format, t.desc.width));
    }
    // A header this writer produced must not trip any consistency check. The one problem it may have is the
    // shape it was asked for: a block-compressed top level that is not whole blocks, which Direct3D refuses.
    af::dds::DdsLayout l = af::dds::describe(file.data(), file.size(), {}, false);
    auto problems = af::dds::consistency_problems(l);
    const bool partial_blocks = f->compressed() && (t.desc.width % f->block_w != 0 || t.desc.height % f->block_h != 0);
    const auto block_problem = std::find_if(problems.begin(), problems.end(), [](const af::dds::Problem& p) {
        return p.message.find("not a multiple of 4") != std::string::npos;
    });
    CHECK((block_problem != problems.end()) == partial_blocks);
    if (block_problem != problems.end()) problems.erase(block_problem);
    for (const auto& p : problems) FAIL_CHECK("problem: " << p.message);

    std::vector<af::dds::Problem> warnings;
    af::Texture back = af::dds::read_dds(file.data(), file.size(), {}, &warnings);
    CHECK(warnings.empty());
    CHECK(back.desc.format == t.desc.format);
    CHECK(back.desc.width == t.desc.width);
    CHECK(back.desc.height == t.desc.height);
    CHECK(back.desc.depth == t.desc.depth);
    CHECK(back.desc.mips == t.desc.mips);
    CHECK(back.desc.layers == t.desc.layers);
    CHECK(back.desc.faces == t.desc.faces);
    CHECK(back.desc.flags == t.desc.flags);
    if (h.dx10) CHECK(back.desc.alpha_mode == t.desc.alpha_mode);
    CHECK(back.data == t.data);
}

} // namespace

TEST_CASE("round trip: every format the table has, every shape, every header style") {
    int written = 0;
    for (const auto& f : af::all_formats()) {
        std::string name(f.name);
        INFO("format " << name << " (" << f.id << ")");
        bool has_dxgi = f.id < af::FMT_AF_BASE;
        bool has_legacy = af::dds::legacy_pixel_format(f.id, false).has_value();
        if (kNotInDds.count(f.id)) {
            af::Texture t = random_texture(desc_for(f.id, kShapes[0]), 1);
            CHECK_THROWS_AS(dds_test::write_dds(t, {}), af::sdk::Error);
            continue;
        }
        CHECK((has_dxgi || has_legacy));
        uint32_t seed = f.id;
        for (const auto& s : kShapes) {
            INFO("shape " << s.name);
            af::Texture t = random_texture(desc_for(f.id, s), ++seed);
            bool needs_dx10 = s.layers > 1;
            if (needs_dx10 && !has_dxgi) {
                CHECK_THROWS_AS(dds_test::write_dds(t, {}), af::sdk::Error);
                continue;
            }
            round_trip(t, Dx10Mode::Auto);
            ++written;
            if (has_dxgi) round_trip(t, Dx10Mode::Always);
            if (has_legacy && !needs_dx10) round_trip(t, Dx10Mode::Never);
            if (!has_dxgi) CHECK_THROWS_AS(dds_test::write_dds(t, Dx10Mode::Always), af::sdk::Error);
            // dx10=never on an sRGB format writes its linear twin's legacy
            // pixel format (a legacy header cannot say sRGB; the bytes are the same).
            const bool twin_legacy =
                !has_legacy && af::dds::legacy_pixel_format(af::with_srgb(f.id, false), false).has_value();
            if (twin_legacy && !needs_dx10) {
                af::Texture back = af::dds::read_dds(dds_test::write_dds(t, Dx10Mode::Never).data(),
                                                     dds_test::write_dds(t, Dx10Mode::Never).size(), {});
                CHECK(back.desc.format == af::with_srgb(f.id, false));
                CHECK(back.data == t.data);
            } else if (!has_legacy) {
                CHECK_THROWS_AS(dds_test::write_dds(t, Dx10Mode::Never), af::sdk::Error);
            }
        }
    }
    CHECK(written > 1000);
}

namespace {
af::dds::RawHeader header_of(uint32_t fmt, uint32_t w, uint32_t h, uint32_t mips, Dx10Mode mode = Dx10Mode::Auto,
                             uint32_t layers = 1, uint32_t faces = 1, uint32_t alpha = AF_ALPHA_UNKNOWN) {
    af::TextureDesc d = dds_test::desc_of(fmt, w, h, mips, layers, faces);
    d.alpha_mode = alpha;
    return af::dds::make_header(d, {mode});
}
} // namespace

TEST_CASE("writer picks legacy headers as texconv does, DX10 where needed") {
    using namespace af::dds;
    // The FlightGear/nvtt header for a 128×128 DXT1 chain, field for field.
    auto h = header_of(af::FMT_BC1_UNORM, 128, 128, 8);
    CHECK_FALSE(h.dx10);
    CHECK(h.flags == 0xA1007);
    CHECK(h.pitch_or_linear_size == 8192);
    CHECK(h.caps == 0x401008);
    CHECK(h.caps2 == 0);
    CHECK(h.pf.flags == pfflag::fourcc);
    CHECK(h.pf.fourcc == fourcc('D', 'X', 'T', '1'));

    CHECK(header_of(af::FMT_BC3_UNORM, 4, 4, 1).pf.fourcc == fourcc('D', 'X', 'T', '5'));
    CHECK(header_of(af::FMT_BC3_UNORM, 4, 4, 1, Dx10Mode::Auto, 1, 1, AF_ALPHA_PREMULTIPLIED).pf.fourcc ==
          fourcc('D', 'X', 'T', '4'));
    CHECK(header_of(af::FMT_BC2_UNORM, 4, 4, 1, Dx10Mode::Auto, 1, 1, AF_ALPHA_PREMULTIPLIED).pf.fourcc ==
          fourcc('D', 'X', 'T', '2'));
    CHECK(header_of(af::FMT_BC4_UNORM, 4, 4, 1).pf.fourcc == fourcc('A', 'T', 'I', '1'));
    CHECK(header_of(af::FMT_BC5_UNORM, 4, 4, 1).pf.fourcc == fourcc('A', 'T', 'I', '2'));
    CHECK(header_of(af::FMT_BC5_SNORM, 4, 4, 1, Dx10Mode::Never).pf.fourcc == fourcc('B', 'C', '5', 'S'));
    CHECK(header_of(af::FMT_R16G16B16A16_FLOAT, 4, 4, 1, Dx10Mode::Never).pf.fourcc == 113);

    // Formats only DX10 can name, and the EchoVR set.
    for (uint32_t fmt : {71u, 72u, 77u, 78u, 83u, 84u, 95u, 96u, 98u, 99u}) {
        auto x = header_of(fmt, 128, 128, 8, Dx10Mode::Always);
        REQUIRE(x.dx10);
        CHECK(x.dx10->dxgi_format == fmt);
        CHECK(x.dx10->dimension == 3);
        CHECK(x.dx10->array_size == 1);
        CHECK(af::dds::serialize_header(x).size() == 148);
    }
    for (uint32_t fmt : {72u, 78u, 84u, 95u, 96u, 98u, 99u}) CHECK(header_of(fmt, 16, 16, 1).dx10);
    CHECK_THROWS_AS(header_of(af::FMT_BC7_UNORM, 4, 4, 1, Dx10Mode::Never), af::sdk::Error);
    // A legacy header cannot say sRGB: dx10=never writes the linear twin's FourCC (texconv -dx9).
    auto dx9 = header_of(af::FMT_BC1_UNORM_SRGB, 4, 4, 1, Dx10Mode::Never);
    CHECK_FALSE(dx9.dx10);
    CHECK(dx9.pf.fourcc == header_of(af::FMT_BC1_UNORM, 4, 4, 1, Dx10Mode::Never).pf.fourcc);
    CHECK_THROWS_AS(header_of(af::FMT_B8G8R8, 4, 4, 1, Dx10Mode::Always), af::sdk::Error);

    // Masks for uncompressed legacy formats.
    auto argb = header_of(af::FMT_B8G8R8A8_UNORM, 3, 5, 1);
    CHECK(argb.pf.flags == (pfflag::rgb | pfflag::alphapixels));
    CHECK(argb.pf.bit_count == 32);
    CHECK(argb.pf.r_mask == 0x00ff0000);
    CHECK(argb.pf.a_mask == 0xff000000);
    CHECK(argb.pitch_or_linear_size == 12);
    auto rgb24 = header_of(af::FMT_B8G8R8, 3, 5, 1);
    CHECK(rgb24.pf.bit_count == 24);
    CHECK(rgb24.pf.r_mask == 0xff0000);
    CHECK(rgb24.pitch_or_linear_size == 9);
    auto a2r10 = header_of(af::FMT_B10G10R10A2, 3, 5, 1);
    CHECK(a2r10.pf.r_mask == 0x3ff00000);
    CHECK(a2r10.pf.b_mask == 0x3ff);
    CHECK(header_of(af::FMT_R10G10B10A2_UNORM, 3, 5, 1).dx10); // ** in the DDS guide: ambiguous legacy masks
    auto a2b10 = header_of(af::FMT_R10G10B10A2_UNORM, 3, 5, 1, Dx10Mode::Never);
    CHECK(a2b10.pf.r_mask == 0x3ff);
    CHECK(a2b10.pf.a_mask == 0xc0000000);
    auto l8 = header_of(af::FMT_L8, 3, 5, 1);
    CHECK(l8.pf.flags == pfflag::luminance);
    CHECK(header_of(af::FMT_L8A8, 3, 5, 1).pf.flags == (pfflag::luminance | pfflag::alphapixels));
    CHECK(header_of(af::FMT_A8_UNORM, 3, 5, 1).pf.flags == pfflag::alpha);
    CHECK(header_of(af::FMT_R8G8_SNORM, 3, 5, 1, Dx10Mode::Never).pf.flags == pfflag::bumpdudv);
    CHECK(header_of(af::FMT_YUY2, 3, 5, 1).pitch_or_linear_size == 8);

    // Arrays and cubes.
    auto arr = header_of(af::FMT_BC1_UNORM, 8, 8, 1, Dx10Mode::Auto, 4);
    REQUIRE(arr.dx10);
    CHECK(arr.dx10->array_size == 4);
    auto cube = header_of(af::FMT_BC1_UNORM, 8, 8, 4, Dx10Mode::Auto, 1, 6);
    CHECK_FALSE(cube.dx10);
    CHECK(cube.caps2 == 0xfe00);
    CHECK((cube.caps & caps::complex));
    auto cube10 = header_of(af::FMT_BC7_UNORM, 8, 8, 1, Dx10Mode::Auto, 2, 6, AF_ALPHA_OPAQUE);
    REQUIRE(cube10.dx10);
    CHECK(cube10.dx10->misc_flag == 0x4);
    CHECK(cube10.dx10->array_size == 2);
    CHECK(cube10.dx10->misc_flags2 == AF_ALPHA_OPAQUE);
    CHECK(cube10.caps2 == 0xfe00);
    CHECK_THROWS_AS(header_of(af::FMT_BC1_UNORM, 8, 8, 1, Dx10Mode::Never, 2), af::sdk::Error);
    // Premultiplied alpha outside BC2/BC3 needs DX10 to say so.
    auto pm = header_of(af::FMT_R8G8B8A8_UNORM, 2, 2, 1, Dx10Mode::Auto, 1, 1, AF_ALPHA_PREMULTIPLIED);
    REQUIRE(pm.dx10);
    CHECK(pm.dx10->misc_flags2 == AF_ALPHA_PREMULTIPLIED);
    // Volumes.
    af::TextureDesc vd;
    vd.format = af::FMT_B8G8R8A8_UNORM;
    vd.width = vd.height = 4;
    vd.depth = 3;
    auto vol = make_header(vd, {});
    CHECK((vol.flags & hflag::depth));
    CHECK(vol.depth == 3);
    CHECK(vol.caps2 == caps2::volume);
    vd.format = af::FMT_BC7_UNORM;
    auto vol10 = make_header(vd, {});
    REQUIRE(vol10.dx10);
    CHECK(vol10.dx10->dimension == 4);
}

TEST_CASE("legacy pixel formats read as the spec sheet maps them") {
    using namespace af::dds;
    auto masks = [](uint32_t flags, uint32_t bits, uint32_t r, uint32_t g, uint32_t b, uint32_t a) {
        PixelFormat pf;
        pf.flags = flags;
        pf.bit_count = bits;
        pf.r_mask = r;
        pf.g_mask = g;
        pf.b_mask = b;
        pf.a_mask = a;
        return format_from_pixel_format(pf).format;
    };
    auto cc = [](uint32_t code) {
        PixelFormat pf;
        pf.flags = pfflag::fourcc;
        pf.fourcc = code;
        return format_from_pixel_format(pf);
    };
    const uint32_t RGB = pfflag::rgb, RGBA = pfflag::rgb | pfflag::alphapixels, LUM = pfflag::luminance;
    CHECK(masks(RGBA, 32, 0xff0000, 0xff00, 0xff, 0xff000000) == af::FMT_B8G8R8A8_UNORM);
    CHECK(masks(RGB, 32, 0xff0000, 0xff00, 0xff, 0) == af::FMT_B8G8R8X8_UNORM);
    CHECK(masks(RGBA, 32, 0xff, 0xff00, 0xff0000, 0xff000000) == af::FMT_R8G8B8A8_UNORM);
    CHECK(masks(RGB, 32, 0xff, 0xff00, 0xff0000, 0) == af::FMT_R8G8B8X8);
    CHECK(masks(RGB, 24, 0xff0000, 0xff00, 0xff, 0) == af::FMT_B8G8R8);
    CHECK(masks(RGB, 16, 0xf800, 0x7e0, 0x1f, 0) == af::FMT_B5G6R5_UNORM);
    CHECK(masks(RGBA, 16, 0x7c00, 0x3e0, 0x1f, 0x8000) == af::FMT_B5G5R5A1_UNORM);
    CHECK(masks(RGB, 16, 0x7c00, 0x3e0, 0x1f, 0) == af::FMT_B5G5R5X1);
    CHECK(masks(RGBA, 16, 0xf00, 0xf0, 0xf, 0xf000) == af::FMT_B4G4R4A4_UNORM);
    CHECK(masks(RGB, 16, 0xf00, 0xf0, 0xf, 0) == af::FMT_B4G4R4X4);
    CHECK(masks(RGBA, 32, 0x3ff00000, 0xffc00, 0x3ff, 0xc0000000) == af::FMT_B10G10R10A2);
    CHECK(masks(RGBA, 32, 0x3ff, 0xffc00, 0x3ff00000, 0xc0000000) == af::FMT_R10G10B10A2_UNORM);
    CHECK(masks(RGB, 32, 0xffff, 0xffff0000, 0, 0) == af::FMT_R16G16_UNORM);
    CHECK(masks(RGB, 8, 0xe0, 0x1c, 0x3, 0) == af::FMT_B2G3R3);
    CHECK(masks(RGBA, 16, 0xe0, 0x1c, 0x3, 0xff00) == af::FMT_B2G3R3A8);
    CHECK(masks(LUM, 8, 0xff, 0, 0, 0) == af::FMT_L8);
    CHECK(masks(LUM, 16, 0xffff, 0, 0, 0) == af::FMT_L16);
    CHECK(masks(LUM | pfflag::alphapixels, 16, 0xff, 0, 0, 0xff00) == af::FMT_L8A8);
    CHECK(masks(LUM | pfflag::alphapixels, 8, 0xf, 0, 0, 0xf0) == af::FMT_L4A4);
    CHECK(masks(pfflag::alpha, 8, 0, 0, 0, 0xff) == af::FMT_A8_UNORM);
    CHECK(masks(pfflag::bumpdudv, 16, 0xff, 0xff00, 0, 0) == af::FMT_R8G8_SNORM);
    CHECK(masks(pfflag::bumpdudv, 32, 0xff, 0xff00, 0xff0000, 0xff000000) == af::FMT_R8G8B8A8_SNORM);
    CHECK(masks(pfflag::bumpdudv, 32, 0xffff, 0xffff0000, 0, 0) == af::FMT_R16G16_SNORM);
    // An alpha mask without ALPHAPIXELS is ignored rather than refused.
    CHECK(masks(RGB, 32, 0xff0000, 0xff00, 0xff, 0xff000000) == af::FMT_B8G8R8A8_UNORM);
    CHECK(masks(RGB, 16, 0x7c00, 0x3e0, 0x1f, 0x8000) == af::FMT_B5G5R5A1_UNORM);

    CHECK(cc(fourcc('D', 'X', 'T', '1')).format == af::FMT_BC1_UNORM);
    CHECK(cc(fourcc('D', 'X', 'T', '2')).format == af::FMT_BC2_UNORM);
    CHECK(cc(fourcc('D', 'X', 'T', '2')).alpha_mode == AF_ALPHA_PREMULTIPLIED);
    CHECK(cc(fourcc('D', 'X', 'T', '3')).format == af::FMT_BC2_UNORM);
    CHECK(cc(fourcc('D', 'X', 'T', '4')).alpha_mode == AF_ALPHA_PREMULTIPLIED);
    CHECK(cc(fourcc('D', 'X', 'T', '5')).format == af::FMT_BC3_UNORM);
    CHECK(cc(fourcc('A', 'T', 'I', '1')).format == af::FMT_BC4_UNORM);
    CHECK(cc(fourcc('B', 'C', '4', 'U')).format == af::FMT_BC4_UNORM);
    CHECK(cc(fourcc('B', 'C', '4', 'S')).format == af::FMT_BC4_SNORM);
    CHECK(cc(fourcc('A', 'T', 'I', '2')).format == af::FMT_BC5_UNORM);
    CHECK(cc(fourcc('B', 'C', '5', 'U')).format == af::FMT_BC5_UNORM);
    CHECK(cc(fourcc('B', 'C', '5', 'S')).format == af::FMT_BC5_SNORM);
    CHECK(cc(fourcc('R', 'G', 'B', 'G')).format == af::FMT_R8G8_B8G8_UNORM);
    CHECK(cc(fourcc('G', 'R', 'G', 'B')).format == af::FMT_G8R8_G8B8_UNORM);
    CHECK(cc(fourcc('Y', 'U', 'Y', '2')).format == af::FMT_YUY2);
    CHECK(cc(36).format == af::FMT_R16G16B16A16_UNORM);
    CHECK(cc(110).format == af::FMT_R16G16B16A16_SNORM);
    CHECK(cc(111).format == af::FMT_R16_FLOAT);
    CHECK(cc(112).format == af::FMT_R16G16_FLOAT);
    CHECK(cc(113).format == af::FMT_R16G16B16A16_FLOAT);
    CHECK(cc(114).format == af::FMT_R32_FLOAT);
    CHECK(cc(115).format == af::FMT_R32G32_FLOAT);
    CHECK(cc(116).format == af::FMT_R32G32B32A32_FLOAT);
}

TEST_CASE("legacy sRGB tagging is an option - DX10 formats carry their own") {
    af::Texture t = random_texture(desc_for(af::FMT_BC1_UNORM, kShapes[3]), 7);
    auto file = dds_test::write_dds(t, {});
    af::dds::ReadOptions ro;
    ro.srgb = true;
    af::Texture s = af::dds::read_dds(file.data(), file.size(), ro);
    CHECK(s.desc.format == af::FMT_BC1_UNORM_SRGB);
    CHECK((s.desc.flags & AF_TEX_SRGB));
    CHECK(s.data == t.data);
    af::Texture l = af::dds::read_dds(file.data(), file.size(), {});
    CHECK(l.desc.format == af::FMT_BC1_UNORM);
    CHECK_FALSE((l.desc.flags & AF_TEX_SRGB));
}
