#include "base/glob.hpp"
#include "test_project.hpp"

#include <catch2/catch.hpp>

#include <map>

using namespace af::base;
namespace fs = std::filesystem;

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

TEST_CASE("wildcards skip dot-names unless the pattern names the dot", "[glob][promise]") {
    CHECK_FALSE(glob_match("*", ".env"));
    CHECK_FALSE(glob_match("**/*", ".git/config"));
    CHECK_FALSE(glob_match("**/*.png", "a/.hidden/x.png"));
    CHECK(glob_match(".env", ".env"));
    CHECK(glob_match(".*", ".env"));
    CHECK(glob_match(".git/*", ".git/config"));
    af::engine::test::TestProject t;
    t.write("mod/a.txt", "a");
    t.write("mod/.env", "secret");
    t.write("mod/.git/config", "x");
    t.write("mod/sub/.DS_Store", "x");
    auto m = expand_globs(t.root(), {"mod/**/*"}, {});
    REQUIRE(m.size() == 1);
    CHECK(m[0].name == "a.txt");
    CHECK(expand_globs(t.root(), {"mod/.env"}, {}).size() == 1);
    CHECK(expand_globs(t.root(), {"mod/.git/*"}, {}).size() == 1);
}

TEST_CASE("links out of the input root are reported, not read", "[glob][promise][symlink]") {
    af::engine::test::TestProject t;
    af::engine::test::TestProject outside;
    outside.write("secret.txt", "s");
    outside.write("dir/inner.txt", "i");
    t.write("mod/a.txt", "a");
    t.write("other/ok.txt", "ok");
    fs::create_symlink(outside.path("secret.txt"), t.path("mod/innocent.dds"));
    fs::create_symlink(t.path("other/ok.txt"), t.path("mod/ok.txt"));
    fs::create_directory_symlink(outside.path("dir"), t.path("mod/linked"));
    std::vector<size_t> counts;
    auto m = expand_globs(t.root(), {"mod/**/*"}, {}, {}, &counts);
    std::map<std::string, std::string> by_name;
    for (const auto& x : m) by_name[x.name] = x.link_escape;
    CHECK(by_name.size() == 4);
    CHECK(by_name["a.txt"].empty());
    CHECK(by_name["ok.txt"].empty()); // a link that stays inside
    CHECK_THAT(by_name["innocent.dds"],
               Catch::Contains("innocent.dds") && Catch::Contains("secret.txt") && Catch::Contains("follow_links"));
    CHECK_THAT(by_name["linked"], Catch::Contains(outside.path("dir").string()));
    CHECK(counts == std::vector<size_t>{4});
    // Opted in: read through, and linked folders walked.
    GlobOptions follow;
    follow.follow_links = true;
    m = expand_globs(t.root(), {"mod/**/*"}, {}, follow);
    by_name.clear();
    for (const auto& x : m) by_name[x.name] = x.link_escape;
    CHECK(by_name.count("linked/inner.txt"));
    for (const auto& [n, e] : by_name) CHECK(e.empty());
    // The pattern's own folder is the link: one failing input, nothing listed behind it.
    fs::create_directory_symlink(outside.root(), t.path("elsewhere"));
    m = expand_globs(t.root(), {"elsewhere/**/*"}, {});
    REQUIRE(m.size() == 1);
    CHECK_THAT(m[0].link_escape, Catch::Contains("elsewhere"));
    // An absolute pattern outside the project is its own root.
    m = expand_globs(t.root(), {outside.path("dir").string() + "/*.txt"}, {});
    REQUIRE(m.size() == 1);
    CHECK(m[0].link_escape.empty());
}

TEST_CASE("a linked game folder named on the command line is read, links found inside it still are not",
          "[glob][promise][symlink]") {
    af::engine::test::TestProject t;
    af::engine::test::TestProject game;
    af::engine::test::TestProject secrets;
    game.write("textures/wall.dds", "w");
    game.write("textures/sub/floor.dds", "f");
    secrets.write("key.txt", "k");
    fs::create_symlink(secrets.path("key.txt"), game.path("textures/planted.dds"));
    fs::create_symlink(game.path("textures/wall.dds"), game.path("textures/alias.dds")); // stays in the game
    fs::create_directory_symlink(game.root(), t.path("game"));

    // Named in the pipeline file only: one failing input that says what to do.
    auto m = expand_globs(t.root(), {"game/**/*.dds"}, {});
    REQUIRE(m.size() == 1);
    CHECK_THAT(m[0].link_escape, Catch::Contains("-D <variable>=") && Catch::Contains("follow_links"));

    GlobOptions named;
    named.named_folders = {(t.root() / "game").lexically_normal()};
    m = expand_globs(t.root(), {"game/**/*.dds"}, {}, named);
    std::map<std::string, std::string> by_name;
    for (const auto& x : m) by_name[x.name] = x.link_escape;
    CHECK(by_name.size() == 4);
    CHECK(by_name["textures/wall.dds"].empty());
    CHECK(by_name["textures/sub/floor.dds"].empty());
    CHECK(by_name["textures/alias.dds"].empty());
    CHECK_THAT(by_name["textures/planted.dds"], Catch::Contains("key.txt"));
    // A named folder below the link, and a pattern the named folder does not cover.
    named.named_folders = {(t.root() / "game/textures").lexically_normal()};
    CHECK(expand_globs(t.root(), {"game/textures/*.dds"}, {}, named).size() == 3);
    named.named_folders = {(t.root() / "other").lexically_normal()};
    m = expand_globs(t.root(), {"game/**/*.dds"}, {}, named);
    REQUIRE(m.size() == 1);
    CHECK_FALSE(m[0].link_escape.empty());
}
