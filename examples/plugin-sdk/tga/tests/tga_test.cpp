// The tga plugin through the C ABI on the SDK's FakeHost: every kind of file it reads (made byte by byte here, so
// the expected texels are known independently of our writer), what it writes, and damaged or hostile files.
// tests/sdk_plugin_test.sh in the AssetForge tree also checks it against Pillow on files Pillow writes.
#ifndef AF_CATCH_MAIN_LINKED // the AssetForge tree links its own Catch2 main
#define CATCH_CONFIG_MAIN
#endif
#include "tga_format.hpp"
#include "tga_reader.hpp"
#include "tga_writer.hpp"

#include <assetforge/testing/fake_host.hpp>
#include <assetforge/texture.hpp>
#include <assetforge/write_texture.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

// The plugin's own allocations, not only the host's: FakeHost counts what goes through the host, and a hostile
// header must also be refused before the plugin's own vectors grow to the size it claims. Requests above the
// ceiling are refused (std::bad_alloc) and remembered, so a regression fails at once instead of zeroing gigabytes.
// Under AddressSanitizer its own allocator stays (it pairs every new with its delete) and its
// max_allocation_size_mb option is the ceiling; `largest` then stays 0.
namespace alloc_probe {
std::atomic<std::size_t> largest{0};
constexpr std::size_t kCeiling = std::size_t(1) << 30;
} // namespace alloc_probe

#if defined(__SANITIZE_ADDRESS__)
#define AF_ALLOC_PROBE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AF_ALLOC_PROBE 0
#endif
#endif
#ifndef AF_ALLOC_PROBE
#define AF_ALLOC_PROBE 1
#endif

#if AF_ALLOC_PROBE

// GCC takes a replaced operator delete's free() of what the replaced operator new malloc()ed for a mismatch.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void* operator new(std::size_t n) {
    std::size_t seen = alloc_probe::largest.load();
    while (n > seen && !alloc_probe::largest.compare_exchange_weak(seen, n)) {
    }
    if (n > alloc_probe::kCeiling) throw std::bad_alloc();
    if (void* p = std::malloc(n ? n : 1)) return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif // AF_ALLOC_PROBE

namespace {

using Bytes = std::vector<uint8_t>;

Bytes header(uint8_t type, uint16_t w, uint16_t h, uint8_t bits, uint8_t descriptor, uint8_t map_type = 0,
             uint16_t map_first = 0, uint16_t map_length = 0, uint8_t map_bits = 0, uint8_t id_length = 0) {
    Bytes b = {id_length,
               map_type,
               type,
               uint8_t(map_first),
               uint8_t(map_first >> 8),
               uint8_t(map_length),
               uint8_t(map_length >> 8),
               map_bits,
               0,
               0,
               0,
               0,
               uint8_t(w),
               uint8_t(w >> 8),
               uint8_t(h),
               uint8_t(h >> 8),
               bits,
               descriptor};
    b.insert(b.end(), id_length, 'i');
    return b;
}

Bytes operator+(Bytes a, const Bytes& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

struct Read {
    af_status status;
    Bytes rgba;
    af::TextureDesc desc;
    std::string error;
    uint64_t offset;
};

Read read_file(const Bytes& f, af::sdk::testing::FakeHost& host) {
    af_input in{};
    af::sdk::init_header(in);
    in.path = "t.tga";
    in.data = f.data();
    in.size = f.size();
    af_texture tex{};
    af_error err{};
    Read r{tga::read(host, &in, nullptr, &tex, &err), {}, {}, err.message, err.offset};
    if (r.status == AF_OK) {
        af::Texture t = af::sdk::import_texture(tex);
        r.rgba = t.data;
        r.desc = t.desc;
        host.get()->free(tex.data);
    }
    return r;
}

// 3x2: row 0 (top) red green blue, row 1 white black grey; the file's first row is the bottom one unless top-down.
const Bytes kTopRgba = {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255};
const Bytes kBottomRgba = {255, 255, 255, 255, 0, 0, 0, 255, 128, 128, 128, 255};
const Bytes kBgrTop = {0, 0, 255, 0, 255, 0, 255, 0, 0};
const Bytes kBgrBottom = {255, 255, 255, 0, 0, 0, 128, 128, 128};

} // namespace

TEST_CASE("24-bit and 32-bit true colour, both origins and right to left", "[tga]") {
    af::sdk::testing::FakeHost host;
    auto r = read_file(header(2, 3, 2, 24, 0) + kBgrBottom + kBgrTop, host); // bottom-left origin
    REQUIRE(r.status == AF_OK);
    CHECK(r.desc.width == 3);
    CHECK(r.desc.format == af::FMT_R8G8B8A8_UNORM_SRGB);
    CHECK(r.desc.alpha_mode == AF_ALPHA_OPAQUE);
    CHECK(r.rgba == kTopRgba + kBottomRgba);

    r = read_file(header(2, 3, 2, 24, 0x20) + kBgrTop + kBgrBottom, host); // top-left origin
    CHECK(r.rgba == kTopRgba + kBottomRgba);

    // Right to left, top down: each row stored backwards.
    const Bytes top_rev = {255, 0, 0, 0, 255, 0, 0, 0, 255};
    const Bytes bottom_rev = {128, 128, 128, 0, 0, 0, 255, 255, 255};
    r = read_file(header(2, 3, 2, 24, 0x30) + top_rev + bottom_rev, host);
    CHECK(r.rgba == kTopRgba + kBottomRgba);

    // 32-bit keeps alpha.
    const Bytes px = {10, 20, 30, 40, 50, 60, 70, 80};
    r = read_file(header(2, 2, 1, 32, 0x28) + px, host);
    REQUIRE(r.status == AF_OK);
    CHECK(r.desc.alpha_mode == AF_ALPHA_STRAIGHT);
    CHECK(r.rgba == Bytes{30, 20, 10, 40, 70, 60, 50, 80});
    CHECK(host.live_allocations() == 0);
}

TEST_CASE("greyscale and colour-mapped, raw and RLE, runs across rows", "[tga]") {
    af::sdk::testing::FakeHost host;
    auto r = read_file(header(3, 2, 2, 8, 0x20) + Bytes{0, 50, 100, 255}, host);
    REQUIRE(r.status == AF_OK);
    CHECK(r.rgba == Bytes{0, 0, 0, 255, 50, 50, 50, 255, 100, 100, 100, 255, 255, 255, 255, 255});

    // RLE grey: one run of 3 that crosses from row 0 into row 1, then one raw texel.
    r = read_file(header(11, 2, 2, 8, 0x20) + Bytes{0x82, 7, 0x00, 9}, host);
    REQUIRE(r.status == AF_OK);
    CHECK(r.rgba == Bytes{7, 7, 7, 255, 7, 7, 7, 255, 7, 7, 7, 255, 9, 9, 9, 255});

    // Colour-mapped, 24-bit map whose first index is 5, with an image id before it.
    const Bytes map24 = {0, 0, 255, 0, 255, 0}; // index 5 red, index 6 green
    r = read_file(header(1, 2, 1, 8, 0x20, 1, 5, 2, 24, 3) + map24 + Bytes{6, 5}, host);
    REQUIRE(r.status == AF_OK);
    CHECK(r.rgba == Bytes{0, 255, 0, 255, 255, 0, 0, 255});

    // RLE colour-mapped with a 32-bit map (alpha from the map): a run of 2, then raw 1.
    const Bytes map32 = {1, 2, 3, 4, 5, 6, 7, 8};
    r = read_file(header(9, 3, 1, 8, 0x20, 1, 0, 2, 32) + map32 + Bytes{0x81, 1, 0x00, 0}, host);
    REQUIRE(r.status == AF_OK);
    CHECK(r.desc.alpha_mode == AF_ALPHA_STRAIGHT);
    CHECK(r.rgba == Bytes{7, 6, 5, 8, 7, 6, 5, 8, 3, 2, 1, 4});

    // RLE true colour, 24-bit: run of 2 red, raw green+blue, bottom-left origin on one row.
    r = read_file(header(10, 4, 1, 24, 0) + Bytes{0x81, 0, 0, 255, 0x01, 0, 255, 0, 255, 0, 0}, host);
    REQUIRE(r.status == AF_OK);
    CHECK(r.rgba == Bytes{255, 0, 0, 255, 255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255});
}

TEST_CASE("writing: 32-bit BGRA, raw or RLE, read back exactly, RLE packets stay within a row", "[tga]") {
    af::sdk::testing::FakeHost host;
    Bytes rgba;
    for (int y = 0; y < 5; ++y)
        for (int x = 0; x < 130; ++x) {
            const uint8_t v = x < 70 ? 200 : uint8_t(x * 7 + y); // a flat run longer than one packet, then noise
            rgba.insert(rgba.end(), {v, uint8_t(255 - v), uint8_t(y * 40), uint8_t(x % 3 ? 255 : 128)});
        }
    for (bool rle : {false, true}) {
        Bytes f = tga::encode_bgra32(rgba.data(), 130, 5, rle);
        CHECK(std::string(f.end() - 18, f.end() - 1) == "TRUEVISION-XFILE.");
        tga::Header h = tga::parse_header(f.data(), f.size(), 0);
        CHECK(h.pixel_bits == 32);
        CHECK(h.rle() == rle);
        CHECK(tga::decode_rgba8(h, f.data(), f.size()) == rgba);
        if (rle) {
            CHECK(f.size() < 130 * 5 * 4);
            // Decoding each row alone as a 130x1 image proves no packet spans two rows.
            uint64_t at = h.pixels_offset();
            for (int row = 0; row < 5; ++row) {
                uint64_t n = 0;
                while (n < 130) {
                    const uint8_t p = f[at];
                    n += (p & 0x7f) + 1u;
                    at += 1 + ((p & 0x80) ? 4 : ((p & 0x7f) + 1u) * 4);
                }
                CHECK(n == 130);
            }
        }
    }
    // Through the C ABI with the option.
    af::Texture t(af::TextureDesc{af::FMT_R8G8B8A8_UNORM_SRGB, 130, 5});
    t.data = rgba;
    af::sdk::TextureView view(t);
    af::sdk::VectorSink sink;
    af_sink s = sink.sink();
    af_kv kv{"rle", "true"};
    af_options opts{};
    opts.items = &kv;
    opts.count = 1;
    af_error err{};
    REQUIRE(tga::write(host, view.get(), &opts, &s, &err) == AF_OK);
    CHECK(sink.bytes == tga::encode_bgra32(rgba.data(), 130, 5, true));
    kv.value = "maybe";
    sink.bytes.clear();
    CHECK(tga::write(host, view.get(), &opts, &s, &err) == AF_ERR_USAGE);
}

TEST_CASE("damaged and hostile files: an error at the offset, no allocation, no crash", "[tga]") {
    af::sdk::testing::FakeHost host;
    auto r = read_file(Bytes{0, 0, 2, 0, 0}, host);
    CHECK(r.status == AF_ERR_INVALID_DATA);
    CHECK_THAT(r.error, Catch::Contains("truncated"));

    // 65535x65535 claimed by a 40-byte RLE file: refused before the 16 GiB texture is allocated, by the host or
    // by the plugin itself.
    alloc_probe::largest = 0;
    r = read_file(header(10, 65535, 65535, 32, 0) + Bytes(22, 0xff), host);
    CHECK(r.status == AF_ERR_INVALID_DATA);
    CHECK_THAT(r.error, Catch::Contains("at least"));
    CHECK(host.allocations() == 0);
    CHECK(alloc_probe::largest < (std::size_t(1) << 20));

    // A packet that runs past the image.
    r = read_file(header(11, 2, 1, 8, 0) + Bytes{0x85, 1}, host);
    CHECK(r.status == AF_ERR_INVALID_DATA);
    CHECK(r.offset == 18);
    CHECK_THAT(r.error, Catch::Contains("runs past"));

    // RLE data that ends early, and raw data that does.
    r = read_file(header(11, 300, 1, 8, 0) + Bytes{0xff, 1, 0xff, 1}, host);
    CHECK(r.status == AF_ERR_INVALID_DATA);
    r = read_file(header(2, 3, 2, 24, 0) + kBgrTop, host);
    CHECK(r.status == AF_ERR_INVALID_DATA);
    CHECK_THAT(r.error, Catch::Contains("truncated"));

    // An index outside the colour map.
    r = read_file(header(1, 1, 1, 8, 0, 1, 0, 1, 24) + Bytes{0, 0, 0} + Bytes{3}, host);
    CHECK(r.status == AF_ERR_INVALID_DATA);
    CHECK_THAT(r.error, Catch::Contains("outside the colour map"));

    // Kinds not read are said so, not guessed.
    r = read_file(header(2, 1, 1, 16, 0) + Bytes{0, 0}, host);
    CHECK(r.status == AF_ERR_UNSUPPORTED);
    CHECK_THAT(r.error, Catch::StartsWith("unsupported: 16-bit true-colour"));
    r = read_file(header(7, 1, 1, 8, 0) + Bytes{0}, host);
    CHECK(r.status == AF_ERR_INVALID_DATA);

    // The host's dimension limit.
    host.table().max_dimension = 100;
    r = read_file(header(2, 101, 1, 24, 0) + Bytes(303, 0), host);
    CHECK_THAT(r.error, Catch::Contains("dimension limit"));
    CHECK(host.live_allocations() == 0);
}

TEST_CASE("probe: a .tga name with a header that can be TGA", "[tga]") {
    const Bytes good = header(2, 3, 2, 24, 0) + kBgrTop;
    CHECK(tga::probe(good.data(), good.size(), "a/b.TGA") == AF_PROBE_EXTENSION);
    CHECK(tga::probe(good.data(), good.size(), "a/b.png") == AF_PROBE_NO);
    const Bytes png = {0x89, 'P', 'N', 'G', 13, 10, 26, 10, 0, 0, 0, 13, 'I', 'H', 'D', 'R', 0, 0, 0, 1};
    CHECK(tga::probe(png.data(), png.size(), "renamed.tga") == AF_PROBE_NO);
}

TEST_CASE("dims: what read returns, from the header alone", "[tga]") {
    af::sdk::testing::FakeHost host;
    auto dims_of = [&](const Bytes& head, af_dims& d, af_error& err) {
        af_input in{};
        af::sdk::init_header(in);
        in.path = "t.tga";
        in.data = head.data();
        in.size = head.size();
        d = af_dims{};
        af::sdk::init_header(d);
        return tga::dims(host.get(), &in, nullptr, &d, &err);
    };
    af_dims d{};
    af_error err{};
    // An 8192x8192 RLE file: the 18 header bytes are all dims needs.
    const Bytes big = header(10, 8192, 8192, 32, 0);
    REQUIRE(dims_of(big, d, err) == AF_OK);
    CHECK(d.width == 8192);
    CHECK(d.height == 8192);
    CHECK(d.format == af::FMT_R8G8B8A8_UNORM_SRGB);
    CHECK(host.allocations() == 0);
    // It agrees with read on a whole file.
    const Bytes small = header(2, 3, 2, 24, 0) + kBgrBottom + kBgrTop;
    REQUIRE(dims_of(small, d, err) == AF_OK);
    Read r = read_file(small, host);
    REQUIRE(r.status == AF_OK);
    CHECK(r.desc.width == d.width);
    CHECK(r.desc.height == d.height);
    CHECK(r.desc.format == d.format);
    // A colour map past the first bytes is not needed; a broken header is refused.
    CHECK(dims_of(header(9, 4, 4, 8, 0, 1, 0, 256, 32), d, err) == AF_OK);
    CHECK(dims_of(Bytes{0, 0, 2, 0}, d, err) == AF_ERR_INVALID_DATA);
    CHECK(dims_of(header(2, 0, 4, 24, 0), d, err) == AF_ERR_INVALID_DATA);
}
