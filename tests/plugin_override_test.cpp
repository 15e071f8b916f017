// A third-party plugin cannot take what a bundled plugin claims unless the user says so: one named like a bundled
// plugin is refused by name (the rest still load), and one whose container ties a bundled one on a file's magic,
// its extension or its name loses the tie; `--plugin-override NAME` (before the command) lets plugin NAME do both.
// The impostors are tests/isolation_plugins/impostor.cpp, built as plugin "dds" and as "dds-twin"; a file either
// reads is 2x2, which no DDS file of the tests is.
#include "cli_run.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

namespace fs = std::filesystem;
using namespace af::test;

namespace {

struct ImpostorPath {
    explicit ImpostorPath(const std::string& dirs) { setenv("ASSETFORGE_PLUGIN_PATH", dirs.c_str(), 1); }
    ~ImpostorPath() { unsetenv("ASSETFORGE_PLUGIN_PATH"); }
};

std::string impostor_dir(const std::string& name) { return std::string(AF_TEST_PLUGIN_DIR) + "/impostor_" + name; }

// A DDS file of the bundled plugin's tests (64x64 and more: never the impostors' 2x2).
std::string dds_file() { return "'" + std::string(AF_SOURCE_DIR) + "/plugins/dds/tests/data/Signs__black.dds'"; }

bool read_by_impostor(const Run& info) { return info.out.find("2x2") != std::string::npos; }

// A 2x2 RGBA8 PNG, for the DDS writers.
constexpr char kPng[] = "\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x02\x00\x00\x00"
                        "\x02\x08\x06\x00\x00\x00\x72\xb6\x0d\x24\x00\x00\x00\x15\x49\x44\x41\x54\x78\x9c\x63\x10\x50"
                        "\x30\xf8\x0f\xc2\x0c\x0e\x01\x09\xff\x41\x18\x00\x31\x54\x06\x9d\x55\x45\xe6\x88\x00\x00\x00"
                        "\x00\x49\x45\x4e\x44\xae\x42\x60\x82";

} // namespace

TEST_CASE("plugin-host: a third-party plugin named like a bundled one is refused by name unless --plugin-override "
          "names it",
          "[plugins]") {
    ImpostorPath path(impostor_dir("dds") + ":" + AF_HOSTILE_PLUGIN_DIR);
    const std::string refused = "plugin 'dds' from " + impostor_dir("dds") +
                                "/impostor.so has the name of a bundled plugin; not loaded (--plugin-override dds";
    Run info = run_cli("info " + dds_file());
    INFO(info.out);
    CHECK(info.code == 0);
    CHECK_FALSE(read_by_impostor(info));
    CHECK_THAT(info.out, Catch::Contains(refused));
    Run list = run_cli("plugins");
    INFO(list.out);
    CHECK_THAT(list.out, Catch::Contains(refused));
    CHECK_THAT(list.out, Catch::Contains("hostile")); // the rest of the path still loads

    Run over = run_cli("--plugin-override dds info " + dds_file());
    INFO(over.out);
    CHECK(over.code == 0);
    CHECK(read_by_impostor(over));
    CHECK_THAT(over.out, !Catch::Contains("has the name of a bundled plugin"));
}

TEST_CASE("plugin-host: a third-party container tying a bundled one on magic, extension and name loses the tie "
          "unless --plugin-override names its plugin",
          "[plugins]") {
    ImpostorPath path(impostor_dir("dds-twin"));
    TempDir t;
    Run info = run_cli("info " + dds_file());
    INFO(info.out);
    CHECK(info.code == 0);
    CHECK_FALSE(read_by_impostor(info));
    // Written by extension: the bundled writer, not the impostor (whose write always fails).
    t.write("a.png", std::string(kPng, sizeof kPng - 1));
    Run by_ext = run_cli("convert a.png a.dds --format rgba8", t.path());
    INFO(by_ext.out);
    CHECK(by_ext.code == 0);
    CHECK(slurp(t / "a.dds").rfind("DDS ", 0) == 0);

    Run over = run_cli("--plugin-override dds-twin info " + dds_file());
    INFO(over.out);
    CHECK(over.code == 0);
    CHECK(read_by_impostor(over));
    Run over_ext = run_cli("--plugin-override dds-twin convert a.png b.dds --format rgba8", t.path());
    INFO(over_ext.out);
    CHECK(over_ext.code != 0);
    CHECK_THAT(over_ext.out, Catch::Contains("the impostor writes nothing"));
}
