// Real FlightGear DDS files: every one parses with sizes that match the file
// exactly, and the header facts agree with Pillow and nvtt's nvddsinfo.
#include "dds_reader.hpp"
#include "test_support.hpp"

#include "assetforge/formats.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <map>
#include <regex>

using namespace dds_test;
namespace fs = std::filesystem;

TEST_CASE("every corpus file parses, with data that fills the file exactly") {
    auto files = corpus_files();
    REQUIRE(files.size() >= 15);
    for (const auto& f : files) {
        INFO(f.filename().string());
        auto bytes = read_file(f);
        std::vector<af::dds::Problem> warnings;
        af::Texture t = af::dds::read_dds(bytes.data(), bytes.size(), {}, &warnings);
        CHECK(warnings.empty());
        CHECK(t.data.size() + 128 == bytes.size());
        CHECK((t.desc.format == af::FMT_BC1_UNORM || t.desc.format == af::FMT_BC3_UNORM ||
               t.desc.format == af::FMT_BC5_UNORM));
        CHECK(t.desc.layers == 1);
        CHECK(t.desc.faces == 1);
        CHECK(t.desc.depth == 1);
        // The top mip is where Pillow and every other reader expect it.
        CHECK(std::equal(t.data.begin(), t.data.begin() + std::min<size_t>(64, t.data.size()), bytes.begin() + 128));
    }
}

TEST_CASE("known corpus facts: sizes, formats, truncated chains, tiny files") {
    struct Fact {
        const char* file;
        uint32_t format, w, h, mips;
    };
    const Fact facts[] = {
        {"Signs__black.dds", af::FMT_BC1_UNORM, 4096, 128, 13},
        {"Runway__rwy-normalmap.dds", af::FMT_BC5_UNORM, 1024, 256, 11},
        {"Water__perlin-noise-nm.dds", af::FMT_BC5_UNORM, 512, 512, 10},
        {"Runway__pa_0l.dds", af::FMT_BC3_UNORM, 256, 64, 9},
        {"Water__water-reflection.dds", af::FMT_BC1_UNORM, 8, 8, 4},
        {"Terrain__transition1.dds", af::FMT_BC1_UNORM, 32, 32, 6},
        {"Terrain__snow3_mips3.dds", af::FMT_BC1_UNORM, 512, 512, 3},
        {"Runway__pa_shoulder_f.dds", af::FMT_BC1_UNORM, 128, 512, 10},
    };
    for (const auto& fact : facts) {
        INFO(fact.file);
        auto bytes = read_file(data_dir() / fact.file);
        af::Texture t = af::dds::read_dds(bytes.data(), bytes.size(), {});
        CHECK(t.desc.format == fact.format);
        CHECK(t.desc.width == fact.w);
        CHECK(t.desc.height == fact.h);
        CHECK(t.desc.mips == fact.mips);
    }
    // 8×8 DXT1 with 4 mips: 4 blocks + 1 + 1 + 1, 8 bytes each.
    auto tiny = read_file(data_dir() / "Water__water-reflection.dds");
    af::Texture t = af::dds::read_dds(tiny.data(), tiny.size(), {});
    CHECK(t.surface(0, 0, 0).size == 32);
    CHECK(t.surface(0, 0, 1).size == 8);
    CHECK(t.surface(0, 0, 3).size == 8);
    CHECK(t.data.size() == 56);
}

TEST_CASE("corpus header facts agree with Pillow") {
    std::string missing = python_pillow_missing();
    if (!missing.empty()) {
        WARN("skipped: " << missing);
        return;
    }
    std::string cmd = std::string(kPython) + " " + quote(std::string(DDS_TEST_SCRIPTS) + "/pillow_probe.py");
    auto files = corpus_files();
    for (const auto& f : files) {
        cmd += ' ';
        cmd += quote(f.string());
    }
    RunResult r = run(cmd);
    REQUIRE(r.status == 0);
    auto report = nlohmann::json::parse(r.out);
    const std::map<uint32_t, std::string> bcn = {
        {af::FMT_BC1_UNORM, "1"}, {af::FMT_BC3_UNORM, "3"}, {af::FMT_BC5_UNORM, "5"}};
    for (const auto& f : files) {
        INFO(f.filename().string());
        const auto& p = report.at(f.string());
        REQUIRE_FALSE(p.contains("error"));
        auto bytes = read_file(f);
        af::Texture t = af::dds::read_dds(bytes.data(), bytes.size(), {});
        CHECK(p["width"] == t.desc.width);
        CHECK(p["height"] == t.desc.height);
        CHECK(p["decoder"] == "bcn");
        CHECK(p["offset"] == 128);
        CHECK(p["args"][0] == bcn.at(t.desc.format));
    }
}

TEST_CASE("corpus header facts agree with nvddsinfo") {
    std::string missing = tool_missing("/usr/bin/nvddsinfo");
    if (!missing.empty()) {
        WARN("skipped: " << missing);
        return;
    }
    const std::map<uint32_t, std::string> fourcc = {
        {af::FMT_BC1_UNORM, "DXT1"}, {af::FMT_BC3_UNORM, "DXT5"}, {af::FMT_BC5_UNORM, "ATI2"}};
    for (const auto& f : corpus_files()) {
        INFO(f.filename().string());
        RunResult r = run("/usr/bin/nvddsinfo " + quote(f.string()));
        REQUIRE(r.status == 0);
        std::smatch m;
        auto bytes = read_file(f);
        af::Texture t = af::dds::read_dds(bytes.data(), bytes.size(), {});
        REQUIRE(std::regex_search(r.out, m, std::regex("Width: (\\d+)")));
        CHECK(std::stoul(m[1]) == t.desc.width);
        REQUIRE(std::regex_search(r.out, m, std::regex("Height: (\\d+)")));
        CHECK(std::stoul(m[1]) == t.desc.height);
        REQUIRE(std::regex_search(r.out, m, std::regex("Mipmap count: (\\d+)")));
        CHECK(std::max(1ul, std::stoul(m[1])) == t.desc.mips);
        REQUIRE(std::regex_search(r.out, m, std::regex("FourCC: '(....)'")));
        CHECK(m[1] == fourcc.at(t.desc.format));
    }
}
