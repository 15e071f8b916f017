// The info report: format, shape, per-mip sizes and offsets, and problems.
#include "dds_info.hpp"
#include "dds_writer.hpp"
#include "test_support.hpp"

#include "assetforge/formats.hpp"
#include "assetforge/plugin.hpp"
#include "assetforge/testing/fake_host.hpp"
#include "assetforge/write_texture.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstring>

using namespace dds_test;
using nlohmann::json;

TEST_CASE("info on a real legacy file: format, mips, offsets, no problems") {
    auto f = read_file(data_dir() / "Water__water-reflection.dds");
    auto r = af::dds::info_report(f.data(), f.size(), {});
    json j = json::parse(r.json);
    CHECK(j["valid"] == true);
    CHECK(j["format"]["id"] == 71);
    CHECK(j["format"]["name"] == "BC1_UNORM");
    CHECK(j["format"]["dxgi_name"] == "DXGI_FORMAT_BC1_UNORM");
    CHECK(j["format"]["source"] == "FourCC 'DXT1'");
    CHECK(j["header"]["pixel_format"]["fourcc"] == "DXT1");
    CHECK(j["width"] == 8);
    CHECK(j["mip_count"] == 4);
    REQUIRE(j["mips"].size() == 4);
    CHECK(j["mips"][0]["bytes"] == 32);
    CHECK(j["mips"][0]["offset"] == 128);
    CHECK(j["mips"][1]["offset"] == 160);
    CHECK(j["mips"][3]["width"] == 1);
    CHECK(j["mips"][3]["bytes"] == 8);
    CHECK(j["mips"][3]["offset"] == 176);
    CHECK(j["problems"].empty());
    CHECK(j["header"]["flag_names"] == json({"CAPS", "HEIGHT", "WIDTH", "PIXELFORMAT", "MIPMAPCOUNT", "LINEARSIZE"}));
    CHECK_THAT(r.text, Catch::Contains("BC1_UNORM (DXGI 71), from FourCC 'DXT1'"));
    CHECK_THAT(r.text, Catch::Contains("mip  3:    1×1  8 bytes at 176"));
    CHECK_THAT(r.text, Catch::Contains("problems:    none"));
}

TEST_CASE("info reports inconsistent caps on FlightGear-style truncated chains") {
    auto f = read_file(data_dir() / "Terrain__snow3_mips3.dds");
    json j = json::parse(af::dds::info_report(f.data(), f.size(), {}).json);
    CHECK(j["mip_count"] == 3);
    REQUIRE(j["problems"].size() == 1);
    CHECK(j["problems"][0]["offset"] == 108);
    CHECK_THAT(j["problems"][0]["message"].get<std::string>(), Catch::Contains("lack MIPMAP|COMPLEX"));
}

TEST_CASE("info explains size mismatches with both numbers") {
    af::TextureDesc d;
    d.format = af::FMT_BC7_UNORM;
    d.width = d.height = 128;
    d.mips = 8;
    auto full = dds_test::write_dds(random_texture(d, 3), af::dds::Dx10Mode::Always);
    std::vector<uint8_t> f(full.begin(), full.begin() + 148 + 21848);
    auto r = af::dds::info_report(f.data(), f.size(), {});
    json j = json::parse(r.json);
    CHECK(j["valid"] == false);
    CHECK(j["format"]["id"] == 98);
    CHECK(j["header"]["dx10"]["dxgi_name"] == "DXGI_FORMAT_BC7_UNORM");
    CHECK(j["data_bytes_expected"] == 21872);
    CHECK(j["data_bytes_present"] == 21848);
    CHECK(j["mips"][7]["complete"] == false);
    CHECK(j["mips"][5]["complete"] == true);
    REQUIRE(j["problems"].size() == 1);
    std::string msg = j["problems"][0]["message"];
    CHECK_THAT(msg, Catch::Contains("21996") && Catch::Contains("22020") && Catch::Contains("8-byte blocks"));

    // Extra bytes: the data holds more than the header says.
    auto longer = full;
    longer.insert(longer.end(), 100, 0);
    j = json::parse(af::dds::info_report(longer.data(), longer.size(), {}).json);
    CHECK(j["valid"] == true);
    CHECK_THAT(j["problems"][0]["message"].get<std::string>(), Catch::Contains("100 trailing bytes"));

    // A header claiming 1 mip over a full chain: the explanation finds the real count.
    auto one = full;
    uint32_t m = 1;
    std::memcpy(one.data() + 28, &m, 4);
    j = json::parse(af::dds::info_report(one.data(), one.size(), {}).json);
    CHECK_THAT(j["problems"][0]["message"].get<std::string>(), Catch::Contains("exactly 8 mip levels"));
}

TEST_CASE("info on a hostile header reports the error instead of failing") {
    auto f = read_file(data_dir() / "Water__water-reflection.dds");
    uint32_t forty = 40;
    std::memcpy(f.data() + 28, &forty, 4);
    auto r = af::dds::info_report(f.data(), f.size(), {});
    json j = json::parse(r.json);
    CHECK(j["valid"] == false);
    CHECK(j["error"]["offset"] == 28);
    CHECK_THAT(j["error"]["message"].get<std::string>(), Catch::Contains("mip count 40"));
    CHECK_THAT(r.text, Catch::Contains("ERROR:"));
    std::vector<uint8_t> junk(200, 0);
    CHECK_THROWS_AS(af::dds::info_report(junk.data(), junk.size(), {}), af::sdk::Error);
}

TEST_CASE("info through the container table, legacy masks and cubes") {
    af::TextureDesc d;
    d.format = af::FMT_B8G8R8A8_UNORM;
    d.width = d.height = 4;
    d.faces = 6;
    d.mips = 3;
    auto f = dds_test::write_dds(random_texture(d, 5), {});
    af::sdk::testing::FakeHost host;
    af_input in{};
    af::sdk::init_header(in);
    in.data = f.data();
    in.size = f.size();
    af_info_text out{};
    af_error err{};
    REQUIRE(dds_test::dds_container()->info(host, &in, nullptr, &out, &err) == AF_OK);
    json j = json::parse(out.json);
    std::string text = out.text;
    host.get()->free(out.json);
    host.get()->free(out.text);
    CHECK(host.live_allocations() == 0);
    CHECK(j["dimension"] == "cube");
    CHECK(j["faces"] == 6);
    CHECK(j["surfaces"] == 18);
    CHECK(j["format"]["d3dfmt"] == "D3DFMT_A8R8G8B8");
    CHECK(j["header"]["pixel_format"]["masks"]["r"] == 0xff0000);
    CHECK(j["face_stride"] == 64 + 16 + 4);
    CHECK(j["problems"].empty());
    CHECK_THAT(text, Catch::Contains("cube 4×4, 3 mips, 1 layer, 6 faces"));
}

TEST_CASE("a block-compressed top level that is not a multiple of 4 is a problem in info and a warning when written") {
    for (const auto& [w, h] : {std::pair(13u, 7u), std::pair(2u, 2u), std::pair(500u, 498u)}) {
        INFO(w << "x" << h);
        af::TextureDesc d;
        d.format = af::FMT_BC1_UNORM;
        d.width = w;
        d.height = h;
        const af::Texture t = random_texture(d, 3);
        const af::sdk::TextureView view(t);
        af::sdk::VectorSink out;
        af_sink sink = out.sink();
        af_error err{};
        af::sdk::testing::FakeHost host;
        REQUIRE(dds_test::dds_container()->write(host, view.get(), nullptr, &sink, &err) == AF_OK);
        // Direct3D 10 and later refuse to create such a texture: the game would not load it.
        CHECK(host.logged("not a multiple of 4"));
        const auto r = af::dds::info_report(out.bytes.data(), out.bytes.size(), {});
        CHECK_THAT(r.text, Catch::Contains("not a multiple of 4"));
        CHECK(json::parse(r.json)["problems"].size() == 1);
    }
    // A multiple of 4 with mips below 4×4 is what every game ships: no word about it.
    af::TextureDesc d;
    d.format = af::FMT_BC3_UNORM;
    d.width = 12;
    d.height = 8;
    d.mips = 4;
    const af::Texture t = random_texture(d, 4);
    const af::sdk::TextureView view(t);
    af::sdk::VectorSink out;
    af_sink sink = out.sink();
    af_error err{};
    af::sdk::testing::FakeHost host;
    REQUIRE(dds_test::dds_container()->write(host, view.get(), nullptr, &sink, &err) == AF_OK);
    CHECK(host.logs().empty());
    CHECK(json::parse(af::dds::info_report(out.bytes.data(), out.bytes.size(), {}).json)["problems"].empty());
}
