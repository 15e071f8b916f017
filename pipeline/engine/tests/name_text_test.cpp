// name_text.hpp: names that are not UTF-8 in JSON and XML outputs.
#include "base/markup_text.hpp"
#include "base/name_text.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace af::base;

TEST_CASE("is_utf8 and utf8_or_replacement follow RFC 3629") {
    CHECK(is_utf8("plain.png"));
    CHECK(is_utf8("caf\xC3\xA9.png"));
    CHECK_FALSE(is_utf8("b\xff.png"));
    CHECK_FALSE(is_utf8("\xC0\xAF"));         // overlong '/'
    CHECK_FALSE(is_utf8("\xED\xA0\x80"));     // a surrogate
    CHECK_FALSE(is_utf8("\xF4\x90\x80\x80")); // above U+10FFFF
    CHECK_FALSE(is_utf8("\xE2\x82"));         // cut short
    CHECK(utf8_or_replacement("b\xff.png") == "b\xEF\xBF\xBD.png");
    CHECK(utf8_or_replacement("caf\xC3\xA9") == "caf\xC3\xA9");
}

TEST_CASE("base64 is RFC 4648's") {
    CHECK(base64("") == "");
    CHECK(base64("f") == "Zg==");
    CHECK(base64("fo") == "Zm8=");
    CHECK(base64("foo") == "Zm9v");
    CHECK(base64("b\xff.dds") == "Yv8uZGRz");
}

TEST_CASE("put_name adds the raw bytes only for a name that is not UTF-8, and the text always parses") {
    nlohmann::json j = nlohmann::json::object();
    put_name(j, "input", "a.png");
    CHECK_FALSE(j.contains("input_base64"));
    put_name(j, "other", "b\xff.png");
    CHECK(j["other"] == "b\xEF\xBF\xBD.png");
    CHECK(j["other_base64"] == "Yv8ucG5n");
    put_names(j, "outputs", {"x.dds", "b\xff.dds"});
    CHECK(j["outputs_base64"] == nlohmann::json::array({"eC5kZHM=", "Yv8uZGRz"}));
    j["message"] = "raw \xfe byte"; // a message quoting a name, put without put_name
    CHECK_NOTHROW(nlohmann::json::parse(json_text(j, 1)));
}

TEST_CASE("markup_text keeps XML well formed for names that are not UTF-8") {
    CHECK(markup_text("<b\xff>") == "&lt;b\xEF\xBF\xBD&gt;");
}
