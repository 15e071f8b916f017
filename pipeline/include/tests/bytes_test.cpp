#include "assetforge/bytes.hpp"

#include <catch2/catch.hpp>

using af::sdk::ByteReader;
using af::sdk::ByteWriter;

TEST_CASE("ByteWriter writes little-endian values ByteReader reads back") {
    ByteWriter w;
    w.u8(0x12);
    w.u16(0x3456);
    w.u32(0x789abcde);
    w.u64(0x0102030405060708ull);
    w.f32(1.5f);
    w.fill(0xee, 3);
    const uint8_t tail[] = {1, 2};
    w.append(tail, 2);
    REQUIRE(w.size() == 1 + 2 + 4 + 8 + 4 + 3 + 2);
    CHECK(w.bytes()[1] == 0x56); // low byte first
    ByteReader r(w.data(), w.size());
    CHECK(r.u8(0) == 0x12);
    CHECK(r.u16(1) == 0x3456);
    CHECK(r.u32(3) == 0x789abcde);
    CHECK(r.u64(7) == 0x0102030405060708ull);
    CHECK(r.f32(15) == 1.5f);
    CHECK(r.u8(21) == 0xee); // fill: 19..21
    CHECK(r.u8(23) == 2);
}

TEST_CASE("ByteWriter patches what it wrote and refuses to patch past the end") {
    ByteWriter w;
    w.u32(0); // a size known only later
    w.fill(0, 6);
    w.patch_u32(0, uint32_t(w.size()));
    w.patch_u16(8, 0xbeef);
    ByteReader r(w.data(), w.size());
    CHECK(r.u32(0) == 10);
    CHECK(r.u16(8) == 0xbeef);
    try {
        w.patch_u32(7, 1); // bytes 7..10, one past the end
        FAIL("no error");
    } catch (const af::sdk::Error& e) {
        CHECK(e.status() == AF_ERR_INTERNAL);
        CHECK_THAT(std::string(e.what()), Catch::Contains("offset 7") && Catch::Contains("only 10 written"));
    }
    CHECK_THROWS_AS(w.patch_u8(UINT64_MAX, 1), af::sdk::Error);
    auto owned = std::move(w).bytes();
    CHECK(owned.size() == 10);
}

TEST_CASE("ByteReader reports truncation as invalid data at the offset") {
    const uint8_t b[3] = {1, 2, 3};
    ByteReader r(b, 3);
    try {
        (void)r.u32(1);
        FAIL("no error");
    } catch (const af::sdk::Error& e) {
        CHECK(e.status() == AF_ERR_INVALID_DATA);
        CHECK(e.offset() == 1);
    }
}
