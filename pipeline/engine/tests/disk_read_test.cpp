#include "base/link_guard.hpp"
#include "engine/disk.hpp"
#include "test_project.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>

using namespace af::base;
using namespace af::engine;
namespace fs = std::filesystem;

// The glob checks a name; the read must check what it actually opened, or a
// file swapped for a link in between is read wherever the link points.
TEST_CASE("an input is read only when the file opened lies inside its input root", "[disk][links]") {
    test::TestProject t, outside;
    outside.write("secret.txt", "not for the build");
    t.write("src/real.txt", "inside");
    fs::create_symlink(t.path("src/real.txt"), t.path("src/inside_link.txt"));
    fs::create_symlink(outside.path("secret.txt"), t.path("src/swapped.txt"));
    REQUIRE(::mkfifo(t.path("src/fifo.txt").c_str(), 0644) == 0);
    RealDisk disk(t.root());
    const std::string root = real_path(t.root().native());

    auto text = [&](const std::string& rel) {
        auto v = disk.read(t.path(rel).native(), root);
        return std::string(v.begin(), v.end());
    };
    CHECK(text("src/real.txt") == "inside");
    CHECK(text("src/inside_link.txt") == "inside"); // a link that stays inside is fine
    CHECK_THROWS_WITH(text("src/swapped.txt"), Catch::Contains("src/swapped.txt") && Catch::Contains("symbolic link") &&
                                                   Catch::Contains("secret.txt"));
    // A FIFO at an input's name neither blocks the build nor is read.
    CHECK_THROWS_WITH(text("src/fifo.txt"), Catch::Contains("not a regular file"));
    // Without a root (follow_links, or the build's own outputs) a link is read.
    auto v = disk.read(t.path("src/swapped.txt").native());
    CHECK(std::string(v.begin(), v.end()) == "not for the build");
}
