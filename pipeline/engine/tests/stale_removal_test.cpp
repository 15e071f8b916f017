#include "test_project.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <sqlite3.h>

using namespace af::engine;
using namespace af::engine::test;

TEST_CASE("a job that globs another's outputs never sees outputs of vanished inputs", "[incremental][graph]") {
    // Stale outputs used to be removed at the very end of the build, after
    // `package` had already zipped them: the first build after a deletion
    // gave a zip no clean build gives, and only the next build fixed it.
    TestProject t;
    t.write("src/a.bin", "aaaa");
    t.write("src/b.bin", "bbbb");
    const char* yaml = R"(assetforge: 1
jobs:
  package:
    needs: [ files ]
    inputs: "build/files/**/*"
    gather: { zip: { compression: store } }
    output: "build/mod.zip"
  files:
    inputs: "src/*.bin"
    steps: [ copy ]
    output: "build/files/{name}"
)";
    REQUIRE(t.build(yaml).built == 3);
    CHECK(t.read("build/mod.zip").find("b.bin") != std::string::npos);
    std::filesystem::remove(t.path("src/b.bin"));
    auto s = t.build(yaml);
    CHECK(s.removed == 1);
    CHECK_FALSE(t.exists("build/files/b.bin"));
    CHECK(t.read("build/mod.zip").find("b.bin") == std::string::npos);
    std::string incremental = t.read("build/mod.zip");
    // The same bytes as a clean build, and nothing left to do.
    CHECK(t.build(yaml).built == 0);
    std::filesystem::remove_all(t.path("build"));
    std::filesystem::remove_all(t.path(".assetforge"));
    REQUIRE(t.build(yaml).built == 2);
    CHECK(t.read("build/mod.zip") == incremental);
}

namespace {
// Paths in the state's stat cache, read straight from the database.
std::vector<std::string> cached_paths(const std::filesystem::path& db_path) {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
    sqlite3_stmt* q = nullptr;
    REQUIRE(sqlite3_prepare_v2(db, "SELECT path FROM files ORDER BY path", -1, &q, nullptr) == SQLITE_OK);
    std::vector<std::string> paths;
    while (sqlite3_step(q) == SQLITE_ROW) paths.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(q, 0)));
    sqlite3_finalize(q);
    sqlite3_close(db);
    return paths;
}
} // namespace

TEST_CASE("a vanished input leaves no stat-cache row behind", "[incremental][state]") {
    TestProject t;
    t.write("src/a.bin", "aaaa");
    t.write("src/b.bin", "bbbb");
    const char* yaml = R"(assetforge: 1
jobs:
  files:
    inputs: "src/*.bin"
    steps: [ copy ]
    output: "build/{name}"
)";
    REQUIRE(t.build(yaml).built == 2);
    const auto db = t.path(".assetforge/state.db");
    auto before = cached_paths(db);
    CHECK(std::count(before.begin(), before.end(), "src/b.bin") == 1);
    std::filesystem::remove(t.path("src/b.bin"));
    REQUIRE(t.build(yaml).removed == 1);
    auto after = cached_paths(db);
    CHECK(std::count(after.begin(), after.end(), "src/b.bin") == 0);
    CHECK(std::count(after.begin(), after.end(), "src/a.bin") == 1);
    // Back again: hashed afresh and built.
    t.write("src/b.bin", "bbbb");
    CHECK(t.build(yaml).built == 1);
}
