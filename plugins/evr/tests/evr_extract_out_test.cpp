// `evr extract --out` into a folder that already holds files: a file with
// other contents (a modder's edit) is never replaced without --overwrite,
// identical files are fine, and links inside --out are refused, never
// written through.
#include "fixture.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace evr_test;
namespace fs = std::filesystem;

TEST_CASE("extract --out keeps an existing different file unless --overwrite", "[extract][out]") {
    const std::string set = "s1";
    const auto j = manifest_json<nlohmann::json>(set);
    const std::string name = j["name"];
    TempDir t;
    const fs::path out = t.path / "x";
    REQUIRE(run_evr({"extract", set_dir(set).string(), name, "--out", out.string()}).rc == 0);
    // Extracting again over identical files is fine.
    REQUIRE(run_evr({"extract", set_dir(set).string(), name, "--out", out.string()}).rc == 0);
    const auto original = tree_sha256(out);
    const std::string rel = j["files"][2]["extract_path"];
    auto edit = read_bytes(out / rel);
    edit.push_back(42);
    write_bytes(out / rel, edit);

    auto r = run_evr({"extract", set_dir(set).string(), name, "--out", out.string()});
    CHECK(r.rc == 1);
    CHECK_THAT(r.err, Catch::Contains((out / rel).string()) && Catch::Contains("--overwrite"));
    CHECK(read_bytes(out / rel) == edit);
    auto now = tree_sha256(out);
    now.erase(rel);
    auto want = original;
    want.erase(rel);
    CHECK(now == want);

    r = run_evr({"extract", set_dir(set).string(), name, "--out", out.string(), "--overwrite"});
    CHECK(r.rc == 0);
    CHECK(tree_sha256(out) == original);
}

TEST_CASE("extract --out refuses links inside the output folder", "[extract][out]") {
    const std::string set = "s1";
    const auto j = manifest_json<nlohmann::json>(set);
    const std::string name = j["name"];
    TempDir t;
    const fs::path out = t.path / "x", outside = t.path / "outside";
    fs::create_directories(out);
    fs::create_directories(outside);
    SECTION("a linked type folder") {
        const std::string type = j["files"][0]["type"];
        fs::create_directory_symlink(outside, out / type);
        auto r = run_evr({"extract", set_dir(set).string(), name, "--out", out.string()});
        CHECK(r.rc == 1);
        CHECK_THAT(r.err, Catch::Contains((out / type).string()) && Catch::Contains("link"));
        CHECK(fs::is_empty(outside));
    }
    SECTION("a linked file, even with --overwrite") {
        const std::string rel = j["files"][0]["extract_path"];
        write_bytes(outside / "victim", {1, 2, 3});
        fs::create_directories((out / rel).parent_path());
        fs::create_symlink(outside / "victim", out / rel);
        auto r = run_evr({"extract", set_dir(set).string(), name, "--out", out.string(), "--overwrite"});
        CHECK(r.rc == 1);
        CHECK_THAT(r.err, Catch::Contains((out / rel).string()) && Catch::Contains("link"));
        CHECK(read_bytes(outside / "victim") == std::vector<uint8_t>{1, 2, 3});
        CHECK(fs::is_symlink(out / rel));
    }
}
