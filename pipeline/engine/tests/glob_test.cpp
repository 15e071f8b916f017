#include "engine/glob.hpp"
#include "test_project.hpp"

#include <catch2/catch.hpp>

using namespace af::engine;

TEST_CASE("glob matching", "[glob]") {
    CHECK(glob_match("*.png", "a.png"));
    CHECK_FALSE(glob_match("*.png", "d/a.png"));
    CHECK(glob_match("**/*.png", "a.png"));
    CHECK(glob_match("**/*.png", "d/e/a.png"));
    CHECK(glob_match("src/**/x/*.dds", "src/x/a.dds"));
    CHECK(glob_match("src/**/x/*.dds", "src/a/b/x/a.dds"));
    CHECK_FALSE(glob_match("src/**/x/*.dds", "src/a/b/y/a.dds"));
    CHECK(glob_match("t?x.[pd]ng", "tex.png"));
    CHECK_FALSE(glob_match("t?x.[!p]ng", "tex.png"));
    CHECK(glob_match("*.{png,dds}", "a.dds"));
    CHECK(glob_match("a*b*c", "aXXbYYc"));
    CHECK_FALSE(glob_match("a*b*c", "aXXbYY"));
    CHECK(glob_base("src/tex/**/*.png") == "src/tex");
    CHECK(glob_base("*.png") == "");
    CHECK(glob_base("a/b.png") == "a");
}

TEST_CASE("glob expansion: names, excludes, sorting, skipped state", "[glob]") {
    af::engine::test::TestProject t;
    t.write("src/b.png", "b");
    t.write("src/a.png", "a");
    t.write("src/d/c.png", "c");
    t.write("src/d/skip_me.png", "s");
    t.write("src/.af-tmp-x.png", "temp");
    t.write("src/.assetforge/y.png", "state");
    auto m = expand_globs(t.root(), {"src/**/*.png"}, {"**/skip_*"});
    REQUIRE(m.size() == 3);
    CHECK(m[0].name == "a.png");
    CHECK(m[1].name == "b.png");
    CHECK(m[2].name == "d/c.png");
    auto one = expand_globs(t.root(), {"src/d/c.png"}, {});
    REQUIRE(one.size() == 1);
    CHECK(one[0].name == "c.png");
    CHECK(expand_globs(t.root(), {"missing/**/*.png"}, {}).empty());
}
