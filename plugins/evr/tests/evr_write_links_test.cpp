// Sets written by `evr replace` and `evr build` never reach outside their
// --out folder through a link planted inside it: a linked manifests/ or
// packages/ folder (new set or replaced set), or a link at a part's name.
#include "fixture.hpp"
#include "output_batch.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace evr_test;
namespace fs = std::filesystem;

namespace {

Run replace_into(const fs::path& out, const fs::path& from, bool overwrite, const char* part_size = "4096") {
    std::vector<std::string> argv = {"replace",    set_dir("mp").string(), manifest_json<nlohmann::json>("mp")["name"],
                                     "--from",     from.string(),          "--out",
                                     out.string(), "--part-size",          part_size};
    if (overwrite) argv.push_back("--overwrite");
    return run_evr(argv);
}

} // namespace

TEST_CASE("a set is never written through a link inside --out", "[replace][links]") {
    const std::string name = manifest_json<nlohmann::json>("mp")["name"];
    TempDir t;
    const fs::path out = t.path / "o", outside = t.path / "outside", empty = t.path / "empty";
    fs::create_directories(outside);
    fs::create_directories(empty);
    SECTION("a linked packages or manifests folder, new set") {
        for (const char* sub : {"packages", "manifests"}) {
            INFO(sub);
            fs::remove_all(out);
            fs::create_directories(out);
            fs::create_directory_symlink(outside, out / sub);
            auto r = replace_into(out, empty, false);
            CHECK(r.rc == 1);
            CHECK_THAT(r.err, Catch::Contains("outside"));
            CHECK(fs::is_empty(outside));
        }
    }
    SECTION("a linked packages folder, set replaced with --overwrite") {
        REQUIRE(replace_into(out, empty, false).rc == 0);
        fs::rename(out / "packages", outside / "packages");
        fs::create_directory_symlink(outside / "packages", out / "packages");
        const auto before = tree_sha256(outside);
        auto r = replace_into(out, empty, true, "1000000");
        CHECK(r.rc == 1);
        CHECK_THAT(r.err, Catch::Contains("outside"));
        CHECK(tree_sha256(outside) == before);
        // Nothing left beside --out either (the stage of the switch is removed).
        size_t entries = 0;
        for (const auto& e : fs::directory_iterator(t.path))
            entries += e.path().filename().string().rfind(".af-tmp-", 0) == 0;
        CHECK(entries == 0);
    }
    SECTION("a link at a part's or the manifest's name is replaced, never followed") {
        fs::create_directories(out / "packages");
        fs::create_directories(out / "manifests");
        write_bytes(outside / "victim", {1, 2, 3});
        fs::create_symlink(outside / "victim", out / "packages" / (name + "_0"));
        fs::create_symlink(outside / "victim", out / "packages" / (name + "_1"));
        REQUIRE(replace_into(out, empty, false).rc == 0);
        CHECK(read_bytes(outside / "victim") == std::vector<uint8_t>{1, 2, 3});
        CHECK_FALSE(fs::is_symlink(out / "packages" / (name + "_0")));
        CHECK(run_evr({"verify", out.string(), name}).rc == 0);
    }
}

TEST_CASE("the output batch writes into many folders and refuses one that leads outside", "[links]") {
    TempDir t;
    const fs::path out = t.path / "o", outside = t.path / "outside";
    fs::create_directories(outside);
    const std::vector<uint8_t> body = {7, 8, 9};
    {
        // More folders than the batch keeps open: each is opened and checked again at the rename.
        af::evr::OutputBatch batch(out);
        for (int i = 0; i < 300; ++i) {
            fs::create_directories(out / std::to_string(i));
            batch.add(out / std::to_string(i) / "f.bin", {}, body);
        }
        batch.commit();
    }
    size_t files = 0;
    for (const auto& e : fs::recursive_directory_iterator(out)) {
        if (!e.is_regular_file()) continue;
        ++files;
        CHECK(e.path().filename() == "f.bin");
    }
    CHECK(files == 300);
    fs::create_directory_symlink(outside, out / "linked");
    af::evr::OutputBatch batch(out);
    CHECK_THROWS_WITH(batch.add(out / "linked" / "f.bin", {}, body), Catch::Contains("outside"));
    CHECK_THROWS_WITH(batch.add(out / "linked" / "g.bin", {}, body), Catch::Contains("outside"));
    batch.commit();
    CHECK(fs::is_empty(outside));
}
