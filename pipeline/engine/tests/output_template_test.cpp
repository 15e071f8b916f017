#include "base/output_template.hpp"

#include <catch2/catch.hpp>

using namespace af::base;

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

TEST_CASE("the name-only fast path resolves exactly as resolve_output", "[template][plan]") {
    const std::vector<std::string> templates = {"build/{dir}/{stem}.dds",  "build/{name}",
                                                "{dir}/{stem}_x.png",      "out/{path}",
                                                "/abs/out/{dir}/{name}",   "o/{job}/{input_stem}.{ext}",
                                                "./o//{dir}/./{stem}.png", "build/{dir}",
                                                "o/{stem}.{ext}.bak",      "o/{{lit}}/{name}"};
    const std::vector<std::string> names = {"a.png",      "d/e/a.png",   ".hidden",  "a.tar.gz", "x..y.png",
                                            "noext",      "d/..x/b",     "sub/.png", "a b.png",  "../up.png",
                                            "d/../x.png", "back\\s.png", "/abs.png"};
    for (const auto& t : templates)
        for (const auto& n : names) {
            auto tpl = OutputTemplate::parse(t);
            std::string fast;
            bool ok = tpl.resolve_name_only(n, "job1", "/proj/root", fast);
            std::string slow;
            bool slow_ok = true;
            try {
                auto v = template_values(n, {}, "job1");
                for (const char* k : {"dir", "stem", "name", "ext"}) v[std::string("input_") + k] = v[k];
                slow = resolve_output(tpl, v, "/proj/root").native();
            } catch (const std::exception&) {
                slow_ok = false;
            }
            INFO(t << " with " << n << ": fast " << (ok ? fast : "-") << ", general " << (slow_ok ? slow : "-"));
            if (ok) {
                CHECK(slow_ok);
                CHECK(fast == slow);
            }
        }
    // The common cases take the fast path.
    std::string out;
    CHECK(OutputTemplate::parse("build/{dir}/{stem}.dds").resolve_name_only("d/a.png", "j", "/p", out));
    CHECK(out == "/p/build/d/a.dds");
    CHECK(OutputTemplate::parse("build/{dir}/{stem}.dds").resolve_name_only("a.png", "j", "/p", out));
    CHECK(out == "/p/build/a.dds");
}
