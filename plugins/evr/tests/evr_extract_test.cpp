#include "fixture.hpp"

#include "assetforge/testing/fake_host.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <set>

using namespace evr_test;
namespace fs = std::filesystem;

namespace {

std::set<std::string> files_under(const fs::path& root) {
    std::set<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(root))
        if (e.is_regular_file()) out.insert(fs::relative(e.path(), root).generic_string());
    return out;
}

} // namespace

TEST_CASE("extract writes exactly the generator's files, byte for byte", "[extract]") {
    af::sdk::testing::FakeHost host;
    host.set_threads(2);
    for (const auto& set : valid_sets()) {
        INFO(set);
        const auto j = manifest_json<nlohmann::json>(set);
        TempDir t;
        auto r = run_evr({"extract", set_dir(set).string(), j["name"], "--out", t.path.string()}, host);
        REQUIRE(r.rc == 0);
        std::set<std::string> expected;
        for (const auto& f : j["files"]) {
            const std::string rel = f["extract_path"];
            expected.insert(rel);
            INFO(rel << " (" << f["kind"] << ")");
            CHECK(sha256_hex(read_bytes(t.path / rel)) == f["extract_sha256"]);
        }
        CHECK(files_under(t.path) == expected);
        // No temporaries left behind by the atomic writes.
        for (const auto& p : files_under(t.path)) CHECK(p.find(".af-tmp-") == std::string::npos);
    }
}

TEST_CASE("raw BC textures become .dds when their metadata fits and .bc when it does not", "[extract][texture]") {
    // s7q holds both kinds, including raw textures without metadata.
    const auto j = manifest_json<nlohmann::json>("s7q");
    TempDir t;
    std::ostringstream dummy;
    auto r = run_evr({"extract", manifest_path("s7q").string(), "--out", t.path.string()});
    REQUIRE(r.rc == 0);
    int dds = 0, bc = 0;
    for (const auto& f : j["files"]) {
        if (f["kind"] == "rawbc-dds") {
            ++dds;
            const auto b = read_bytes(t.path / f["extract_path"].get<std::string>());
            REQUIRE(b.size() >= 148);
            CHECK(std::string(b.begin(), b.begin() + 4) == "DDS ");
            CHECK(b.size() == f["size"].get<size_t>() + 148);
        } else if (f["kind"] == "rawbc-bc") {
            ++bc;
            CHECK(fs::file_size(t.path / f["extract_path"].get<std::string>()) == f["size"].get<uint64_t>());
        }
    }
    CHECK(dds > 0);
    CHECK(bc > 0);
}

TEST_CASE("extract --groups keeps the frame index as a directory level", "[extract]") {
    af::sdk::testing::FakeHost host;
    host.set_threads(2);
    const auto j = manifest_json<nlohmann::json>("mp");
    TempDir t;
    REQUIRE(run_evr({"extract", set_dir("mp").string(), j["name"], "--out", t.path.string(), "--groups"}, host).rc ==
            0);
    std::set<std::string> expected;
    for (const auto& f : j["files"]) {
        const std::string rel = std::to_string(f["frame"].get<int>()) + "/" + f["extract_path"].get<std::string>();
        expected.insert(rel);
        CHECK(sha256_hex(read_bytes(t.path / rel)) == f["extract_sha256"]);
    }
    CHECK(files_under(t.path) == expected);
}

TEST_CASE("extract --type writes only the chosen types, still rebuilding DDS", "[extract]") {
    const auto j = manifest_json<nlohmann::json>("s1");
    TempDir t;
    auto r = run_evr({"extract", set_dir("s1").string(), j["name"], "--out", t.path.string(), "--type",
                      "7f5bc1cf8ce51ffd", "--type", "0xbeac1969cb7b8861"});
    REQUIRE(r.rc == 0);
    std::set<std::string> expected;
    for (const auto& f : j["files"]) {
        if (f["type"] != "7f5bc1cf8ce51ffd" && f["type"] != "beac1969cb7b8861") continue;
        expected.insert(f["extract_path"].get<std::string>());
        CHECK(sha256_hex(read_bytes(t.path / f["extract_path"].get<std::string>())) == f["extract_sha256"]);
    }
    CHECK(!expected.empty());
    CHECK(files_under(t.path) == expected);
    CHECK(run_evr({"extract", set_dir("s1").string(), j["name"], "--out", t.path.string(), "--type", "xyz"}).rc == 2);
}

TEST_CASE("list matches the generator's manifest.json", "[list]") {
    for (const auto& set : valid_sets()) {
        INFO(set);
        const auto j = manifest_json<nlohmann::json>(set);
        auto r = run_evr({"list", set_dir(set).string(), j["name"], "--json"});
        REQUIRE(r.rc == 0);
        const auto l = nlohmann::json::parse(r.out);
        CHECK(l["name"] == j["name"]);
        CHECK(l["package_count"] == j["package_count"]);
        REQUIRE(l["files"].size() == j["files"].size());
        for (size_t i = 0; i < j["files"].size(); ++i) {
            const auto &a = l["files"][i], &b = j["files"][i];
            for (const char* k : {"type", "file", "frame", "offset", "size", "alignment"}) CHECK(a[k] == b[k]);
        }
        REQUIRE(l["frames"].size() == j["frames"].size());
        for (size_t i = 0; i < j["frames"].size(); ++i)
            for (const char* k : {"package", "offset", "csize", "length"})
                CHECK(l["frames"][i][k] == j["frames"][i][k]);
        for (size_t i = 0; i < j["parts"].size(); ++i) CHECK(l["parts"][i]["size"] == j["parts"][i]["size"]);
    }
    // Text form: one header line, one line per file, known type names spelled out.
    const auto j = manifest_json<nlohmann::json>("s1");
    auto r = run_evr({"list", manifest_path("s1").string()});
    REQUIRE(r.rc == 0);
    CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 25);
    CHECK_THAT(r.out, Catch::StartsWith("91b7584a2265b1f5: 24 files, 4 data frames (6 records), 1 part(s)\n") &&
                          Catch::Contains("texture_bc_raw") && Catch::Contains("texture_meta"));
}
