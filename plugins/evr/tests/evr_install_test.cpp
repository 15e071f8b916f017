// `evr install` / `evr restore`: a new set into the game's folder with a
// backup of every file it replaces, stale parts of a set that shrank
// removed, and the folder given back exactly as it was.
#include "fixture.hpp"

#include "assetforge/testing/fake_host.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace evr_test;
namespace fs = std::filesystem;

namespace {

// A game folder: the set of `set` plus a file of another set that must never be touched.
void make_game(const fs::path& game, const std::string& set) {
    fs::create_directories(game);
    fs::copy(set_dir(set) / "manifests", game / "manifests", fs::copy_options::recursive);
    fs::copy(set_dir(set) / "packages", game / "packages", fs::copy_options::recursive);
    write_bytes(game / "packages/0123456789abcdef_0", {1, 2, 3});
    write_bytes(game / "manifests/0123456789abcdef", {4, 5, 6});
}

// `set`'s files repacked into `out` with every part at most `part_size` bytes.
void repack(const std::string& set, const fs::path& out, const std::string& part_size) {
    const std::string name = manifest_json<nlohmann::json>(set)["name"];
    TempDir t;
    REQUIRE(run_evr({"extract", set_dir(set).string(), name, "--out", (t.path / "x").string()}).rc == 0);
    auto r = run_evr({"build", (t.path / "x").string(), "--out", out.string(), "--name", name, "--part-size", part_size,
                      "--frame-size", "2048"});
    INFO(r.err);
    REQUIRE(r.rc == 0);
}

size_t parts_of(const fs::path& data, const std::string& name) {
    size_t n = 0;
    while (fs::exists(data / "packages" / (name + "_" + std::to_string(n)))) ++n;
    return n;
}

} // namespace

TEST_CASE("install puts a set that shrank into the game folder, removes its stale parts, restore undoes it",
          "[install]") {
    const std::string set = "mp"; // two parts
    const std::string name = manifest_json<nlohmann::json>(set)["name"];
    TempDir t;
    const fs::path game = t.path / "game", mod = t.path / "mod";
    make_game(game, set);
    const auto before = tree_sha256(game);
    repack(set, mod, "2147483647"); // one part
    REQUIRE(parts_of(mod, name) == 1);

    auto r = run_evr({"install", mod.string(), game.string(), name});
    INFO(r.out << r.err);
    REQUIRE(r.rc == 0);
    CHECK_THAT(r.out, Catch::Contains("removed packages/" + name + "_1"));
    CHECK(parts_of(game, name) == 1);
    CHECK(read_bytes(game / "manifests" / name) == read_bytes(mod / "manifests" / name));
    CHECK(read_bytes(game / "packages" / (name + "_0")) == read_bytes(mod / "packages" / (name + "_0")));
    // The strict reader finds no extra part, and the other set is untouched.
    CHECK(run_evr({"verify", game.string(), name, "--strict"}).rc == 0);
    CHECK(read_bytes(game / "packages/0123456789abcdef_0") == std::vector<uint8_t>{1, 2, 3});
    // Every replaced or removed file is in the backup, byte for byte.
    const fs::path backup = game / ".assetforge-backup" / name;
    CHECK(read_bytes(backup / "packages" / (name + "_1")) == read_bytes(set_dir(set) / "packages" / (name + "_1")));
    CHECK(read_bytes(backup / "manifests" / name) == read_bytes(manifest_path(set)));

    r = run_evr({"restore", game.string(), name});
    REQUIRE(r.rc == 0);
    CHECK(tree_sha256(game) == before);
    CHECK_FALSE(fs::exists(backup));
    // Nothing left to restore: said, not guessed.
    r = run_evr({"restore", game.string(), name});
    CHECK(r.rc == 1);
    CHECK_THAT(r.err, Catch::Contains("no backup of set " + name));
}

TEST_CASE("install of a set that grew, twice: restore removes the added parts and gives back the first original",
          "[install]") {
    const std::string set = "s1"; // one part
    const std::string name = manifest_json<nlohmann::json>(set)["name"];
    TempDir t;
    const fs::path game = t.path / "game", mod = t.path / "mod", mod2 = t.path / "mod2";
    make_game(game, set);
    const auto before = tree_sha256(game);
    repack(set, mod, "1500"); // several parts
    repack(set, mod2, "3000");
    REQUIRE(parts_of(mod, name) > parts_of(mod2, name));
    REQUIRE(parts_of(mod2, name) > 1);

    REQUIRE(run_evr({"install", mod.string(), game.string(), name}).rc == 0);
    CHECK(parts_of(game, name) == parts_of(mod, name));
    auto r = run_evr({"install", mod2.string(), game.string(), name});
    INFO(r.out << r.err);
    REQUIRE(r.rc == 0);
    CHECK_THAT(r.out, Catch::Contains("kept the backup"));
    CHECK(parts_of(game, name) == parts_of(mod2, name));
    CHECK(run_evr({"verify", game.string(), name, "--strict"}).rc == 0);

    r = run_evr({"install", "--restore", game.string(), name});
    INFO(r.out << r.err);
    REQUIRE(r.rc == 0);
    CHECK(tree_sha256(game) == before);
}

TEST_CASE("install refuses a damaged set and a link at a set's name before touching the game folder", "[install]") {
    TempDir t;
    const fs::path game = t.path / "game";
    {
        make_game(game, "s1");
        const auto before = tree_sha256(game);
        const std::string name = manifest_json<nlohmann::json>("c-zstd-garbage")["name"];
        auto r = run_evr({"install", set_dir("c-zstd-garbage").string(), game.string(), name});
        CHECK(r.rc == 1);
        CHECK_THAT(r.err, Catch::Contains("frame"));
        CHECK(tree_sha256(game) == before);
        CHECK_FALSE(fs::exists(game / ".assetforge-backup"));
    }
    {
        const std::string name = manifest_json<nlohmann::json>("s1")["name"];
        const fs::path part = game / "packages" / (name + "_1");
        fs::create_symlink("/etc/passwd", part);
        auto r = run_evr({"install", set_dir("s1").string(), game.string(), name});
        CHECK(r.rc == 1);
        CHECK_THAT(r.err, Catch::Contains(part.string()) && Catch::Contains("not a regular file"));
        CHECK(fs::is_symlink(part));
    }
}

TEST_CASE("install and restore remove the temporaries a killed install left, and nothing else", "[install][kill]") {
    const std::string set = "mp";
    const std::string name = manifest_json<nlohmann::json>(set)["name"];
    TempDir t;
    const fs::path game = t.path / "game", mod = t.path / "mod", backup = game / ".assetforge-backup" / name;
    make_game(game, set);
    repack(set, mod, "2147483647");
    // What a SIGKILL during the writes leaves: files named as install's
    // temporaries, in the folders it writes to.
    auto plant = [&] {
        std::vector<fs::path> own = {game / "packages/.af-tmp-0123456789abcdef",
                                     game / "manifests/.af-tmp-fedcba9876543210"};
        if (fs::exists(backup)) own.push_back(backup / ".af-tmp-00000000deadbeef");
        for (const auto& p : own) write_bytes(p, {9, 9, 9});
        return own;
    };
    // Names that only look like them, a folder and a link with the exact
    // pattern (install makes neither), and one in a folder it does not write.
    fs::create_directories(t.path / "elsewhere");
    write_bytes(t.path / "elsewhere/target", {5});
    for (const char* rel :
         {"packages/.af-tmp-0123456789ABCDEF", "packages/.af-tmp-0123456789abcde", "packages/.af-tmp-0123456789abcdef0",
          "packages/.af-tmp-not-a-temporary", "packages/keep.af-tmp-0123456789abcdef", "manifests/.af-tmp-",
          ".af-tmp-3333333333333333", "packages/.af-tmp-1111111111111111/inside"})
        write_bytes(game / rel, {1});
    fs::create_symlink(t.path / "elsewhere/target", game / "packages/.af-tmp-2222222222222222");
    const auto before = tree_sha256(game);
    auto own_gone = [&](const std::vector<fs::path>& own, const std::string& out) {
        for (const auto& p : own) {
            CHECK_FALSE(fs::exists(p));
            CHECK_THAT(out, Catch::Contains("removed " + p.string() + " (a temporary of an interrupted install"));
        }
    };

    auto own = plant();
    auto r = run_evr({"install", mod.string(), game.string(), name});
    INFO(r.out << r.err);
    REQUIRE(r.rc == 0);
    own_gone(own, r.out);
    CHECK(run_evr({"verify", game.string(), name, "--strict"}).rc == 0);

    // The next install finds one in the backup folder too.
    own = plant();
    REQUIRE(own.size() == 3);
    r = run_evr({"install", mod.string(), game.string(), name});
    INFO(r.out << r.err);
    REQUIRE(r.rc == 0);
    own_gone(own, r.out);

    own = plant();
    r = run_evr({"restore", game.string(), name});
    INFO(r.out << r.err);
    REQUIRE(r.rc == 0);
    own_gone(own, r.out);
    // Everything else is as it was, the look-alikes, folder and link included.
    CHECK(tree_sha256(game) == before);
    CHECK(fs::is_symlink(game / "packages/.af-tmp-2222222222222222"));
    CHECK(read_bytes(t.path / "elsewhere/target") == std::vector<uint8_t>{5});

    // A kill before the backup was recorded leaves nothing to restore: the
    // temporaries go all the same, and that is said.
    own = plant();
    r = run_evr({"restore", game.string(), name});
    CHECK(r.rc == 1);
    CHECK_THAT(r.err, Catch::Contains("no backup of set " + name) &&
                          Catch::Contains("removed 2 temporaries an interrupted install left"));
    for (const auto& p : own) CHECK_FALSE(fs::exists(p));
    CHECK(tree_sha256(game) == before);
}
