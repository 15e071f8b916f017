// VTF 7.0–7.5 reading (files assembled here from the documented layout),
// 7.2 writing, and XTF → VTF → XTF.
#include "test_support.hpp"
#include "vtf_file.hpp"
#include "vtf_formats.hpp"
#include "xtf_reader.hpp"

#include "assetforge/plugin.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace af::xtf;

namespace {

struct Builder {
    uint32_t minor = 2, w = 8, h = 4, frames = 1, faces = 1, mips = 4, flags = 0;
    uint16_t start_frame = 0, depth = 1;
    uint8_t thumb_w = 0, thumb_h = 0;
    std::vector<uint8_t> bytes;
    std::vector<uint64_t> image_start; // offset where each (mip, frame, face) begins

    static uint8_t texel(uint32_t mip, uint32_t frame, uint32_t face, uint64_t i) {
        return uint8_t(mip * 61 + frame * 17 + face * 5 + i * 3);
    }
    void p16(size_t off, uint16_t v) {
        bytes[off] = uint8_t(v);
        bytes[off + 1] = uint8_t(v >> 8);
    }
    void p32(size_t off, uint32_t v) {
        for (int i = 0; i < 4; ++i) bytes[off + i] = uint8_t(v >> (8 * i));
    }

    std::vector<uint8_t> build() {
        const uint32_t header = minor >= 3 ? 80 + 3 * 8 : minor == 2 ? 80 : 64;
        const uint64_t thumb = thumb_w ? uint64_t((thumb_w + 3) / 4) * ((thumb_h + 3) / 4) * 8 : 0;
        bytes.assign(header, 0);
        std::memcpy(bytes.data(), "VTF\0", 4);
        p32(4, 7);
        p32(8, minor);
        p32(12, header);
        p16(16, uint16_t(w));
        p16(18, uint16_t(h));
        p32(20, flags);
        p16(24, uint16_t(frames));
        p16(26, start_frame);
        float one = 1.0f;
        std::memcpy(&bytes[48], &one, 4);
        p32(52, VTF_BGRA8888);
        bytes[56] = uint8_t(mips);
        p32(57, thumb ? uint32_t(VTF_DXT1) : 0xFFFFFFFFu);
        bytes[61] = thumb_w;
        bytes[62] = thumb_h;
        if (minor >= 2) p16(63, depth);
        uint64_t thumb_off = header, image_off = header + thumb;
        if (minor >= 3) {
            // CRC (inline data), high-res first then low-res: order must not matter.
            p32(68, 3);
            const uint8_t crc[4] = {'C', 'R', 'C', 0x02};
            std::memcpy(&bytes[80], crc, 4);
            p32(84, 0xDEADBEEF);
            bytes[88] = 0x30;
            p32(92, uint32_t(image_off));
            bytes[96] = 0x01;
            p32(100, uint32_t(thumb_off));
        }
        for (uint64_t i = 0; i < thumb; ++i) bytes.push_back(uint8_t(0xA0 + i));
        for (int m = int(mips) - 1; m >= 0; --m)
            for (uint32_t f = 0; f < frames; ++f)
                for (uint32_t face = 0; face < faces; ++face) {
                    const uint64_t n =
                        uint64_t(af::mip_extent(w, m)) * af::mip_extent(h, m) * af::mip_extent(depth, m) * 4;
                    for (uint64_t i = 0; i < n; ++i) bytes.push_back(texel(uint32_t(m), f, face, i));
                }
        return bytes;
    }
};

void check_content(const af::Texture& t, uint32_t faces_expected) {
    REQUIRE(t.desc.faces == faces_expected);
    for (uint32_t f = 0; f < t.desc.layers; ++f)
        for (uint32_t face = 0; face < t.desc.faces; ++face)
            for (uint32_t m = 0; m < t.desc.mips; ++m) {
                auto s = t.surface(f, face, m);
                bool ok = true;
                for (uint64_t i = 0; i < s.size; ++i) ok &= s.data[i] == Builder::texel(m, f, face, i);
                INFO("frame " << f << " face " << face << " mip " << m);
                CHECK(ok);
            }
}

} // namespace

TEST_CASE("vtf reader: 7.0 to 7.5 layouts", "[vtf]") {
    for (uint32_t minor = 0; minor <= 5; ++minor) {
        INFO("7." << minor);
        Builder b;
        b.minor = minor;
        b.frames = 2;
        b.thumb_w = 8;
        b.thumb_h = 4;
        auto bytes = b.build();
        VtfFile v = read_vtf(bytes.data(), bytes.size(), xtftest::host());
        CHECK(v.header.version_minor == minor);
        CHECK(v.layout.thumbnail_size == 16);
        CHECK(v.image.desc.mips == 4);
        CHECK(v.image.desc.layers == 2);
        CHECK(v.image.desc.format == af::FMT_B8G8R8A8_UNORM);
        check_content(v.image, 1);
        if (minor >= 3) CHECK(v.header.resources.size() == 3);
    }
}

TEST_CASE("vtf reader: cubemaps, the 7.1-7.4 spheremap face and volumes", "[vtf]") {
    for (uint32_t minor = 0; minor <= 5; ++minor)
        for (uint32_t faces : {6u, 7u}) {
            if (faces == 7 && (minor == 0 || minor == 5)) continue; // no spheremap in those versions
            for (uint16_t start : {uint16_t(0), uint16_t(0xFFFF)}) {
                if (faces == 7 && start == 0xFFFF) continue;
                INFO("7." << minor << " faces in file " << faces << " start frame " << start);
                Builder b;
                b.minor = minor;
                b.w = b.h = 8;
                b.faces = faces;
                b.flags = vtfflag::envmap;
                b.start_frame = start;
                b.mips = 4;
                auto bytes = b.build();
                VtfFile v = read_vtf(bytes.data(), bytes.size(), xtftest::host());
                CHECK(v.layout.faces == faces);
                CHECK((v.image.desc.flags & AF_TEX_CUBE));
                check_content(v.image, 6);
            }
        }
    Builder vol;
    vol.w = 4;
    vol.h = 4;
    vol.depth = 4;
    vol.mips = 3;
    auto bytes = vol.build();
    VtfFile v = read_vtf(bytes.data(), bytes.size(), xtftest::host());
    CHECK(v.image.desc.depth == 4);
    check_content(v.image, 1);
}

TEST_CASE("vtf reader: broken files give clear errors", "[vtf][hostile]") {
    Builder b;
    b.minor = 3;
    b.thumb_w = b.thumb_h = 4;
    const auto good = b.build();
    for (size_t n = 0; n < good.size(); ++n) {
        std::vector<uint8_t> t(good.begin(), good.begin() + long(n));
        CHECK_THROWS_AS(read_vtf(t.data(), t.size(), xtftest::host()), af::sdk::Error);
    }
    auto bad = good;
    bad[56] = 9; // mip count beyond the chain
    CHECK_THROWS_WITH(read_vtf(bad.data(), bad.size(), xtftest::host()), Catch::Contains("mip count: expected 1..4"));
    bad = good;
    bad[88] = 0x31; // no high-res entry
    CHECK_THROWS_WITH(read_vtf(bad.data(), bad.size(), xtftest::host()), Catch::Contains("no high-res image entry"));
    bad = good;
    bad[68] = 0xFF, bad[69] = 0xFF, bad[70] = 0xFF;
    CHECK_THROWS_WITH(read_vtf(bad.data(), bad.size(), xtftest::host()), Catch::Contains("resource count"));
    bad = good;
    bad[24] = bad[25] = 0xFF; // 65535 frames
    CHECK_THROWS_WITH(read_vtf(bad.data(), bad.size(), xtftest::host()), Catch::Contains("truncated"));
    bad = good;
    bad[8] = 6;
    CHECK_THROWS_WITH(read_vtf(bad.data(), bad.size(), xtftest::host()), Catch::Contains("7.6"));
}

TEST_CASE("vtf writer: 7.2 round trips", "[vtf]") {
    for (int32_t vf : {VTF_BGRA8888, VTF_RGBA8888, VTF_RGB888, VTF_BGRX8888, VTF_I8, VTF_IA88, VTF_RGBA16161616F,
                       VTF_DXT1, VTF_DXT5}) {
        for (uint32_t faces : {1u, 6u}) {
            const uint32_t fmt = *af_format_of(vf);
            af::TextureDesc d;
            d.format = fmt;
            d.width = 16;
            d.height = 8;
            d.layers = 2;
            d.faces = faces;
            d.mips = af::full_mip_count(16, 8);
            af::Texture in(d);
            for (size_t i = 0; i < in.data.size(); ++i) in.data[i] = uint8_t(i * 13 + 7);
            VtfWriteOptions o;
            o.format = vf;
            o.reflectivity = std::array<float, 3>{0.1f, 0.2f, 0.3f};
            const bool dxt = af::format_info(fmt)->compressed();
            auto bytes = write_vtf(xtftest::host(), in, o);
            VtfFile v = read_vtf(bytes.data(), bytes.size(), xtftest::host());
            INFO(vtf_format_name(vf) << " faces " << faces);
            CHECK(v.header.version_minor == 2);
            CHECK(v.header.header_size == 80);
            CHECK(v.header.image_format == vf);
            CHECK(v.header.start_frame == (faces == 6 ? 0xFFFF : 0));
            CHECK(v.layout.faces == faces);
            CHECK((v.image.data == in.data));
            if (xtftest::bc_codec_available()) {
                CHECK(v.header.lowres_format == VTF_DXT1);
                CHECK(v.header.lowres_width == 16);
                CHECK(v.header.lowres_height == 8);
            } else {
                // No DXT1 encoder: the file says so instead of carrying a fake thumbnail.
                CHECK(v.header.lowres_format == -1);
                CHECK(v.header.lowres_width == 0);
                CHECK(v.header.lowres_height == 0);
                CHECK(bytes.size() == 80 + in.data.size());
            }
            (void)dxt;
        }
    }
    af::TextureDesc d;
    d.format = af::FMT_P8;
    d.width = d.height = 4;
    af::Texture p8(d);
    VtfWriteOptions o;
    o.format = VTF_P8;
    CHECK_THROWS_WITH(write_vtf(xtftest::host(), p8, o), Catch::Contains("cannot store P8"));
}

TEST_CASE("xtf → vtf → xtf keeps images, flags and reflectivity", "[vtf][xtf]") {
    for (const std::string& name : xtftest::fixture_names()) {
        SECTION(name) {
            const auto file = xtftest::read_bytes(xtftest::data_dir() / name / (name + ".xtf"));
            XtfFile x = read_xtf(file.data(), file.size(), xtftest::host());
            auto vbytes = xtf_to_vtf(xtftest::host(), x, {});
            VtfFile v = read_vtf(vbytes.data(), vbytes.size(), xtftest::host());
            CHECK(v.header.flags == (x.header.flags & ~vtfflag::xbox_only));
            CHECK(v.header.reflectivity[0] == x.header.reflectivity[0]);
            CHECK(v.image.desc.faces == x.image.desc.faces);
            CHECK(v.image.desc.layers == x.image.desc.layers);
            CHECK(v.image.desc.mips == x.image.desc.mips);
            if (x.header.image_format == VTF_P8) {
                CHECK((v.image.data != x.image.data));
                CHECK(v.header.image_format == VTF_BGRA8888);
                continue;
            }
            CHECK((v.image.data == x.image.data));
            XtfWriteOptions back;
            back.flags = x.header.flags; // the Xbox bits live only in the XTF
            back.fallback = x.header.fallback_width > 0;
            back.fallback_width = x.header.fallback_width;
            back.fallback_height = x.header.fallback_height;
            if (back.fallback) back.fallback_images = &x.fallback;
            auto xbytes = vtf_to_xtf(xtftest::host(), v, back);
            // Everything the VTF carried comes back; with the original fallback
            // the file is identical to the SourcePP fixture.
            CHECK(xtftest::sha256(xbytes) == xtftest::sha256(file));
        }
    }
}

TEST_CASE("vtf → xtf with a NaN reflectivity in the VTF header writes a defined low-res pixel", "[vtf][xtf][hostile]") {
    // Found by fuzz/fuzz_xtf: the header's reflectivity went straight into
    // the XTF low-res colour, and NaN → byte is undefined behaviour.
    const auto bytes = xtftest::read_bytes(xtftest::data_dir() / "fuzz" / "vtf_nan_reflectivity.vtf");
    VtfFile v = read_vtf(bytes.data(), bytes.size(), xtftest::host());
    REQUIRE(std::isnan(v.header.reflectivity[0]));
    XtfWriteOptions opt;
    opt.resampling.filter = AF_FILTER_BOX;
    auto x = vtf_to_xtf(xtftest::host(), v, opt);
    XtfFile back = read_xtf(x.data(), x.size(), xtftest::host());
    CHECK(back.header.width == v.header.width);
}
