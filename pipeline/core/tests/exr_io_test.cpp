// OpenEXR read/write in the core: exact round trips of half and float data
// (HDR and negative values), the channel rules, and files cut at every length
// or declaring more than they hold: an af::sdk::Error naming the file, never
// an OpenEXR exception or a crash.
#include "core/exr_io.hpp"

#include "assetforge/half.hpp"
#include "assetforge/plugin.hpp"

#include <catch2/catch.hpp>

#include <cstring>

using namespace af;

namespace {

Texture exr_texture(uint32_t format, uint32_t w, uint32_t h) {
    TextureDesc d;
    d.format = format;
    d.width = w, d.height = h;
    return Texture(d);
}

// 8×4 RGBA half: red from -3 to 60000 (near half's largest), green tiny (subnormal halves), alpha varying.
Texture half_gradient() {
    Texture t = exr_texture(FMT_R16G16B16A16_FLOAT, 8, 4);
    auto* v = reinterpret_cast<uint16_t*>(t.data.data());
    for (uint32_t i = 0; i < 32; ++i) {
        v[i * 4 + 0] = float_to_half(-3.0f + float(i) * 1935.0f);
        v[i * 4 + 1] = uint16_t(i + 1); // subnormal
        v[i * 4 + 2] = float_to_half(0.25f);
        v[i * 4 + 3] = float_to_half(float(i) / 31.0f);
    }
    return t;
}

std::string error_of(std::span<const uint8_t> bytes, const ExrLimits& limits = {}) {
    try {
        (void)decode_exr(bytes, "cut.exr", limits);
    } catch (const sdk::Error& e) {
        return e.what();
    }
    return "";
}

} // namespace

TEST_CASE("exr: half data round trips bit for bit, values above 1 and below 0 kept") {
    const Texture t = half_gradient();
    const auto bytes = encode_exr(t);
    REQUIRE(is_exr(bytes));
    const ExrHeader h = read_exr_header(bytes, "t.exr");
    CHECK(h.channels == "R,G,B,A");
    CHECK(h.all_half);
    CHECK(h.compression == "zip");
    const Texture back = decode_exr(bytes, "t.exr");
    CHECK(back.desc.format == FMT_R16G16B16A16_FLOAT);
    CHECK(back.desc.width == 8);
    CHECK(back.desc.height == 4);
    CHECK(back.data == t.data);
}

TEST_CASE("exr: float data a half cannot hold is written as float and round trips exactly") {
    Texture t = exr_texture(FMT_R32G32B32A32_FLOAT, 5, 3);
    auto* f = reinterpret_cast<float*>(t.data.data());
    for (int i = 0; i < 60; ++i) f[i] = i % 4 == 3 ? 1.0f : -7.0f + 0.1f * float(i) * 3.3f;
    for (const char* comp : {"zip", "piz", "none", "rle", "zips"}) {
        INFO(comp);
        ExrWriteOptions o;
        o.compression = comp;
        o.channels = ExrWriteOptions::Channels::Rgba;
        const auto bytes = encode_exr(t, o);
        CHECK_FALSE(read_exr_header(bytes, "f.exr").all_half);
        const Texture back = decode_exr(bytes, "f.exr");
        CHECK(back.desc.format == FMT_R32G32B32A32_FLOAT);
        CHECK(back.data == t.data);
    }
}

TEST_CASE("exr: channels: opaque data writes RGB and reads alpha 1, a lone R stays one channel") {
    Texture t = exr_texture(FMT_R32G32B32A32_FLOAT, 2, 2);
    auto* f = reinterpret_cast<float*>(t.data.data());
    for (int i = 0; i < 16; ++i) f[i] = i % 4 == 3 ? 1.0f : 0.5f * float(i);
    auto bytes = encode_exr(t);
    CHECK(read_exr_header(bytes, "o.exr").channels == "R,G,B");
    CHECK(read_exr_header(bytes, "o.exr").all_half);
    Texture back = decode_exr(bytes, "o.exr");
    REQUIRE(back.desc.format == FMT_R16G16B16A16_FLOAT);
    const auto* h = reinterpret_cast<const uint16_t*>(back.data.data());
    for (int i = 0; i < 16; ++i) CHECK(half_to_float(h[i]) == f[i]);

    Texture r = exr_texture(FMT_R16_FLOAT, 3, 1);
    auto* rv = reinterpret_cast<uint16_t*>(r.data.data());
    rv[0] = float_to_half(-1.5f), rv[1] = float_to_half(2.0f), rv[2] = float_to_half(1000.0f);
    bytes = encode_exr(r);
    CHECK(read_exr_header(bytes, "r.exr").channels == "R");
    back = decode_exr(bytes, "r.exr");
    CHECK(back.desc.format == FMT_R16_FLOAT);
    CHECK(back.data == r.data);
}

TEST_CASE("exr: a file cut at any length, or with bytes overwritten, is an error naming it, never a crash") {
    const auto whole = encode_exr(half_gradient());
    for (size_t n = 0; n < whole.size(); ++n) {
        const std::string e = error_of({whole.data(), n});
        INFO(n << ": " << e);
        CHECK(e.rfind("cut.exr: ", 0) == 0);
    }
    // Every byte in turn set to 0xff: a texture or an af::sdk::Error, nothing else escapes.
    for (size_t at = 0; at < whole.size(); ++at) {
        auto bad = whole;
        bad[at] = 0xff;
        try {
            (void)decode_exr(bad, "bad.exr");
        } catch (const sdk::Error& e) {
            CHECK(std::string(e.what()).rfind("bad.exr: ", 0) == 0);
        }
    }
}

TEST_CASE("exr: a header declaring more than the limits or the file can hold is refused before allocating") {
    auto bytes = encode_exr(half_gradient());
    CHECK_THAT(error_of(bytes, {4, 0}), Catch::Contains("cut.exr: limit: 8x4 exceeds the largest side 4"));
    CHECK_THAT(error_of(bytes, {0, 8 * 4 * 16 - 1}), Catch::Contains("exceeds --max-texture-bytes"));
    // The data window made 60000 wide (box2i: xMin yMin xMax yMax after "dataWindow\0box2i\0" and a size).
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    const size_t at = text.find("dataWindow");
    REQUIRE(at != std::string_view::npos);
    const size_t max_x = at + 11 + 6 + 4 + 8;
    const int32_t wide = 59999;
    std::memcpy(&bytes[max_x], &wide, 4);
    CHECK_THAT(error_of(bytes), Catch::Contains("cut.exr: truncated: a 60000x4 zip image cannot fit"));
    // An attribute declaring 2 GB (OpenEXR would allocate it before reading; found by fuzz_exr).
    bytes = encode_exr(half_gradient());
    const size_t channels = std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()).find("chlist");
    REQUIRE(channels != std::string_view::npos);
    const int32_t huge = 0x7fffff00;
    std::memcpy(&bytes[channels + 7], &huge, 4);
    CHECK_THAT(error_of(bytes), Catch::Contains("attribute 'channels' declares 2147483392 bytes, more than the file"));
    // A name longer than the format allows without the long-names flag (31 characters): refused before OpenEXR
    // reads it (the file fuzz_exr found this way held a channel-list mismatch too).
    std::string header = std::string("\x76\x2f\x31\x01\x02\0\0\0", 8) + std::string(40, 'n') + '\0' + "string" + '\0';
    header += std::string("\x04\0\0\0abcd\0", 9);
    CHECK_THAT(error_of({reinterpret_cast<const uint8_t*>(header.data()), header.size()}),
               Catch::Contains("cut.exr: an attribute name longer than 31 characters"));
    // A channel list stated 4 bytes longer than it is: OpenEXR reads the list to its end marker and the next
    // attribute from inside the stated size (found by fuzz_exr).
    bytes = encode_exr(half_gradient());
    const int32_t longer = 4 * 18 + 1 + 4;
    std::memcpy(&bytes[channels + 7], &longer, 4);
    CHECK_THAT(error_of(bytes), Catch::Contains("attribute 'channels' (chlist) does not fit its 77 bytes"));
}
