#include "remote/entry_checks.hpp"

#include <catch2/catch.hpp>

using namespace af::remote;

TEST_CASE("output paths must stay inside the output tree") {
    for (const char* ok : {"a", "a/b.dds", "textures/x.y/z", "..a/b..", ".hidden/x", "t\xc3\xa9xtures/\xe2\x82\xac",
                           "\xf0\x9f\x8e\xa8.dds"}) {
        INFO(ok);
        CHECK_FALSE(path_problem(ok));
    }
    for (const std::string& bad : std::vector<std::string>{
             "", "/etc/passwd", "..", "../x", "a/../../x", "a/..", "./a", "a/./b", "a//b", "a/", "a\\..\\b", "C:/x",
             std::string("a\0b", 3), "bad\xff", "\xc0\xaf", "\xed\xa0\x80", "a\xe2\x82"}) {
        INFO(bad);
        CHECK(path_problem(bad));
    }
}

TEST_CASE("check_entry refuses unusable entries") {
    const std::string h(64, 'a');
    CHECK_FALSE(check_entry({{{"a", {h, 1}}, {"b", {h, 1}}}}, 100));
    CHECK(check_entry({}, 100)->kind == "entry-empty");
    CHECK(check_entry({{{"/a", {h, 1}}}}, 100)->kind == "entry-path");
    CHECK(check_entry({{{"a", {h, 1}}, {"a", {h, 1}}}}, 100)->kind == "entry-duplicate");
    CHECK(check_entry({{{"a", {"ABC", 1}}}}, 100)->kind == "entry-digest");
    CHECK(check_entry({{{"a", {h, -1}}}}, 100)->kind == "entry-size");
    CHECK(check_entry({{{"a", {h, 101}}}}, 100)->kind == "entry-too-large");
}
