// `evr build`: a new set from an extraction tree reads back to the same tree.
#include "fixture.hpp"

#include "package_set.hpp"

#include "assetforge/testing/fake_host.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <map>

using namespace evr_test;
namespace fs = std::filesystem;

TEST_CASE("build from a tree, flat or grouped, extracts back to the same tree", "[build]") {
    af::sdk::testing::FakeHost host;
    host.set_threads(2);
    for (const auto& set : valid_sets()) {
        for (bool groups : {false, true}) {
            INFO(set << (groups ? " --groups" : ""));
            const auto j = manifest_json<nlohmann::json>(set);
            const std::string name = j["name"];
            TempDir t;
            std::vector<std::string> x = {"extract", set_dir(set).string(), name, "--out", (t.path / "x").string()};
            if (groups) x.push_back("--groups");
            REQUIRE(run_evr(x, host).rc == 0);
            std::vector<std::string> b = {"build",  (t.path / "x").string(), "--out", (t.path / "new").string(),
                                          "--name", "0123456789abcdef"};
            if (groups) b.push_back("--groups");
            auto r = run_evr(b, host);
            REQUIRE(r.rc == 0);
            CHECK(run_evr({"verify", (t.path / "new").string(), "0123456789abcdef", "--strict"}, host).rc == 0);
            x[1] = (t.path / "new").string();
            x[2] = "0123456789abcdef";
            x[4] = (t.path / "y").string();
            REQUIRE(run_evr(x, host).rc == 0);
            if (!groups) {
                CHECK(tree_sha256(t.path / "x") == tree_sha256(t.path / "y"));
            } else {
                // Groups keep the original grouping: as many data frames as groups.
                const af::evr::PackageSet s(af::evr::locate_set(t.path / "new", "0123456789abcdef"), {}, nullptr);
                uint64_t groups_in_tree = 0;
                for (const auto& e : fs::directory_iterator(t.path / "x")) groups_in_tree += e.is_directory();
                uint64_t data = 0;
                for (const auto& r2 : s.manifest().frames) data += r2.is_data();
                CHECK(data == groups_in_tree);
                // Same files, frame directories renumbered in order.
                std::map<std::string, std::string> a, c;
                for (auto& [k, v] : tree_sha256(t.path / "x")) a[k.substr(k.find('/') + 1)] = v;
                for (auto& [k, v] : tree_sha256(t.path / "y")) c[k.substr(k.find('/') + 1)] = v;
                CHECK(a == c);
            }
        }
    }
}

TEST_CASE("build caps frames at 512000 bytes, splits parts, and refuses bad trees", "[build]") {
    TempDir t;
    for (int i = 0; i < 6; ++i)
        write_bytes(t.path / "tree/00000000000000a1" / (std::to_string(i) + "0"),
                    std::vector<uint8_t>(200000, uint8_t(i)));
    auto r = run_evr(
        {"build", (t.path / "tree").string(), "--out", (t.path / "o").string(), "--name", "n", "--part-size", "10"});
    REQUIRE(r.rc == 0);
    const af::evr::PackageSet s(af::evr::locate_set(t.path / "o", "n"), {}, nullptr);
    uint64_t data = 0;
    for (const auto& rec : s.manifest().frames) {
        if (!rec.is_data()) continue;
        ++data;
        CHECK(rec.length <= 512000);
    }
    CHECK(data == 3); // two 200000-byte files per frame
    CHECK(s.part_count() == 3);
    CHECK(run_evr({"verify", (t.path / "o").string(), "n", "--strict"}).rc == 0);

    write_bytes(t.path / "bad/zz/01.bin", {1});
    r = run_evr({"build", (t.path / "bad").string(), "--out", (t.path / "o2").string(), "--name", "n"});
    CHECK(r.rc == 1);
    CHECK_THAT(r.err, Catch::Contains("zz/01.bin") && Catch::Contains("hex symbols"));

    write_bytes(t.path / "dup/0a/01.bin", {1});
    write_bytes(t.path / "dup/0a/1.bc", {1});
    r = run_evr({"build", (t.path / "dup").string(), "--out", (t.path / "o3").string(), "--name", "n"});
    CHECK(r.rc == 1);
    CHECK_THAT(r.err, Catch::Contains("same type and file symbols"));

    CHECK(run_evr({"build", (t.path / "tree").string(), "--out", (t.path / "o4").string(), "--name", "../x"}).rc == 2);
    r = run_evr({"build", (t.path / "tree").string(), "--out", (t.path / "o5").string(), "--name", "n", "--groups"});
    CHECK(r.rc == 1);
    CHECK_THAT(r.err, Catch::Contains("--groups expects"));

    fs::create_directories(t.path / "link/0a");
    fs::create_symlink("/etc/hostname", t.path / "link/0a/01.bin");
    r = run_evr({"build", (t.path / "link").string(), "--out", (t.path / "o6").string(), "--name", "n"});
    CHECK(r.rc == 1);
    CHECK_THAT(r.err, Catch::Contains("symbolic link"));
}
