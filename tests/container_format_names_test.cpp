// XTF and VTF outputs take every name the host's one format parser takes
// (`bc1`, `rgba8`, `DXT1`, …), mapped to the container's own formats, or are
// refused naming the nearest format the container has; `.vtf` `auto` chooses
// as `.xtf` does.
#include "cli_run.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

namespace fs = std::filesystem;
using af::test::run_cli;
using af::test::TempDir;

namespace {

// Opaque: `auto` picks DXT1 for it.
const fs::path kOpaque = fs::path(AF_TEST_DATA) / "images" / "n_stk_generic_rock_crop128.png";

std::string stored_format(const fs::path& file) {
    auto r = run_cli("info '" + file.string() + "'");
    INFO(r.out);
    REQUIRE(r.code == 0);
    return r.out;
}

} // namespace

TEST_CASE("convert: XTF and VTF take every name of the one format parser", "[convert][xtf][formats]") {
    TempDir t("af-container-formats");
    struct Case {
        const char* typed;
        const char* stored;
    };
    const Case cases[] = {{"bc1", "DXT1"},
                          {"dxt1", "DXT1"},
                          {"DXT1", "DXT1"},
                          {"bc3", "DXT5"},
                          {"dxt5", "DXT5"},
                          {"bc2", "DXT3"},
                          {"bgra8", "BGRA8888"},
                          {"rgba8", "RGBA8888"},
                          {"BGRA8888", "BGRA8888"},
                          {"B8G8R8A8_UNORM", "BGRA8888"},
                          {"bc1_unorm_srgb", "DXT1"},
                          {"bgrx8", "BGRX8888"}};
    for (const char* ext : {".xtf", ".vtf"})
        for (const auto& c : cases) {
            const fs::path out = t / (std::string(c.typed) + ext);
            auto r = run_cli("convert '" + kOpaque.string() + "' '" + out.string() + "' --format " + c.typed);
            INFO(ext << " --format " << c.typed << "\n" << r.out);
            REQUIRE(r.code == 0);
            CHECK_THAT(stored_format(out), Catch::Contains(std::string("format: ") + c.stored));
        }
}

TEST_CASE("convert: a name XTF and VTF cannot store is refused naming the nearest format they have",
          "[convert][xtf][formats]") {
    TempDir t("af-container-formats");
    struct Case {
        const char* typed;
        const char* nearest;
    };
    const Case cases[] = {{"bc7", "DXT5"}, {"bc6h", "RGBA16161616F"}, {"r8", "I8"}};
    for (const char* ext : {".xtf", ".vtf"})
        for (const auto& c : cases) {
            auto r = run_cli("convert '" + kOpaque.string() + "' '" + (t / (std::string("x") + ext)).string() +
                             "' --format " + c.typed);
            INFO(ext << " --format " << c.typed << "\n" << r.out);
            CHECK(r.code == 2);
            CHECK_THAT(r.out, Catch::Contains(std::string("nearest it has is ") + c.nearest));
            CHECK_FALSE(fs::exists(t / (std::string("x") + ext)));
        }
    auto r = run_cli("convert '" + kOpaque.string() + "' '" + (t / "y.vtf").string() + "' --format nosuch");
    CHECK(r.code == 2);
    CHECK_THAT(r.out, Catch::Contains("unknown format 'nosuch'"));
}

TEST_CASE("convert: .vtf auto chooses as .xtf auto does (DXT for an opaque picture)", "[convert][xtf][formats]") {
    TempDir t("af-container-formats");
    for (const char* ext : {".xtf", ".vtf"}) {
        const fs::path out = t / (std::string("auto") + ext);
        auto r = run_cli("convert '" + kOpaque.string() + "' '" + out.string() + "'");
        INFO(r.out);
        REQUIRE(r.code == 0);
        CHECK_THAT(stored_format(out), Catch::Contains("format: DXT1"));
        CHECK(fs::file_size(out) < 20000); // 128² DXT1 with mips is ~11 KB; RGBA8888 would be ~87 KB
    }
}

TEST_CASE("build: xtf.write and a .vtf write take the parser's names", "[build][xtf][formats]") {
    TempDir t("af-container-formats");
    t.copy(kOpaque, "src/a.png");
    t.write("pipeline.yaml", R"(assetforge: 1
jobs:
  xbox:
    inputs: "src/*.png"
    steps: [ { xtf.write: { format: bgra8 } } ]
    output: "out/xbox/{stem}.xtf"
  pc:
    inputs: "src/*.png"
    steps: [ { write: { format: bc3 } } ]
    output: "out/pc/{stem}.vtf"
)");
    auto r = run_cli("build", t.path());
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK_THAT(stored_format(t / "out/xbox/a.xtf"), Catch::Contains("format: BGRA8888"));
    CHECK_THAT(stored_format(t / "out/pc/a.vtf"), Catch::Contains("format: DXT5"));
    t.write("pipeline.yaml", R"(assetforge: 1
jobs:
  xbox:
    inputs: "src/*.png"
    steps: [ { xtf.write: { format: bc7 } } ]
    output: "out/xbox/{stem}.xtf"
)");
    auto bad = run_cli("build", t.path());
    CHECK(bad.code == 2);
    CHECK_THAT(bad.out, Catch::Contains("nearest it has is DXT5"));
}
