// Files written by the plugin open in independent readers: Pillow (header
// facts and, for uncompressed formats, every decoded texel), ImageMagick's
// identify, and nvtt's nvddsinfo / nvdecompress.
#include "dds_reader.hpp"
#include "dds_writer.hpp"
#include "test_support.hpp"

#include "assetforge/formats.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <regex>

using namespace dds_test;
using af::dds::Dx10Mode;
namespace fs = std::filesystem;

namespace {

struct Case {
    uint32_t format;
    Dx10Mode mode;
    uint32_t w, h, mips;
    bool pillow, magick, nvdecompress;
};

// Which reader supports what (Pillow 9.4, ImageMagick 6.9, nvtt 2.1), checked by hand:
// ImageMagick reads no DX10 headers and no ATI1/ATI2; Pillow misreads 32-bit RGB without alpha.
const Case kCases[] = {
    {af::FMT_BC1_UNORM, Dx10Mode::Auto, 13, 7, 0, true, true, true},
    {af::FMT_BC1_UNORM, Dx10Mode::Auto, 256, 64, 1, true, true, true},
    {af::FMT_BC2_UNORM, Dx10Mode::Auto, 13, 7, 0, true, true, true},
    {af::FMT_BC3_UNORM, Dx10Mode::Auto, 256, 64, 0, true, true, true},
    {af::FMT_BC4_UNORM, Dx10Mode::Auto, 13, 7, 0, true, false, true},
    {af::FMT_BC5_UNORM, Dx10Mode::Auto, 256, 64, 0, true, false, true},
    {af::FMT_BC5_SNORM, Dx10Mode::Auto, 13, 7, 1, true, false, false},
    {af::FMT_BC6H_UF16, Dx10Mode::Auto, 256, 64, 0, true, false, false},
    {af::FMT_BC6H_SF16, Dx10Mode::Auto, 13, 7, 1, true, false, false},
    {af::FMT_BC7_UNORM, Dx10Mode::Auto, 256, 64, 0, true, false, true},
    {af::FMT_BC7_UNORM_SRGB, Dx10Mode::Auto, 13, 7, 0, true, false, false},
    {af::FMT_BC1_UNORM, Dx10Mode::Always, 13, 7, 0, false, false, true},
    {af::FMT_R8G8B8A8_UNORM, Dx10Mode::Auto, 13, 7, 0, true, true, true},
    {af::FMT_R8G8B8A8_UNORM, Dx10Mode::Always, 13, 7, 1, true, false, true},
    {af::FMT_R8G8B8A8_UNORM_SRGB, Dx10Mode::Auto, 3, 5, 1, true, false, false},
    {af::FMT_B8G8R8A8_UNORM, Dx10Mode::Auto, 13, 7, 0, true, true, true},
    {af::FMT_B8G8R8X8_UNORM, Dx10Mode::Auto, 13, 7, 0, false, true, true},
    {af::FMT_B8G8R8, Dx10Mode::Auto, 13, 7, 0, true, true, true},
    {af::FMT_B5G6R5_UNORM, Dx10Mode::Auto, 13, 7, 0, false, true, true},
    {af::FMT_B5G5R5A1_UNORM, Dx10Mode::Auto, 13, 7, 1, false, true, true},
    {af::FMT_B4G4R4A4_UNORM, Dx10Mode::Auto, 13, 7, 1, false, true, true},
    {af::FMT_L8, Dx10Mode::Auto, 13, 7, 0, true, true, true},
    {af::FMT_L8A8, Dx10Mode::Auto, 13, 7, 1, true, false, true},
};

struct Written {
    Case c;
    fs::path path;
    af::Texture tex;
};

std::vector<Written> write_cases(const fs::path& dir) {
    std::vector<Written> out;
    uint32_t seed = 100;
    for (const auto& c : kCases) {
        af::TextureDesc d;
        d.format = c.format;
        d.width = c.w;
        d.height = c.h;
        d.mips = c.mips ? c.mips : af::full_mip_count(c.w, c.h);
        Written w{c,
                  dir / (std::string(af::format_info(c.format)->name) + (c.mode == Dx10Mode::Always ? "_dx10" : "") +
                         "_" + std::to_string(c.w) + "x" + std::to_string(c.h) + ".dds"),
                  random_texture(d, ++seed)};
        write_file(w.path, dds_test::write_dds(w.tex, c.mode));
        out.push_back(std::move(w));
    }
    return out;
}

// The RGBA8 texel Pillow should produce for the first mip of an uncompressed texture.
bool expected_rgba(const af::Texture& t, std::vector<uint8_t>& rgba) {
    auto s = t.surface(0, 0, 0);
    size_t n = size_t(s.width) * s.height;
    rgba.assign(n * 4, 255);
    for (size_t i = 0; i < n; ++i) {
        uint8_t* o = &rgba[i * 4];
        const uint8_t* p = s.data;
        switch (t.desc.format) {
        case af::FMT_R8G8B8A8_UNORM:
        case af::FMT_R8G8B8A8_UNORM_SRGB:
            std::copy(p + i * 4, p + i * 4 + 4, o);
            break;
        case af::FMT_B8G8R8A8_UNORM:
            o[0] = p[i * 4 + 2], o[1] = p[i * 4 + 1], o[2] = p[i * 4], o[3] = p[i * 4 + 3];
            break;
        case af::FMT_B8G8R8:
            o[0] = p[i * 3 + 2], o[1] = p[i * 3 + 1], o[2] = p[i * 3];
            break;
        case af::FMT_L8:
            o[0] = o[1] = o[2] = p[i];
            break;
        case af::FMT_L8A8:
            o[0] = o[1] = o[2] = p[i * 2], o[3] = p[i * 2 + 1];
            break;
        default:
            return false;
        }
    }
    return true;
}

} // namespace

TEST_CASE("written files open in Pillow, with the right texels for uncompressed formats") {
    std::string missing = python_pillow_missing();
    if (!missing.empty()) {
        WARN("skipped: " << missing);
        return;
    }
    ScratchDir dir("pillow");
    auto files = write_cases(dir.path);
    std::string cmd = std::string(kPython) + " " + quote(std::string(DDS_TEST_SCRIPTS) + "/pillow_probe.py") +
                      " --dump " + quote(dir.path.string());
    for (const auto& w : files)
        if (w.c.pillow) {
            cmd += ' ';
            cmd += quote(w.path.string());
        }
    RunResult r = run(cmd);
    REQUIRE(r.status == 0);
    auto report = nlohmann::json::parse(r.out);
    int pixel_checked = 0;
    for (const auto& w : files) {
        if (!w.c.pillow) continue;
        INFO(w.path.filename().string());
        const auto& p = report.at(w.path.string());
        REQUIRE_FALSE(p.contains("error"));
        CHECK(p["width"] == w.c.w);
        CHECK(p["height"] == w.c.h);
        std::vector<uint8_t> want;
        if (expected_rgba(w.tex, want)) {
            CHECK(read_file(p["dump"].get<std::string>()) == want);
            ++pixel_checked;
        }
    }
    CHECK(pixel_checked == 7);
}

TEST_CASE("written files pass ImageMagick identify") {
    std::string missing = tool_missing("/usr/bin/identify");
    if (!missing.empty()) {
        WARN("skipped: " << missing);
        return;
    }
    ScratchDir dir("magick");
    for (const auto& w : write_cases(dir.path)) {
        if (!w.c.magick) continue;
        INFO(w.path.filename().string());
        RunResult r = run("/usr/bin/identify -format '%w %h %m\\n' " + quote(w.path.string()));
        CHECK(r.status == 0);
        std::string want = std::to_string(w.c.w) + " " + std::to_string(w.c.h) + " DDS\n";
        CHECK(r.out.substr(0, want.size()) == want);
        CHECK(r.out.find("identify") == std::string::npos); // no warnings on stderr
    }
}

TEST_CASE("written files pass nvtt: nvddsinfo reads the header, nvdecompress decodes") {
    std::string missing = tool_missing("/usr/bin/nvddsinfo");
    if (!missing.empty()) {
        WARN("skipped: " << missing);
        return;
    }
    ScratchDir dir("nvtt");
    for (const auto& w : write_cases(dir.path)) {
        INFO(w.path.filename().string());
        RunResult r = run("/usr/bin/nvddsinfo " + quote(w.path.string()));
        REQUIRE(r.status == 0);
        std::smatch m;
        REQUIRE(std::regex_search(r.out, m, std::regex("Width: (\\d+)")));
        CHECK(std::stoul(m[1]) == w.c.w);
        REQUIRE(std::regex_search(r.out, m, std::regex("Height: (\\d+)")));
        CHECK(std::stoul(m[1]) == w.c.h);
        REQUIRE(std::regex_search(r.out, m, std::regex("Mipmap count: (\\d+)")));
        CHECK(std::stoul(m[1]) == w.tex.desc.mips);
        bool dx10 = std::regex_search(r.out, m, std::regex("DXGI Format: (\\d+)"));
        if (dx10) CHECK(std::stoul(m[1]) == w.c.format);
        CHECK(dx10 == (w.c.mode == Dx10Mode::Always || w.c.format == af::FMT_BC7_UNORM ||
                       w.c.format == af::FMT_BC7_UNORM_SRGB || w.c.format == af::FMT_BC6H_UF16 ||
                       w.c.format == af::FMT_BC6H_SF16 || w.c.format == af::FMT_BC5_SNORM ||
                       w.c.format == af::FMT_R8G8B8A8_UNORM_SRGB));
        if (!w.c.nvdecompress || !tool_missing("/usr/bin/nvdecompress").empty()) continue;
        fs::path tga = w.path;
        tga.replace_extension(".tga");
        RunResult d =
            run("cd " + quote(dir.path.string()) + " && /usr/bin/nvdecompress " + quote(w.path.filename().string()));
        CHECK(d.status == 0);
        REQUIRE(fs::exists(tga));
        auto t = read_file(tga);
        REQUIRE(t.size() > 18);
        CHECK((t[12] | t[13] << 8) == int(w.c.w));
        CHECK((t[14] | t[15] << 8) == int(w.c.h));
    }
}

TEST_CASE("corpus files rewritten by the plugin decode identically in Pillow") {
    std::string missing = python_pillow_missing();
    if (!missing.empty()) {
        WARN("skipped: " << missing);
        return;
    }
    ScratchDir dir("rewrite");
    fs::create_directories(dir.path / "dump");
    std::string cmd = std::string(kPython) + " " + quote(std::string(DDS_TEST_SCRIPTS) + "/pillow_probe.py") +
                      " --dump " + quote((dir.path / "dump").string());
    std::vector<std::pair<fs::path, fs::path>> pairs;
    for (const auto& f : corpus_files()) {
        auto bytes = read_file(f);
        af::Texture t = af::dds::read_dds(bytes.data(), bytes.size(), {});
        fs::path out = dir.path / ("rewritten_" + f.filename().string());
        auto written = dds_test::write_dds(t, {});
        // Same header style as the source (legacy FourCC), same data.
        CHECK(written.size() == bytes.size());
        CHECK(std::equal(written.begin() + 84, written.begin() + 88, bytes.begin() + 84)); // FourCC
        write_file(out, written);
        pairs.emplace_back(f, out);
        for (const auto& p : {f, out}) {
            cmd += ' ';
            cmd += quote(p.string());
        }
    }
    RunResult r = run(cmd);
    REQUIRE(r.status == 0);
    auto report = nlohmann::json::parse(r.out);
    for (const auto& [orig, out] : pairs) {
        INFO(orig.filename().string());
        const auto& a = report.at(orig.string());
        const auto& b = report.at(out.string());
        REQUIRE_FALSE(a.contains("error"));
        REQUIRE_FALSE(b.contains("error"));
        // Both dumps share a basename only when names collide; they do not here.
        CHECK((read_file(a["dump"].get<std::string>()) == read_file(b["dump"].get<std::string>())));
    }
}
