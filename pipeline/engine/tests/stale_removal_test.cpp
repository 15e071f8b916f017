#include "test_project.hpp"

#include <catch2/catch.hpp>

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
