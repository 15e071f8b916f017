#include "plane_header.hpp"

#include "assetforge/plugin.hpp"

#include <catch2/catch.hpp>

using namespace af::vtpages;

namespace {
std::vector<uint8_t> hex(const char* s) {
    std::vector<uint8_t> out;
    for (; s[0] && s[1]; s += 2) out.push_back(uint8_t(std::stoi(std::string(s, 2), nullptr, 16)));
    return out;
}
} // namespace

// The four retail block prefixes quoted in the user's analysis and the spec
// sheet; the QPs must equal the page's sub-header qualities 30/13/25/40.
TEST_CASE("retail diffuse prefix: YUV444, QP 30 luma / 48 chroma", "[plane]") {
    auto b = hex("7100a3c60a3c60a3c600ff00000100");
    PlaneHeader h = parse_plane_header(b);
    CHECK(h.colour_format_name() == "YUV444");
    CHECK(h.bands_name() == "NOFLEXBITS");
    CHECK(h.components == 3);
    CHECK(h.dc.qp == std::vector<uint8_t>{30, 48});
    CHECK(h.lp.qp == std::vector<uint8_t>{30, 48});
    CHECK(h.hp.qp == std::vector<uint8_t>{30, 48});
    CHECK(h.header_bytes == 10);
    CHECK(h.next_byte == 0xff);
    CHECK(h.tile_start_code);
}

TEST_CASE("retail normal prefix: 2 components, QP 13", "[plane]") {
    PlaneHeader h = parse_plane_header(hex("d110a1a1aa1a1aa1a1a0ff00000100"));
    CHECK(h.colour_format_name() == "NCOMPONENT");
    CHECK(h.components == 2);
    CHECK(h.dc.qp == std::vector<uint8_t>{13, 13});
    CHECK(h.hp.qp == std::vector<uint8_t>{13, 13});
    CHECK(h.header_bytes == 10);
    CHECK(h.tile_start_code);
}

TEST_CASE("retail specular and power prefixes: 1 component, QP 25 and 40", "[plane]") {
    PlaneHeader s = parse_plane_header(hex("d1008ca328c8ff00000100"));
    CHECK(s.components == 1);
    CHECK(s.dc.qp == std::vector<uint8_t>{25});
    CHECK(s.lp.qp == std::vector<uint8_t>{25});
    CHECK(s.hp.qp == std::vector<uint8_t>{25});
    CHECK(s.header_bytes == 6);
    CHECK(s.tile_start_code);
    PlaneHeader p = parse_plane_header(hex("d10094250940ff00000100"));
    CHECK(p.dc.qp == std::vector<uint8_t>{40});
    CHECK(p.hp.qp == std::vector<uint8_t>{40});
    CHECK(p.describe() == "NCOMPONENT NOFLEXBITS, 1 component, DC QP 40, LP 40, HP 40");
}

TEST_CASE("short or reserved plane headers are errors", "[plane]") {
    CHECK_THROWS_AS(parse_plane_header(hex("71")), af::sdk::Error);
    CHECK_THROWS_AS(parse_plane_header(hex("")), af::sdk::Error);
    CHECK_THROWS_AS(parse_plane_header(hex("a100")), af::sdk::Error); // colour format 5
    CHECK_THROWS_AS(parse_plane_header(hex("7f00")), af::sdk::Error); // bands 15
}
