// printable_name(): the one escaping function for names the engine prints.
#include "base/user_words.hpp"

#include <catch2/catch.hpp>

using af::base::printable_name;

TEST_CASE("printable_name escapes what a terminal acts on and keeps UTF-8 text") {
    CHECK(printable_name("plain/name.png") == "plain/name.png");
    CHECK(printable_name(std::string("a\nFAKE\0x", 8)) == "a\\x0aFAKE\\x00x");
    CHECK(printable_name("\x1b[2J\r\t\x7f") == "\\x1b[2J\\x0d\\x09\\x7f");
    // UTF-8 stays as it is.
    CHECK(printable_name("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80") ==
          "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80");
    // C1 controls, raw or UTF-8 encoded (U+009B is CSI), and bytes that are not UTF-8.
    CHECK(printable_name("a\xc2\x9b"
                         "31mb") == "a\\xc2\\x9b31mb");
    CHECK(printable_name("a\x9b"
                         "31mb") == "a\\x9b31mb");
    CHECK(printable_name("\xff\xfe") == "\\xff\\xfe");
    CHECK(printable_name("\xe6\x97") == "\\xe6\\x97");               // cut short
    CHECK(printable_name("\xc3\xa9\xc2\xa0") == "\xc3\xa9\xc2\xa0"); // é and a no-break space are text
}
