// user_text.hpp: the one printer for user text, and how exceptions are worded.
#include "assetforge/user_text.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

namespace sdk = af::sdk;

namespace {

std::string described(void (*fn)()) {
    try {
        fn();
    } catch (const std::exception& e) {
        return sdk::describe(e);
    }
    return "no exception";
}

} // namespace

TEST_CASE("printable escapes control bytes, C1 controls and bytes that are not UTF-8") {
    CHECK(sdk::printable("a\nb") == "a\\x0ab");
    CHECK(sdk::printable("x\x1b[2J") == "x\\x1b[2J");
    CHECK(sdk::printable("b\xff") == "b\\xff");
    CHECK(sdk::printable("\xC2\x9b") == "\\xc2\\x9b");
    CHECK(sdk::printable("caf\xC3\xA9") == "caf\xC3\xA9");
}

TEST_CASE("describe never shows a library's text, and keeps the project's sentences") {
    const char* const library[] = {"map::at", "_M_range_check", "basic_string", "stoi", "json.exception", "std::"};
    const std::vector<std::string> texts = {
        described([] { (void)std::map<int, int>().at(1); }),
        described([] { (void)std::vector<int>().at(3); }),
        described([] { (void)std::stoi("x"); }),
        described([] { (void)std::stoi("99999999999999999999"); }),
        described([] { (void)std::string("ab").substr(5); }),
        described(
            [] { throw std::runtime_error("[json.exception.type_error.316] invalid UTF-8 byte at index 1: 0xFF"); }),
    };
    for (const auto& t : texts) {
        INFO(t);
        for (const char* l : library) CHECK(t.find(l) == std::string::npos);
        CHECK_THAT(t, Catch::StartsWith("internal error") || Catch::StartsWith("JSON: "));
    }
    CHECK(texts[5] == "JSON: invalid UTF-8 byte at index 1: 0xFF");
    CHECK(described([] { throw std::runtime_error("a.png: not a PNG file"); }) == "a.png: not a PNG file");
    CHECK(described([] { throw std::invalid_argument("'x' is not a valid job"); }) == "'x' is not a valid job");
    CHECK(described([] { sdk::usage("option format: bad"); }) == "option format: bad");
    CHECK(sdk::error_line("evr replace set\n", std::out_of_range("map::at")) ==
          "evr replace set\\x0a: internal error: an entry or index looked up is not there");
}

TEST_CASE("describe keeps a plugin's own words that contain '::', and hides only what starts as a library's name") {
    // A plugin's sentence naming something with '::' is its own words, and the user needs them.
    const std::string own = "unsupported: glInternalFormat 0x9274 (GL::COMPRESSED_RGB8_ETC2) in the KTX header";
    CHECK(sdk::describe_text(own) == own);
    CHECK(described([] {
              throw sdk::Error(AF_ERR_INTERNAL, "ETC1 block 3: mode Codec::Individual out of range", 12);
          }) == "ETC1 block 3: mode Codec::Individual out of range");
    // What a library throws starts with its function's name: still hidden.
    for (const char* library : {"map::at", "vector::_M_range_check: __n (which is 3) >= this->size() (which is 3)",
                                "basic_string::_M_create", "std::bad_array_new_length"})
        CHECK(sdk::describe_text(library) == "internal error");
}
