// Re-saving an XTF with no options gives the same file back. Read and write go
// through the container ABI as the host calls them (the writer gets the
// texture the reader produced, metadata included), and end to end through
// `assetforge convert a.xtf b.xtf`.
#include "test_support.hpp"
#include "vtf_formats.hpp"
#include "xtf_format.hpp"
#include "xtf_reader.hpp"
#include "xtf_writer.hpp"

#include "assetforge/plugin.hpp"

#include <catch2/catch.hpp>

#include <cstring>

#ifdef AF_EXE
#include "cli_run.hpp"
#include "temp_dir.hpp"
#endif

using namespace af::xtf;

namespace {

const af_options kNoOptions{nullptr, 0};

uint32_t bits(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}

// Every header value a re-save keeps, one CHECK each, so a failure names the
// field rather than a byte offset.
void check_kept(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want) {
    const XtfHeader g = parse_xtf_header(got.data(), got.size());
    const XtfHeader w = parse_xtf_header(want.data(), want.size());
    CHECK(vtf_format_name(g.image_format) == vtf_format_name(w.image_format));
    CHECK(flag_names(g.flags, true) == flag_names(w.flags, true));
    CHECK(g.flags == w.flags);
    CHECK(g.width == w.width);
    CHECK(g.height == w.height);
    CHECK(g.depth == w.depth);
    CHECK(g.frames == w.frames);
    CHECK(xtf_layout(g, got.size(), false).mips == xtf_layout(w, want.size(), false).mips);
    CHECK(g.fallback_width == w.fallback_width);
    CHECK(g.fallback_height == w.fallback_height);
    CHECK(g.lowres_width == w.lowres_width);
    CHECK(g.lowres_height == w.lowres_height);
    CHECK(g.mip_skip == w.mip_skip);
    CHECK(bits(g.bumpmap_scale) == bits(w.bumpmap_scale));
    for (int c = 0; c < 3; ++c) CHECK(bits(g.reflectivity[c]) == bits(w.reflectivity[c]));
    CHECK(g.preload_size == w.preload_size);
    CHECK(g.image_offset == w.image_offset);
}

// read → write through the xtf container, the texture passed on untouched.
std::vector<uint8_t> resave(const std::vector<uint8_t>& file, const af_options& read_options,
                            const af_options& write_options = kNoOptions) {
    const af_host* h = xtftest::host();
    af_input in = xtftest::input_of(file, "in.xtf");
    af_texture tex{};
    af_error err{};
    REQUIRE(xtftest::container("xtf")->read(h, &in, &read_options, &tex, &err) == AF_OK);
    xtftest::ByteSink out;
    const af_status st = xtftest::container("xtf")->write(h, &tex, &write_options, &out.sink, &err);
    h->free(tex.data);
    h->free(tex.palette);
    INFO(err.message);
    REQUIRE(st == AF_OK);
    return out.bytes;
}

} // namespace

// All eleven fixtures were written by vtfpp (a canonical writer: 512-byte
// rules, DXT1 as id 13, NOMIP on single-mip files), so every byte must come back.
TEST_CASE("re-save: every fixture read and written with no options comes back byte for byte", "[xtf][resave]") {
    for (const std::string& name : xtftest::fixture_names()) {
        SECTION(name) {
            const auto file = xtftest::fixture_xtf(name);
            const auto out = resave(file, kNoOptions);
            check_kept(out, file);
            CHECK(out.size() == file.size());
            CHECK(xtftest::sha256(out) == xtftest::sha256(file));
        }
    }
}

TEST_CASE("re-save: P8 read with keep_indices comes back byte for byte too", "[xtf][resave][p8]") {
    const auto file = xtftest::fixture_xtf("p8_32x32_mips");
    af_kv kv[] = {{"keep_indices", "true"}};
    const auto out = resave(file, af_options{kv, 1});
    check_kept(out, file);
    CHECK(xtftest::sha256(out) == xtftest::sha256(file));
}

TEST_CASE("re-save: an option given replaces only its own field", "[xtf][resave]") {
    const auto file = xtftest::fixture_xtf("dxt1_64x64_mips");
    af_kv skip[] = {{"mipskip", "3"}};
    auto out = resave(file, kNoOptions, af_options{skip, 1});
    REQUIRE(out.size() == file.size());
    CHECK(out[xtfoff::mip_skip] == 3);
    out[xtfoff::mip_skip] = file[xtfoff::mip_skip];
    CHECK(out == file);

    // No fallback: the preload shrinks, everything else is kept.
    af_kv none[] = {{"fallback", "none"}};
    out = resave(file, kNoOptions, af_options{none, 1});
    const XtfHeader g = parse_xtf_header(out.data(), out.size());
    const XtfHeader w = parse_xtf_header(file.data(), file.size());
    CHECK(g.fallback_width == 0);
    CHECK(g.flags == w.flags);
    CHECK(g.image_format == VTF_DXT1);
    CHECK(xtf_layout(g, out.size(), false).mips == 7);
    CHECK(std::equal(out.begin() + g.image_offset, out.begin() + g.image_offset + 2744,
                     file.begin() + w.image_offset)); // the DXT1 chain, copied
}

TEST_CASE("re-save: changed pixels get a fresh fallback and reflectivity while the settings stay", "[xtf][resave]") {
    const auto file = xtftest::fixture_xtf("bgra8888_64x64_mips");
    af_input in = xtftest::input_of(file, "in.xtf");
    af_texture tex{};
    af_error err{};
    REQUIRE(xtftest::container("xtf")->read(xtftest::host(), &in, &kNoOptions, &tex, &err) == AF_OK);
    af::Texture t = af::sdk::import_texture(tex);
    xtftest::host()->free(tex.data);
    // Darken mip 0 (colour bytes only): what the stored fallback and
    // reflectivity were computed from no longer exists.
    af::ImageView top = t.surface(0, 0, 0);
    for (uint64_t i = 0; i < top.size; ++i)
        if (i % 4 != 3) top.data[i] = uint8_t(top.data[i] / 4);
    const auto out = write_xtf(xtftest::host(), t, {});
    const XtfHeader g = parse_xtf_header(out.data(), out.size());
    const XtfHeader w = parse_xtf_header(file.data(), file.size());
    CHECK(g.image_format == VTF_BGRA8888);
    CHECK(g.flags == w.flags); // CACHEABLE and EIGHTBITALPHA as in the file
    CHECK(g.fallback_width == 8);
    CHECK(xtf_layout(g, out.size(), false).mips == 7);
    CHECK(g.reflectivity[0] < w.reflectivity[0] / 4);
    CHECK(out.size() == file.size());
    CHECK(!std::equal(out.begin() + 58, out.begin() + g.preload_size, file.begin() + 58)); // fallback resampled
}

#ifdef AF_EXE
// End to end: the CLI reads, hands the texture to the writer and writes.
// Fixtures written without mips (NOMIP) are checked separately below.
TEST_CASE("re-save: assetforge convert a.xtf b.xtf gives the fixture back", "[xtf][resave][cli]") {
    af::test::TempDir dir("xtf-resave");
    for (const std::string& name : xtftest::fixture_names()) {
        const auto file = xtftest::fixture_xtf(name);
        if (parse_xtf_header(file.data(), file.size()).flags & vtfflag::nomip) continue;
        SECTION(name) {
            const auto in = xtftest::data_dir() / name / (name + ".xtf");
            const auto out = dir / (name + ".xtf");
            const auto run = af::test::run_cli("convert '" + in.string() + "' '" + out.string() + "'");
            INFO(run.out);
            REQUIRE(run.code == 0);
            const auto got = xtftest::read_bytes(out);
            check_kept(got, file);
            CHECK(xtftest::sha256(got) == xtftest::sha256(file));
        }
    }
}

// `convert` today rebuilds a mip chain for any single-mip input that is not
// written as PNG, and the rebuilt texture (RGBA8, converted back to the
// input's format) carries no metadata, so the writer sees a plain 32x32 image
// and picks by content. Once convert passes a non-PNG input through unchanged
// when no option is given, this passes; until then it is expected to fail.
TEST_CASE("re-save: assetforge convert keeps a NOMIP fixture", "[xtf][resave][cli]") {
    af::test::TempDir dir("xtf-resave-nomip");
    const std::string name = "bgra8888_32x32_nomip_nofallback";
    const auto file = xtftest::fixture_xtf(name);
    const auto out = dir / "out.xtf";
    const auto run = af::test::run_cli("convert '" + (xtftest::data_dir() / name / (name + ".xtf")).string() + "' '" +
                                       out.string() + "'");
    INFO(run.out);
    REQUIRE(run.code == 0);
    const auto got = xtftest::read_bytes(out);
    check_kept(got, file);
    CHECK(xtftest::sha256(got) == xtftest::sha256(file));
}
#endif
