#include "remote/sha256.hpp"

#include "remote_test_support.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <fstream>

using namespace af::remote;
using namespace af::remote::test;

TEST_CASE("sha256_hex matches the FIPS 180-2 test vectors") {
    CHECK(sha256_hex(span_of(bytes_of(""))) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(sha256_hex(span_of(bytes_of("abc"))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(sha256_hex(span_of(bytes_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"))) ==
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST_CASE("Sha256 fed in pieces equals one call, including a million 'a'") {
    Sha256 h;
    const std::vector<uint8_t> chunk(1000, 'a');
    for (int i = 0; i < 1000; ++i) h.update(span_of(chunk));
    CHECK(h.hex_digest() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");

    const std::vector<uint8_t> data = random_bytes(100'003, 7);
    Sha256 pieces;
    for (size_t at = 0; at < data.size(); at += 4099)
        pieces.update(std::span(data).subspan(at, std::min<size_t>(4099, data.size() - at)));
    CHECK(pieces.hex_digest() == sha256_hex(span_of(data)));
}

TEST_CASE("sha256_hex agrees with sha256sum and openssl on random data") {
    af::test::TempDir dir("af-sha256");
    for (size_t n : {1u, 63u, 64u, 65u, 12'345u}) {
        const std::vector<uint8_t> data = random_bytes(n, n);
        const auto file = dir / ("blob" + std::to_string(n));
        std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(data.data()), std::streamsize(n));
        const auto coreutils = run_capture("sha256sum '" + file.string() + "'");
        REQUIRE(coreutils);
        CHECK(coreutils->substr(0, 64) == sha256_hex(span_of(data)));
        if (const auto openssl = run_capture("openssl dgst -sha256 -r '" + file.string() + "' 2>/dev/null"))
            CHECK(openssl->substr(0, 64) == sha256_hex(span_of(data)));
    }
}

TEST_CASE("is_sha256_hex accepts only 64 lowercase hex digits") {
    CHECK(is_sha256_hex(std::string(64, 'a')));
    CHECK(is_sha256_hex("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"));
    CHECK_FALSE(is_sha256_hex(std::string(63, 'a')));
    CHECK_FALSE(is_sha256_hex(std::string(65, 'a')));
    CHECK_FALSE(is_sha256_hex(std::string(64, 'A')));
    CHECK_FALSE(is_sha256_hex(std::string(62, 'a') + "/."));
    CHECK_FALSE(is_sha256_hex(""));
}
