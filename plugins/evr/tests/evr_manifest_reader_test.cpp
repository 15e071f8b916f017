#include "evr_reader.hpp"
#include "fixture.hpp"

#include "assetforge/bytes.hpp"
#include "assetforge/error.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <zstd.h>

using namespace af::evr;
using namespace evr_test;

namespace {

// A body with the given per-section (length, count, element count, element size).
struct SectionSpec {
    uint64_t length, count, ecount, esize;
};
std::vector<uint8_t> body(const SectionSpec (&s)[3], uint64_t payload_bytes, uint32_t parts = 1) {
    af::sdk::ByteWriter w;
    w.u32(parts);
    w.u32(524288);
    w.u64(0);
    for (int i = 0; i < 3; ++i) {
        for (uint64_t v : {s[i].length, uint64_t(0), uint64_t(1) << 32, s[i].esize, s[i].count, s[i].ecount}) w.u64(v);
        if (i < 2) w.fill(0, 16);
    }
    w.fill(0, payload_bytes);
    return std::move(w).bytes();
}

std::vector<uint8_t> wrap(const std::vector<uint8_t>& b, uint32_t header_length = 16) {
    std::vector<uint8_t> z(ZSTD_compressBound(b.size()));
    z.resize(ZSTD_compress(z.data(), z.size(), b.data(), b.size(), 3));
    af::sdk::ByteWriter w;
    w.append("ZSTD", 4);
    w.u32(header_length);
    w.u64(b.size());
    w.u64(z.size());
    w.append(z);
    return std::move(w).bytes();
}

std::string error_of(const std::vector<uint8_t>& file) {
    try {
        read_manifest(file, "m/NAME", {}, {});
    } catch (const af::sdk::Error& e) {
        return e.what();
    }
    return "";
}

} // namespace

TEST_CASE("the documented seed-1 set reads as the spec describes it", "[manifest]") {
    const auto bytes = read_bytes(manifest_path("s1"));
    std::vector<std::string> warnings;
    const Manifest m = read_manifest(bytes, "s1", {}, [&](const std::string& w) { warnings.push_back(w); });
    CHECK(warnings.empty());
    CHECK(m.body_size == 2016); // 192 + 24x32 + 24x40 + 6x16
    CHECK(m.files.size() == 24);
    CHECK(m.metadata.size() == 24);
    CHECK(m.frames.size() == 6);
    CHECK(m.package_count == 1);
    CHECK(m.unknown_a == 524288);
    CHECK(m.sections[kFrames].unknown_d == uint64_t(1) << 32);
    const auto j = manifest_json<nlohmann::json>("s1");
    for (size_t i = 0; i < m.frames.size(); ++i) {
        CHECK(m.frames[i].package == j["frames"][i]["package"]);
        CHECK(m.frames[i].offset == j["frames"][i]["offset"]);
        CHECK(m.frames[i].csize == j["frames"][i]["csize"]);
        CHECK(m.frames[i].length == j["frames"][i]["length"]);
    }
}

TEST_CASE("a manifest claiming 2^32 entries in 200 bytes is refused at once", "[manifest][hostile]") {
    const uint64_t n = uint64_t(1) << 32;
    const SectionSpec s[3] = {{n * 32, n, n, 32}, {0, 0, 0, 40}, {0, 0, 0, 16}};
    const auto file = wrap(body(s, 8));
    CHECK(file.size() < 250);
    CHECK_THAT(error_of(file), Catch::Contains("FrameContents section") && Catch::Contains("runs past the end"));
    // A count whose byte length wraps around 2^64 (here to 0) is caught by the length check.
    const uint64_t huge = uint64_t(1) << 60;
    const SectionSpec w[3] = {{0, 0, 0, 32}, {0, 0, 0, 40}, {huge * 16, huge, huge, 16}};
    CHECK_THAT(error_of(wrap(body(w, 0))), Catch::Contains("Frames section") && Catch::Contains("length 0 is not"));
    const SectionSpec o[3] = {{0, 0, 0, 32}, {0, huge * 8, huge * 8, 40}, {0, 0, 0, 16}};
    CHECK_THAT(error_of(wrap(body(o, 0))), Catch::Contains("Metadata section") && Catch::Contains("is not"));
}

TEST_CASE("an archive header claiming a huge body is refused before decompressing", "[manifest][hostile]") {
    const SectionSpec s[3] = {{0, 0, 0, 32}, {0, 0, 0, 40}, {0, 0, 0, 16}};
    auto file = wrap(body(s, 0));
    af::sdk::ByteReader r(file.data(), file.size());
    for (uint64_t claim : {uint64_t(1) << 29, uint64_t(1) << 30}) {
        for (int i = 0; i < 8; ++i) file[8 + i] = uint8_t(claim >> (8 * i));
        const std::string e = error_of(file);
        CHECK_THAT(e, Catch::Contains("can produce at most") || Catch::Contains("declares"));
    }
    for (int i = 0; i < 8; ++i) file[8 + i] = uint8_t((uint64_t(1) << 31) >> (8 * i));
    CHECK_THAT(error_of(file), Catch::Contains("needs 192 .."));
}

TEST_CASE("archive header: 24 in the header-length field warns, other values fail", "[manifest]") {
    const SectionSpec s[3] = {{0, 0, 0, 32}, {0, 0, 0, 40}, {0, 0, 0, 16}};
    std::vector<std::string> warnings;
    read_manifest(wrap(body(s, 0), 24), "m", {}, [&](const std::string& w) { warnings.push_back(w); });
    REQUIRE(warnings.size() == 1);
    CHECK_THAT(warnings[0], Catch::Contains("header-length field is 24"));
    CHECK_THAT(error_of(wrap(body(s, 0), 20)), Catch::Contains("header-length field 20"));
    CHECK_THAT(error_of(std::vector<uint8_t>(23, 0)), Catch::Contains("too short for the 24-byte archive header"));
    auto bare = wrap(body(s, 0));
    bare[0] = 0x28, bare[1] = 0xB5, bare[2] = 0x2F, bare[3] = 0xFD;
    CHECK_THAT(error_of(bare), Catch::Contains("bare zstd frame"));
}

TEST_CASE("bytes after the Frames table are a warning, a short body an error", "[manifest]") {
    const SectionSpec s[3] = {{0, 0, 0, 32}, {0, 0, 0, 40}, {16, 1, 1, 16}};
    std::vector<std::string> warnings;
    const Manifest m =
        read_manifest(wrap(body(s, 16 + 5)), "m", {}, [&](const std::string& w) { warnings.push_back(w); });
    CHECK(m.trailing.size() == 5);
    REQUIRE(warnings.size() == 1);
    CHECK_THAT(warnings[0], Catch::Contains("5 unexplained bytes after the Frames table"));
    CHECK_THAT(error_of(wrap(std::vector<uint8_t>(191, 0))), Catch::Contains("needs 192"));
}
