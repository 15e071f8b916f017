// Broken and hostile XTF files: every one must give a clear error, never a
// crash, a hang or an allocation the file size does not justify.
#include "test_support.hpp"
#include "vtf_formats.hpp"
#include "xtf_reader.hpp"
#include "xtf_writer.hpp"

#include "assetforge/plugin.hpp"

#include <catch2/catch.hpp>

#include <set>

using namespace af::xtf;
using xtftest::xtftest_opts;

namespace {

struct Failure {
    af_status status = AF_OK;
    uint64_t offset = 0;
    std::string message;
};

Failure read_failure(const std::vector<uint8_t>& b) {
    try {
        read_xtf(b.data(), b.size(), xtftest::host());
    } catch (const af::sdk::Error& e) {
        return {e.status(), e.offset(), e.what()};
    }
    return {};
}

void put16(std::vector<uint8_t>& b, size_t off, uint16_t v) {
    b[off] = uint8_t(v);
    b[off + 1] = uint8_t(v >> 8);
}
void put32(std::vector<uint8_t>& b, size_t off, uint32_t v) {
    for (int i = 0; i < 4; ++i) b[off + i] = uint8_t(v >> (8 * i));
}

} // namespace

TEST_CASE("xtf hostile: truncated at every section boundary", "[xtf][hostile]") {
    for (const std::string& name : xtftest::fixture_names()) {
        const auto file = xtftest::fixture_xtf(name);
        XtfFile x = read_xtf(file.data(), file.size(), xtftest::host());
        const XtfLayout& L = x.layout;
        std::set<uint64_t> cuts = {0,
                                   3,
                                   4,
                                   57,
                                   L.lowres_offset,
                                   L.palette_offset,
                                   L.fallback_offset,
                                   L.preload_end,
                                   L.image_offset,
                                   L.end_of_data - 1};
        for (const auto& b : L.fallback) cuts.insert({b.offset, b.offset + b.size - 1});
        for (const auto& b : L.image) cuts.insert({b.offset, b.offset + b.size - 1});
        for (uint64_t cut : cuts) {
            if (cut >= L.end_of_data) continue;
            INFO(name << " truncated to " << cut << " bytes");
            std::vector<uint8_t> t(file.begin(), file.begin() + long(cut));
            Failure f = read_failure(t);
            CHECK(f.status == AF_ERR_INVALID_DATA);
            CHECK_THAT(f.message, Catch::Contains("truncated"));
            CHECK(f.offset <= file.size()); // the offset of the first block that does not fit
        }
        // Losing only the trailing pad loses no data.
        std::vector<uint8_t> t(file.begin(), file.begin() + long(L.end_of_data));
        CHECK(read_failure(t).status == AF_OK);
    }
    // Every length of the smallest fixture.
    const auto small = xtftest::fixture_xtf("dxt1_16x16_mips_nofallback");
    for (size_t n = 0; n < small.size(); ++n) {
        std::vector<uint8_t> t(small.begin(), small.begin() + long(n));
        CHECK(read_failure(t).status == AF_ERR_INVALID_DATA);
    }
}

TEST_CASE("xtf hostile: header fields out of range name the field and offset", "[xtf][hostile]") {
    const auto base = xtftest::fixture_xtf("bgra8888_64x64_mips");
    struct Case {
        const char* what;
        std::function<void(std::vector<uint8_t>&)> edit;
        uint64_t offset;
        const char* text;
    };
    const Case cases[] = {
        {"magic", [](auto& b) { b[0] = 'V'; }, 0, "signature"},
        {"version", [](auto& b) { put32(b, 4, 7); }, 4, "version major"},
        {"minor", [](auto& b) { put32(b, 8, 2); }, 8, "version minor"},
        {"header size", [](auto& b) { put32(b, 12, 60); }, 12, "header size: expected 58"},
        {"width 0", [](auto& b) { put16(b, 20, 0); }, 20, "width"},
        {"height 0", [](auto& b) { put16(b, 22, 0); }, 22, "height"},
        {"depth 0", [](auto& b) { put16(b, 24, 0); }, 24, "depth"},
        {"frames 0", [](auto& b) { put16(b, 26, 0); }, 26, "frame count: expected at least 1, got 0"},
        {"unknown format", [](auto& b) { put32(b, 48, 27); }, 48,
         "image format: expected a VTF format id 0..26, got 27"},
        {"negative format", [](auto& b) { put32(b, 48, 0xFFFFFFFF); }, 48, "got -1"},
        {"preload", [](auto& b) { put16(b, 28, 400); }, 28, "preload size: expected 401"},
        {"image offset", [](auto& b) { put16(b, 30, 100); }, 30, "image offset: expected at least 401"},
    };
    for (const Case& c : cases) {
        INFO(c.what);
        auto b = base;
        c.edit(b);
        Failure f = read_failure(b);
        CHECK(f.status == AF_ERR_INVALID_DATA);
        CHECK(f.offset == c.offset);
        CHECK_THAT(f.message, Catch::Contains(c.text));
    }
}

TEST_CASE("xtf hostile: absurd sizes fail fast without allocating", "[xtf][hostile]") {
    auto b = xtftest::fixture_xtf("dxt1_16x16_mips_nofallback");
    put16(b, 20, 65535);
    put16(b, 22, 65535);
    put16(b, 24, 65535);
    put16(b, 26, 65535);
    put32(b, 16, b[16] | vtfflag::envmap);
    Failure f = read_failure(b);
    CHECK(f.status == AF_ERR_INVALID_DATA);
    CHECK_THAT(f.message, Catch::Contains("frame 0 face 0 mip 0"));
    CHECK_THAT(f.message, Catch::Contains("file has 245 bytes"));
    // A huge palette claim for P8: 65535 frames of palettes.
    auto p = xtftest::fixture_xtf("p8_32x32_mips");
    put16(p, 26, 65535);
    f = read_failure(p);
    CHECK(f.status == AF_ERR_INVALID_DATA);
    CHECK(f.offset == 28); // the preload size cannot cover 64 MiB of palettes
    CHECK_THAT(f.message, Catch::Contains("preload size: expected 72678376"));
}

TEST_CASE("xtf hostile: non-power-of-two uncompressed file is refused, not scrambled", "[xtf][hostile]") {
    // A valid layout for a 12x4 BGRA8888 image without mips or fallback.
    XtfHeader h;
    h.width = 12;
    h.height = 4;
    h.flags = vtfflag::nomip;
    h.image_format = VTF_BGRA8888;
    h.preload_size = h.image_offset = 58;
    std::vector<uint8_t> b(58 + 12 * 4 * 4, 0);
    serialize_xtf_header(h, b.data());
    Failure f = read_failure(b);
    CHECK(f.status == AF_ERR_UNSUPPORTED);
    CHECK_THAT(f.message, Catch::Contains("12x4x1") && Catch::Contains("swizzle"));
}

TEST_CASE("xtf reader: the NOMIP-missing quirk of shipped files (spec §11)", "[xtf][quirk]") {
    // Write a single-mip file with fallback, then clear NOMIP as some shipped files do.
    af::TextureDesc d;
    d.format = af::FMT_B8G8R8A8_UNORM;
    d.width = d.height = 32;
    af::Texture in(d);
    for (size_t i = 0; i < in.data.size(); ++i) in.data[i] = uint8_t(i * 7);
    XtfWriteOptions o = xtftest_opts(VTF_BGRA8888);
    o.nomip = true;
    auto bytes = write_xtf(xtftest::host(), in, o);
    REQUIRE((bytes[17] & 1)); // NOMIP is bit 8
    bytes[17] &= uint8_t(~1);
    XtfFile x = read_xtf(bytes.data(), bytes.size(), xtftest::host());
    CHECK(x.layout.nomip_repaired);
    CHECK(x.image.desc.mips == 1);
    CHECK(x.layout.fallback_mips == 1);
    CHECK((x.image.data == in.data));
    // Neither a full chain nor one mip: rejected at the preload size field.
    put16(bytes, 28, uint16_t(x.header.preload_size + 4));
    Failure f = read_failure(bytes);
    CHECK(f.offset == 28);
    CHECK_THAT(f.message, Catch::Contains("single-mip file without NOMIP"));
}
