#include "core/content_hash.hpp"

#include <catch2/catch.hpp>

using namespace af;

TEST_CASE("hashes are stable and sensitive") {
    Hash128 a = hash_string("abc"), b = hash_string("abd");
    CHECK_FALSE(a == b);
    CHECK(Hash128::from_hex(a.hex()) == a);
    CHECK(a.hex().size() == 32);
    Hasher h1, h2;
    h1.field("ab");
    h1.field("c");
    h2.field("a");
    h2.field("bc");
    CHECK_FALSE(h1.digest() == h2.digest());
    Hasher h3;
    h3.update("abc");
    CHECK(h3.digest() == a);
}
