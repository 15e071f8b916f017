// Hostile and broken files: every one a clear error with the offending
// offset, never a crash, a hang, or an allocation the file does not justify.
#include "dds_format.hpp"
#include "dds_reader.hpp"
#include "dds_writer.hpp"
#include "test_support.hpp"

#include "assetforge/formats.hpp"
#include "assetforge/plugin.hpp"
#include "assetforge/testing/fake_host.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <random>

using namespace dds_test;

namespace {

std::vector<uint8_t> small_file(uint32_t fmt, uint32_t w, uint32_t h, uint32_t mips, af::dds::Dx10Mode mode,
                                uint32_t layers = 1, uint32_t faces = 1) {
    return dds_test::write_dds(random_texture(desc_of(fmt, w, h, mips, layers, faces), 42), mode);
}

void put32(std::vector<uint8_t>& f, size_t off, uint32_t v) { std::memcpy(f.data() + off, &v, 4); }

struct Failure {
    af_status status;
    uint64_t offset;
    std::string message;
};

Failure read_failure(const std::vector<uint8_t>& f, af::dds::ReadOptions opt = {}) {
    try {
        af::dds::read_dds(f.data(), f.size(), opt);
    } catch (const af::sdk::Error& e) {
        return {e.status(), e.offset(), e.what()};
    }
    return {AF_OK, 0, ""};
}

} // namespace

TEST_CASE("hostile: zero, huge and overflowing dimensions") {
    auto base = small_file(af::FMT_BC1_UNORM, 8, 8, 4, af::dds::Dx10Mode::Auto);
    auto f = base;
    put32(f, 16, 0);
    auto e = read_failure(f);
    CHECK(e.status == AF_ERR_INVALID_DATA);
    CHECK(e.offset == 16);
    CHECK_THAT(e.message, Catch::Contains("width is 0"));

    f = base;
    put32(f, 12, 0);
    e = read_failure(f);
    CHECK(e.offset == 12);
    CHECK_THAT(e.message, Catch::Contains("height is 0"));

    // Huge but representable: refused by the size check before any allocation.
    f = base;
    put32(f, 12, 0xffffffff);
    put32(f, 16, 0xffffffff);
    put32(f, 28, 1);
    e = read_failure(f);
    CHECK(e.status == AF_ERR_INVALID_DATA);
    CHECK_THAT(e.message, Catch::Contains("truncated") && Catch::Contains("184"));

    // Big enough to overflow 64 bits: 16-byte texels, 2^32-1 square, array of 2^32-1.
    auto dx = small_file(af::FMT_R32G32B32A32_FLOAT, 4, 4, 1, af::dds::Dx10Mode::Always);
    put32(dx, 12, 0xffffffff);
    put32(dx, 16, 0xffffffff);
    e = read_failure(dx);
    CHECK(e.status == AF_ERR_INVALID_DATA);
    CHECK_THAT(e.message, Catch::Contains("overflows"));
    dx = small_file(af::FMT_R32G32B32A32_FLOAT, 4, 4, 1, af::dds::Dx10Mode::Always);
    put32(dx, 12, 65536);
    put32(dx, 16, 65536);
    put32(dx, 140, 0xffffffff);
    e = read_failure(dx);
    CHECK(e.status == AF_ERR_INVALID_DATA);
    CHECK(e.offset == 140);
    CHECK_THAT(e.message, Catch::Contains("overflows"));

    // Host limits.
    af::dds::ReadOptions lim;
    lim.limits.max_dimension = 4;
    e = read_failure(base, lim);
    CHECK(e.status == AF_ERR_NO_MEMORY);
    CHECK_THAT(e.message, Catch::Contains("maximum dimension 4"));
    lim = {};
    lim.limits.max_surfaces = 3;
    CHECK(read_failure(base, lim).status == AF_ERR_NO_MEMORY);
    lim = {};
    lim.limits.max_texture_bytes = 32;
    CHECK(read_failure(base, lim).status == AF_ERR_NO_MEMORY);
}

TEST_CASE("hostile: mip counts, array sizes, dimensions, formats") {
    auto base = small_file(af::FMT_BC1_UNORM, 8, 8, 4, af::dds::Dx10Mode::Auto);
    auto f = base;
    put32(f, 28, 40);
    auto e = read_failure(f);
    CHECK(e.offset == 28);
    CHECK_THAT(e.message, Catch::Contains("mip count 40") && Catch::Contains("4 levels"));
    f = base;
    put32(f, 28, 5);
    CHECK(read_failure(f).offset == 28);
    f = base;
    put32(f, 28, 0); // 0 means 1: fine, with the other mips as trailing bytes
    std::vector<af::dds::Problem> warnings;
    af::Texture t = af::dds::read_dds(f.data(), f.size(), {}, &warnings);
    CHECK(t.desc.mips == 1);
    REQUIRE(warnings.size() == 1);
    CHECK_THAT(warnings[0].message, Catch::Contains("24 trailing bytes"));
    CHECK(warnings[0].offset == 128 + 32);

    auto dx = small_file(af::FMT_BC7_UNORM, 8, 8, 1, af::dds::Dx10Mode::Always);
    f = dx;
    put32(f, 140, 0);
    e = read_failure(f);
    CHECK(e.offset == 140);
    CHECK_THAT(e.message, Catch::Contains("arraySize is 0"));
    f = dx;
    put32(f, 140, 0xffffffff);
    e = read_failure(f);
    CHECK(e.status == AF_ERR_INVALID_DATA);
    CHECK_THAT(e.message, Catch::Contains("truncated"));
    f = dx;
    put32(f, 128, 0);
    CHECK(read_failure(f).offset == 128);
    f = dx;
    put32(f, 128, 200);
    e = read_failure(f);
    CHECK(e.status == AF_ERR_UNSUPPORTED);
    CHECK(e.offset == 128);
    f = dx;
    put32(f, 128, af::FMT_B8G8R8); // AssetForge ids are not DXGI formats
    CHECK(read_failure(f).status == AF_ERR_UNSUPPORTED);
    f = dx;
    put32(f, 132, 7);
    CHECK(read_failure(f).offset == 132);
    f = dx;
    put32(f, 132, 4);
    put32(f, 140, 2);
    CHECK(read_failure(f).offset == 140); // 3-D arrays do not exist
    f = dx;
    put32(f, 132, 4);
    put32(f, 24, 0);
    CHECK(read_failure(f).offset == 24);

    f = base;
    put32(f, 84, af::dds::fourcc('A', 'B', 'C', 'D'));
    e = read_failure(f);
    CHECK(e.status == AF_ERR_UNSUPPORTED);
    CHECK(e.offset == 84);
    CHECK_THAT(e.message, Catch::Contains("unknown FourCC 'ABCD'"));
    f = base;
    put32(f, 84, af::dds::fourcc('U', 'Y', 'V', 'Y'));
    CHECK_THAT(read_failure(f).message, Catch::Contains("UYVY"));

    f = base;
    put32(f, 4, 0);
    e = read_failure(f);
    CHECK(e.offset == 4);
    af::dds::ReadOptions perm;
    perm.permissive = true;
    CHECK(read_failure(f, perm).status == AF_OK);
    f = base;
    put32(f, 76, 0);
    CHECK(read_failure(f).offset == 76);
    f = base;
    put32(f, 0, 0x12345678);
    e = read_failure(f);
    CHECK(e.offset == 0);
    CHECK_THAT(e.message, Catch::Contains("not a DDS file"));

    // Partial legacy cubemap: honest "unsupported".
    auto cube = small_file(af::FMT_B8G8R8A8_UNORM, 4, 4, 1, af::dds::Dx10Mode::Auto, 1, 6);
    f = cube;
    put32(f, 112, 0x200 | 0x400 | 0x800);
    e = read_failure(f);
    CHECK(e.status == AF_ERR_UNSUPPORTED);
    CHECK(e.offset == 112);
    CHECK_THAT(e.message, Catch::Contains("partial cubemap"));
    f = cube;
    put32(f, 112, 0x200 | 0xfc00 | 0x200000);
    CHECK(read_failure(f).offset == 112); // cube and volume at once

    // Uncompressed masks nothing matches.
    auto rgb = small_file(af::FMT_B8G8R8A8_UNORM, 4, 4, 1, af::dds::Dx10Mode::Auto);
    f = rgb;
    put32(f, 92, 0x0f0f0f0f);
    e = read_failure(f);
    CHECK(e.status == AF_ERR_UNSUPPORTED);
    CHECK(e.offset == 88);
    f = rgb;
    put32(f, 88, 7);
    CHECK(read_failure(f).offset == 88);
}

TEST_CASE("hostile: truncated at every offset, strict and permissive") {
    const std::vector<std::vector<uint8_t>> files = {
        small_file(af::FMT_BC1_UNORM, 8, 8, 4, af::dds::Dx10Mode::Auto),
        small_file(af::FMT_BC7_UNORM, 5, 9, 4, af::dds::Dx10Mode::Always, 2),
        small_file(af::FMT_B8G8R8A8_UNORM, 3, 3, 2, af::dds::Dx10Mode::Auto, 1, 6),
        read_file(data_dir() / "Terrain__transition1.dds"),
    };
    af::dds::ReadOptions perm;
    perm.permissive = true;
    for (const auto& full : files) {
        for (size_t n = 0; n < full.size(); ++n) {
            INFO("truncated to " << n << " of " << full.size());
            // A copy of exactly n bytes, so reading past it would be caught by ASan.
            std::vector<uint8_t> cut(full.begin(), full.begin() + n);
            auto e = read_failure(cut);
            REQUIRE(e.status == AF_ERR_INVALID_DATA);
            CHECK_FALSE(e.message.empty());
            CHECK(e.offset <= n);
            if (n >= 148)
                CHECK_THAT(e.message,
                           Catch::Contains(std::to_string(n)) && Catch::Contains(std::to_string(full.size())));
            auto p = read_failure(cut, perm);
            if (p.status == AF_OK) {
                std::vector<af::dds::Problem> warnings;
                af::Texture t = af::dds::read_dds(cut.data(), cut.size(), perm, &warnings);
                CHECK(t.data.size() <= n);
                REQUIRE(warnings.size() >= 1);
                CHECK_THAT(warnings.back().message, Catch::Contains("permissive") && Catch::Contains("of"));
            } else {
                CHECK(p.status == AF_ERR_INVALID_DATA);
            }
        }
    }
}

TEST_CASE("the EchoVR-style miscount: 21848 data bytes for a 128x128 BC7 chain") {
    auto full = small_file(af::FMT_BC7_UNORM, 128, 128, 8, af::dds::Dx10Mode::Always);
    REQUIRE(full.size() == 148 + 21872);
    std::vector<uint8_t> f(full.begin(), full.begin() + 148 + 21848);
    auto e = read_failure(f);
    CHECK(e.status == AF_ERR_INVALID_DATA);
    CHECK_THAT(e.message, Catch::Contains("21996") && Catch::Contains("22020") && Catch::Contains("24 bytes missing") &&
                              Catch::Contains("8-byte blocks"));
    af::dds::ReadOptions perm;
    perm.permissive = true;
    std::vector<af::dds::Problem> warnings;
    af::Texture t = af::dds::read_dds(f.data(), f.size(), perm, &warnings);
    CHECK(t.desc.mips == 6);
    CHECK(std::equal(t.data.begin(), t.data.end(), full.begin() + 148));
    REQUIRE(warnings.size() == 1);
    CHECK_THAT(warnings[0].message, Catch::Contains("read 6 of 8 mip levels"));
}

TEST_CASE("hostile: random header corruption never crashes") {
    const std::vector<std::vector<uint8_t>> seeds = {
        small_file(af::FMT_BC1_UNORM, 8, 8, 4, af::dds::Dx10Mode::Auto),
        small_file(af::FMT_BC7_UNORM, 8, 4, 2, af::dds::Dx10Mode::Always, 3),
        small_file(af::FMT_B5G6R5_UNORM, 5, 3, 3, af::dds::Dx10Mode::Auto),
    };
    std::mt19937 rng(1234);
    int ok = 0, failed = 0;
    for (int i = 0; i < 20000; ++i) {
        auto f = seeds[i % seeds.size()];
        int edits = 1 + int(rng() % 4);
        for (int k = 0; k < edits; ++k) {
            size_t at = rng() % 148;
            if (rng() % 2)
                f[at] = uint8_t(rng());
            else if (at + 4 <= 148)
                put32(f, at, rng() % 3 ? uint32_t(rng() % 64) : uint32_t(rng()));
        }
        f.resize(rng() % 8 ? f.size() : rng() % f.size());
        af::dds::ReadOptions o;
        o.permissive = rng() % 2;
        auto e = read_failure(f, o);
        if (e.status == AF_OK)
            ++ok;
        else {
            ++failed;
            CHECK_FALSE(e.message.empty());
            CHECK((e.status == AF_ERR_INVALID_DATA || e.status == AF_ERR_UNSUPPORTED));
        }
    }
    CHECK(ok > 0);
    CHECK(failed > 0);
}

TEST_CASE("container ABI: errors, warnings and allocations through the C table") {
    const af_container* c = dds_test::dds_container();
    af::sdk::testing::FakeHost host;
    REQUIRE(c->probe(reinterpret_cast<const uint8_t*>("DDS \x7c"), 5, "x.bin") == AF_PROBE_MAGIC);
    CHECK(c->probe(reinterpret_cast<const uint8_t*>("\x89PNG"), 4, "a/b.DDS") == AF_PROBE_EXTENSION);
    CHECK(c->probe(reinterpret_cast<const uint8_t*>("\x89PNG"), 4, "a/b.png") == AF_PROBE_NO);

    // Huge dimensions in a 184-byte file: refused, and nothing allocated.
    auto f = small_file(af::FMT_BC1_UNORM, 8, 8, 4, af::dds::Dx10Mode::Auto);
    put32(f, 12, 0x40000);
    put32(f, 16, 0x40000);
    put32(f, 28, 1);
    std::vector<std::string> warns;
    af_input in{};
    af::sdk::init_header(in);
    in.path = "hostile.dds";
    in.data = f.data();
    in.size = f.size();
    in.diag_ctx = &warns;
    in.warn = [](void* ctx, uint64_t, const char* msg) { static_cast<std::vector<std::string>*>(ctx)->push_back(msg); };
    af_texture tex{};
    af_error err{};
    CHECK(c->read(host, &in, nullptr, &tex, &err) == AF_ERR_INVALID_DATA);
    CHECK(host.allocations() == 0);
    CHECK(err.offset == f.size());
    CHECK_THAT(std::string(err.message), Catch::Contains("truncated"));

    // Trailing bytes: read succeeds, warns, allocates exactly the texture.
    f = small_file(af::FMT_BC1_UNORM, 8, 8, 4, af::dds::Dx10Mode::Auto);
    f.insert(f.end(), 10, 0xAB);
    in.data = f.data();
    in.size = f.size();
    REQUIRE(c->read(host, &in, nullptr, &tex, &err) == AF_OK);
    CHECK(host.allocated_bytes() == 56);
    CHECK(tex.data_size == 56);
    CHECK(tex.mip_count == 4);
    CHECK(tex.format == af::FMT_BC1_UNORM);
    REQUIRE(warns.size() == 1);
    CHECK_THAT(warns[0], Catch::Contains("10 trailing bytes"));

    // Written back through the sink: the original bytes minus the trailer.
    std::vector<uint8_t> out;
    af_sink sink{&out, [](void* ctx, const void* data, uint64_t n) {
                     auto* v = static_cast<std::vector<uint8_t>*>(ctx);
                     v->insert(v->end(), static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + n);
                     return AF_OK;
                 }};
    REQUIRE(c->write(host, &tex, nullptr, &sink, &err) == AF_OK);
    CHECK(out == std::vector<uint8_t>(f.begin(), f.end() - 10));
    af_kv bad[] = {{"dx10", "sometimes"}};
    af_options bad_opts{bad, 1};
    out.clear();
    CHECK(c->write(host, &tex, &bad_opts, &sink, &err) == AF_ERR_USAGE);
    CHECK_THAT(std::string(err.message), Catch::Contains("auto, always, never"));
    tex.data_size -= 1;
    CHECK(c->write(host, &tex, nullptr, &sink, &err) == AF_ERR_USAGE);
    tex.data_size += 1;
    host.get()->free(tex.data);

    // Permissive through options.
    std::vector<uint8_t> cut(f.begin(), f.begin() + 128 + 40);
    in.data = cut.data();
    in.size = cut.size();
    af_kv kv[] = {{"permissive", "true"}};
    af_options opts{kv, 1};
    CHECK(c->read(host, &in, nullptr, &tex, &err) == AF_ERR_INVALID_DATA);
    CHECK_THAT(std::string(err.message), Catch::Contains("168") && Catch::Contains("184"));
    warns.clear();
    REQUIRE(c->read(host, &in, &opts, &tex, &err) == AF_OK);
    CHECK(tex.mip_count == 2);
    CHECK_THAT(warns.at(0), Catch::Contains("read 2 of 4 mip levels"));
    host.get()->free(tex.data);
    CHECK(host.live_allocations() == 0);
    CHECK(host.bad_frees() == 0);
}
