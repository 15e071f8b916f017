#include "zstd_frame.hpp"

#include "assetforge/error.hpp"

#include <catch2/catch.hpp>
#include <zstd.h>

#include <numeric>

using namespace af::evr;

namespace {

std::vector<uint8_t> compress(const std::vector<uint8_t>& src, bool content_size, bool checksum = false) {
    ZSTD_CCtx* c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, content_size ? 1 : 0);
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, checksum ? 1 : 0);
    std::vector<uint8_t> out(ZSTD_compressBound(src.size()));
    size_t n = ZSTD_compress2(c, out.data(), out.size(), src.data(), src.size());
    ZSTD_freeCCtx(c);
    REQUIRE(!ZSTD_isError(n));
    out.resize(n);
    return out;
}

std::vector<uint8_t> sample(size_t n) {
    std::vector<uint8_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = uint8_t((i * 7) ^ (i >> 5));
    return v;
}

std::string error_of(std::span<const uint8_t> in, uint64_t length) {
    try {
        decompress_frame(in, length, "frame 9 (x_0 @ 0, 1 bytes)", "the manifest");
    } catch (const af::sdk::Error& e) {
        CHECK(e.status() == AF_ERR_INVALID_DATA);
        return e.what();
    }
    return "";
}

} // namespace

TEST_CASE("a zstd frame decompresses to exactly its declared length", "[zstd]") {
    const auto src = sample(70000);
    for (bool cs : {false, true})
        for (bool sum : {false, true}) {
            const auto z = compress(src, cs, sum);
            const FrameBytes out = decompress_frame(z, src.size(), "f", "the manifest");
            REQUIRE(out.size == src.size());
            CHECK(std::equal(src.begin(), src.end(), out.data.get()));
        }
}

TEST_CASE("a frame longer or shorter than the manifest's length is refused", "[zstd]") {
    const auto src = sample(5000);
    const auto bare = compress(src, false), sized = compress(src, true);
    CHECK_THAT(error_of(bare, 4999), Catch::Contains("decompresses to more than the 4999 bytes the manifest says"));
    CHECK_THAT(error_of(bare, 5001), Catch::Contains("decompresses to 5000 bytes, the manifest says 5001") ||
                                         Catch::Contains("can produce at most"));
    CHECK_THAT(error_of(sized, 5001), Catch::Contains("zstd frame declares 5000 bytes, the manifest says 5001"));
    CHECK_THAT(error_of(sized, 5001), Catch::StartsWith("frame 9 (x_0 @ 0, 1 bytes)"));
}

TEST_CASE("trailing bytes, truncation, garbage and a bad checksum are refused", "[zstd]") {
    const auto src = sample(3000);
    auto z = compress(src, true, true);
    auto trailing = z;
    trailing.push_back(0);
    CHECK_THAT(error_of(trailing, 3000), Catch::Contains("1 bytes follow the end of the zstd frame"));
    auto cut = std::vector<uint8_t>(z.begin(), z.begin() + long(z.size() / 2));
    CHECK_THAT(error_of(cut, 3000), Catch::Contains("incomplete"));
    auto bad_sum = z;
    bad_sum.back() ^= 0xFF;
    CHECK_THAT(error_of(bad_sum, 3000), Catch::Contains("zstd error"));
    const std::vector<uint8_t> not_zstd = {'D', 'D', 'S', ' ', 0, 0, 0, 0};
    CHECK_THAT(error_of(not_zstd, 10), Catch::Contains("not a zstd frame"));
    const std::vector<uint8_t> skippable = {0x50, 0x2A, 0x4D, 0x18, 0, 0, 0, 0};
    CHECK_THAT(error_of(skippable, 10), Catch::Contains("skippable"));
    CHECK_THAT(error_of(std::vector<uint8_t>{0x28, 0xB5}, 10), Catch::Contains("cannot hold a zstd frame header"));
}

TEST_CASE("a tiny frame claiming a huge length is refused before any allocation", "[zstd][hostile]") {
    // 16 bytes of zeros compress to a few bytes; a manifest claiming 1 GiB for
    // them must be refused from the block headers, not by trying to allocate.
    const auto z = compress(std::vector<uint8_t>(16, 0), false);
    CHECK(frame_output_bound(z, "f") <= 128 * 1024);
    CHECK_THAT(error_of(z, uint64_t(1) << 30), Catch::Contains("can produce at most"));
    CHECK_THAT(error_of(z, ~uint64_t(0)), Catch::Contains("can produce at most"));
}
