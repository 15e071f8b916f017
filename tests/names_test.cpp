// File names as they come from disk: as long as the file system allows, and
// holding control characters that must not forge lines in what a build prints.
#include "cli_run.hpp"
#include "support/project.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

namespace fs = std::filesystem;
using namespace af::test;

TEST_CASE("build: an output name of 255 bytes builds", "[build][names]") {
    TempDir t("af-names-test");
    const std::string stem(251, 'n');
    t.copy(kRockImage, "src/" + stem + ".png");
    t.write("pipeline.yaml", kMipsPipeline);
    auto r = run_cli("build", t.path());
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK((stem + ".dds").size() == 255);
    CHECK(fs::exists(t / ("out/" + stem + ".dds")));
    CHECK(std::distance(fs::directory_iterator(t / "out"), fs::directory_iterator()) == 1); // no temporary left
    auto again = run_cli("build", t.path());
    CHECK_THAT(again.out, Catch::Contains("0 built, 1 up to date"));
}

TEST_CASE("build and status: control characters in names are escaped, they cannot forge lines", "[build][names]") {
    TempDir t("af-names-test");
    t.write("src/a\nFAKE: x.png", "not a png");          // fails: in the progress line and the failure summary
    t.copy(kRockImage, "src/b\nFAKE: y.png");            // builds: in the progress line
    t.write("src/c\x1b[2J\x1b]0;title\x07.png", "junk"); // ESC sequences: clear screen, set title
    t.write("pipeline.yaml", kMipsPipeline);
    auto check = [](const std::string& out) {
        for (const auto& l : lines_of(out)) {
            INFO(l);
            CHECK(l.rfind("FAKE", 0) != 0);
        }
        CHECK(out.find('\x1b') == std::string::npos);
        CHECK(out.find('\x07') == std::string::npos);
    };
    auto status = run_cli("status -v", t.path()); // -v lists each action
    INFO(status.out);
    CHECK_THAT(status.out, Catch::Contains("src/a\\x0aFAKE: x.png"));
    check(status.out);

    auto r = run_cli("build --explain", t.path());
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("FAILED textures: src/a\\x0aFAKE: x.png"));
    CHECK_THAT(r.out, Catch::Contains("] textures: src/b\\x0aFAKE: y.png"));
    CHECK_THAT(r.out, Catch::Contains("explain: textures: src/a\\x0aFAKE: x.png: new input"));
    CHECK_THAT(r.out, Catch::Contains("  textures: src/a\\x0aFAKE: x.png: step 'mips'"));
    CHECK_THAT(r.out, Catch::Contains("src/c\\x1b[2J\\x1b]0;title\\x07.png"));
    check(r.out);
    CHECK(fs::exists(t / "out/b\nFAKE: y.dds"));
}
