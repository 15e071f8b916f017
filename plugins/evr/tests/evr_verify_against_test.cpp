// `evr verify NEW --against ORIGINAL [--strict]`: a repack fails only on
// what the repack did: repack rules broken, or oddities the original lacks.
// The quirks of a game set are inherited, never the modder's fault.
#include "fixture.hpp"

#include "assetforge/testing/fake_host.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace evr_test;
namespace fs = std::filesystem;

namespace {

// `set` repacked into `out` with its first texture_dds file edited.
std::string repack_one_edit(const std::string& set, const fs::path& work, const fs::path& out) {
    const auto j = manifest_json<nlohmann::json>(set);
    const std::string name = j["name"];
    REQUIRE(run_evr({"extract", set_dir(set).string(), name, "--out", (work / "x").string()}).rc == 0);
    std::string rel;
    for (const auto& f : j["files"])
        if (f["kind"] == "dds") {
            rel = f["extract_path"];
            break;
        }
    auto b = read_bytes(work / "x" / rel);
    b.back() ^= 1;
    write_bytes(work / "edit" / rel, b);
    auto r =
        run_evr({"replace", set_dir(set).string(), name, "--from", (work / "edit").string(), "--out", out.string()});
    INFO(r.err);
    REQUIRE(r.rc == 0);
    return rel.substr(0, rel.find('.'));
}

} // namespace

TEST_CASE("verify --against --strict passes a repack of a set with quirks and names the changed file",
          "[verify][against]") {
    for (const std::string set : {"s2q", "s7q", "f1q"}) {
        INFO(set);
        const std::string name = manifest_json<nlohmann::json>(set)["name"];
        TempDir t;
        const fs::path out = t.path / "out";
        const std::string changed = repack_one_edit(set, t.path, out);
        // Alone, the strict check fails on the quirks the repack had to keep ...
        CHECK(run_evr({"verify", out.string(), name, "--strict"}).rc == 1);
        // ... against the original, they are inherited (manifest path or data folder).
        for (const fs::path& orig : {manifest_path(set), set_dir(set)}) {
            auto r = run_evr({"verify", out.string(), name, "--strict", "--against", orig.string()});
            INFO(r.out << r.err);
            CHECK(r.rc == 0);
            CHECK_THAT(r.out, Catch::Contains("changed files: " + changed + "\n") && Catch::Contains("inherited"));
        }
    }
}

TEST_CASE("verify --against fails on what the repack introduced", "[verify][against]") {
    const std::string set = "s1";
    const std::string name = manifest_json<nlohmann::json>(set)["name"];
    TempDir t;
    const fs::path out = t.path / "out";
    repack_one_edit(set, t.path, out);
    REQUIRE(run_evr({"verify", out.string(), name, "--strict", "--against", set_dir(set).string()}).rc == 0);

    SECTION("a stale part beside the new set: a warning, an error with --strict") {
        write_bytes(out / "packages" / (name + "_1"), {1, 2, 3});
        CHECK(run_evr({"verify", out.string(), name, "--against", set_dir(set).string()}).rc == 0);
        auto r = run_evr({"verify", out.string(), name, "--strict", "--against", set_dir(set).string()});
        CHECK(r.rc == 1);
        CHECK_THAT(r.err, Catch::Contains("introduced by the repack") && Catch::Contains(name + "_1"));
    }
    SECTION("files reordered and untouched frames rebuilt: repack rules broken, even without --strict") {
        const fs::path built = t.path / "built";
        REQUIRE(run_evr({"build", (t.path / "x").string(), "--out", built.string(), "--name", name}).rc == 0);
        auto r = run_evr({"verify", built.string(), name, "--against", set_dir(set).string()});
        CHECK(r.rc == 1);
        CHECK_THAT(r.err, Catch::Contains("error: file ") && Catch::Contains("repack rule(s) broken"));
    }
    SECTION("a repack of another set") {
        auto r = run_evr({"verify", out.string(), name, "--against", manifest_path("s2q").string()});
        CHECK(r.rc == 1);
        CHECK_THAT(r.err, Catch::Contains("repack rule(s) broken"));
    }
}
