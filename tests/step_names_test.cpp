// Step names are one namespace: a plugin stage named like a built-in step or
// like another plugin's stage stops every command that builds the step table
// (exit 2, naming both sides) instead of one of them silently winning; and
// with the engine's own copy gone, `swizzle`/`deswizzle` are the xtf plugin's.
#include "cli_run.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using af::test::Run;
using af::test::TempDir;
using Catch::Contains;

namespace {

// ASSETFORGE_PLUGIN_PATH for one test: the plugins of `folder` load before the build's own.
struct PluginPath {
    explicit PluginPath(const fs::path& folder) { setenv("ASSETFORGE_PLUGIN_PATH", folder.c_str(), 1); }
    ~PluginPath() { unsetenv("ASSETFORGE_PLUGIN_PATH"); }
    PluginPath(const PluginPath&) = delete;
    PluginPath& operator=(const PluginPath&) = delete;
};

fs::path test_plugins(const std::string& folder) { return fs::weakly_canonical(fs::path(AF_TEST_PLUGIN_DIR) / folder); }

// A pipeline that uses neither clashing name: the clash is an error all the same.
void write_copy_project(const TempDir& t) {
    t.write("src/a.bin", "x");
    t.write("pipeline.yaml",
            "assetforge: 1\njobs:\n  j:\n    inputs: \"src/*.bin\"\n    steps: [ copy ]\n    output: \"out/{name}\"\n");
}

} // namespace

TEST_CASE("a plugin stage named like a built-in step is an error naming both", "[steps][plugins][e2e]") {
    const fs::path dir = test_plugins("clash_builtin");
    PluginPath use(dir);
    TempDir t;
    write_copy_project(t);
    for (const char* command : {"status", "build", "clean", "steps"}) {
        Run r = af::test::run_cli(command, t.path());
        INFO(command << ": " << r.out);
        CHECK(r.code == 2);
        CHECK_THAT(r.out, Contains("two steps are named 'decode': the built-in step and a stage of plugin "
                                   "'stage_named_decode' (" +
                                   (dir / "stage_named_decode.so").string() + ")"));
    }
    CHECK_FALSE(fs::exists(t / "out"));
}

TEST_CASE("two plugins with a stage of one name are an error naming both", "[steps][plugins][e2e]") {
    const fs::path dir = test_plugins("clash_plugins");
    PluginPath use(dir);
    TempDir t;
    write_copy_project(t);
    for (const char* command : {"status", "steps"}) {
        Run r = af::test::run_cli(command, t.path());
        INFO(command << ": " << r.out);
        CHECK(r.code == 2);
        CHECK_THAT(r.out, Contains("two steps are named 'twin.stage': a stage of plugin 'twin_a' (" +
                                   (dir / "twin_a.so").string() + ") and a stage of plugin 'twin_b' (" +
                                   (dir / "twin_b.so").string() + ")"));
    }
}

TEST_CASE("swizzle and deswizzle are the xtf plugin's stages on raw surfaces", "[steps][xtf][e2e]") {
    // 4x2 texels of 2 bytes, each texel holding its row-major index twice.
    std::string raw;
    for (char i = 0; i < 8; ++i) raw += std::string(2, i);
    // The Xbox swizzle interleaves x and y bits from the low bit up while both
    // last (x0 y0 x1): texel (x, y) lands at x0 | y0 << 1 | x1 << 2.
    std::string swizzled(raw.size(), '\0');
    for (int y = 0; y < 2; ++y)
        for (int x = 0; x < 4; ++x) {
            int s = (x & 1) | y << 1 | (x >> 1) << 2;
            swizzled.replace(size_t(s) * 2, 2, std::string(2, char(y * 4 + x)));
        }
    TempDir t;
    t.write("src/a.raw", raw);
    t.write("pipeline.yaml", "assetforge: 1\njobs:\n"
                             "  to_xbox:\n    inputs: \"src/*.raw\"\n"
                             "    steps: [ { swizzle: { width: 4, height: 2, bpp: 16 } } ]\n"
                             "    output: \"xbox/{name}\"\n"
                             "  back:\n    from: to_xbox\n"
                             "    steps: [ { deswizzle: { width: 4, height: 2, bpp: 16 } } ]\n"
                             "    output: \"linear/{name}\"\n");
    Run r = af::test::run_cli("build", t.path());
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK(af::test::slurp(t / "xbox/a.raw") == swizzled);
    CHECK(af::test::slurp(t / "linear/a.raw") == raw);
}
