#include "engine/output_template.hpp"

#include <catch2/catch.hpp>

using namespace af::engine;

TEST_CASE("output templates expand item names and metadata", "[template]") {
    auto t = OutputTemplate::parse("build/{dir}/{stem}_mip{mip}.{ext}");
    CHECK(t.static_prefix() == "build");
    auto v = template_values("a/b/c.tar.png", {{"mip", "2"}}, "job");
    CHECK(t.expand(v) == "build/a/b/c.tar_mip2.png");
    CHECK(resolve_output(t, v, "/p") == "/p/build/a/b/c.tar_mip2.png");
    // Top-level items: {dir} is "." and disappears.
    CHECK(resolve_output(t, template_values("x.png", {{"mip", "0"}}, "j"), "/p") == "/p/build/x_mip0.png");
    CHECK(OutputTemplate::parse("a/{{literal}}/{name}").expand(template_values("q.png", {}, "j")) ==
          "a/{literal}/q.png");
    CHECK_THROWS_WITH(t.expand(template_values("x.png", {}, "j")), Catch::Contains("uses {mip}"));
    CHECK_THROWS_AS(OutputTemplate::parse("a/{b"), std::invalid_argument);
    CHECK_THROWS_AS(OutputTemplate::parse("a/b}"), std::invalid_argument);
    CHECK_THROWS_AS(OutputTemplate::parse("a/{}"), std::invalid_argument);
}

TEST_CASE("expansions that escape the template's directory are refused", "[template]") {
    auto t = OutputTemplate::parse("out/{dir}/{name}");
    CHECK_THROWS_WITH(resolve_output(t, template_values("../../etc/passwd", {}, "j"), "/p"),
                      Catch::Contains("contains '..'"));
    auto m = OutputTemplate::parse("out/{page}.bin");
    CHECK_THROWS_WITH(resolve_output(m, {{"page", "../x"}}, "/p"), Catch::Contains("contains '..'"));
    CHECK(path_within("/a/b/c", "/a/b"));
    CHECK_FALSE(path_within("/a/bc", "/a/b"));
    CHECK_FALSE(path_within("/a", "/a/b"));
}
