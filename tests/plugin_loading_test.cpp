// Loading a third-party plugin runs none of its code outside a sealed worker. The plugin is
// tests/isolation_plugins/prying.cpp: its ELF constructor and its entry function try to read a 0600 file outside the
// project (AF_PRYING_SECRET) and leave a marker beside it when they can, and the constructor opens a socket. Every
// read of a ".prying" file says, as a warning, what the plugin's loading managed where it ran.
#include "cli_run.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>

namespace fs = std::filesystem;
using namespace af::test;

namespace {

struct PryingPath {
    PryingPath() { setenv("ASSETFORGE_PLUGIN_PATH", AF_PRYING_PLUGIN_DIR, 1); }
    ~PryingPath() { unsetenv("ASSETFORGE_PLUGIN_PATH"); }
};

// The secret, readable by its owner only, and no marker of an earlier run.
void plant_secret() {
    const fs::path secret = AF_PRYING_SECRET;
    fs::create_directories(secret.parent_path());
    std::ofstream(secret) << "the user's private key\n";
    REQUIRE(::chmod(secret.c_str(), 0600) == 0);
    for (const char* who : {"constructor", "entry"}) fs::remove(secret.string() + ".read-by-" + who);
}

// The secret as plant_secret() leaves it, markers untouched: for tests that may run beside the one that counts them.
void keep_secret() {
    const fs::path secret = AF_PRYING_SECRET;
    fs::create_directories(secret.parent_path());
    if (!fs::exists(secret)) std::ofstream(secret) << "the user's private key\n";
    REQUIRE(::chmod(secret.c_str(), 0600) == 0);
}

// The markers the plugin left: each names who read the secret.
std::string markers() {
    std::string found;
    for (const char* who : {"constructor", "entry"})
        if (fs::exists(std::string(AF_PRYING_SECRET) + ".read-by-" + who)) found += std::string(" ") + who;
    return found;
}

constexpr const char* kPryingPipeline = R"(assetforge: 1
jobs:
  textures:
    inputs: "src/*.prying"
    steps: [ decode ]
    output: "out/{stem}.png"
)";

// A ".prying" file whose BC1 block starts with `grey`.
std::string prying_file(uint8_t grey) { return std::string("PRY") + char(grey); }

} // namespace

TEST_CASE("isolation: a third-party plugin's constructor and entry function run only in the sealed worker",
          "[isolation]") {
    PryingPath path;
    plant_secret();
    TempDir t;
    t.write("pipeline.yaml", kPryingPipeline);
    t.write("src/a.prying", prying_file(0x40));

    Run plugins = run_in(t.path(), "plugins");
    INFO(plugins.out);
    CHECK(plugins.code == 0);
    CHECK_THAT(plugins.out,
               Catch::Contains("prying 1.0") && Catch::Contains("loaded only in sealed workers (Landlock"));
    CHECK(markers().empty());

    Run info = run_in(t.path(), "info src/a.prying");
    INFO(info.out);
    CHECK(markers().empty());

    Run convert = run_in(t.path(), "convert src/a.prying a.png");
    INFO(convert.out);
    CHECK(convert.code == 0);
    CHECK(fs::exists(t / "a.png"));
    CHECK(markers().empty());

    Run build = run_in(t.path(), "build -j1");
    INFO(build.out);
    CHECK(build.code == 0);
    CHECK(fs::exists(t / "out/a.png"));
    CHECK(markers().empty());
    // The plugin's code did run, in the worker, where neither the file nor the network was there to take.
    CHECK_THAT(build.out, Catch::Contains("constructor:secret-refused(EACCES)") &&
                              Catch::Contains("entry:secret-refused(EACCES)") &&
                              Catch::Contains("constructor:socket-refused"));
    CHECK_THAT(build.out, !Catch::Contains("secret-read") && !Catch::Contains("socket-opened") &&
                              !Catch::Contains("socket-connected"));

    SECTION("its command is refused, and runs in process only when the user trusts the plugin by name") {
        Run refused = run_in(t.path(), "pry");
        INFO(refused.out);
        CHECK(refused.code == 2);
        CHECK_THAT(refused.out, Catch::Contains("command 'pry' is from the third-party plugin 'prying'") &&
                                    Catch::Contains("--plugin-trust prying"));
        CHECK(markers().empty());
        Run trusted = run_in(t.path(), "--plugin-trust prying pry");
        INFO(trusted.out);
        CHECK(trusted.code == 0);
        CHECK_THAT(trusted.out, Catch::Contains("pried: constructor:secret-read"));
        plant_secret();
    }
    SECTION("--isolate none loads it in process, as the user asked") {
        Run none = run_in(t.path(), "build -j1 --isolate none");
        INFO(none.out);
        CHECK(none.code == 0);
        CHECK(markers() == " constructor entry");
        plant_secret();
    }
}

TEST_CASE("isolation: a third-party codec decodes and encodes in a worker, a crash in it fails one action",
          "[isolation]") {
    PryingPath path;
    keep_secret();
    TempDir t;
    t.write("pipeline.yaml", kPryingPipeline);
    t.write("src/a.prying", prying_file(0x40));
    t.write("src/b.prying", prying_file(0x80));
    t.write("src/x.prying", prying_file(0xEE)); // the codec's decode dereferences NULL on this one
    // --plugin-override puts the plugin before the bundled bc, whose formats its codec claims.
    Run build = run_in(t.path(), "--plugin-override prying build -j2");
    INFO(build.out);
    CHECK(build.code == 1);
    CHECK(fs::exists(t / "out/a.png"));
    CHECK(fs::exists(t / "out/b.png"));
    CHECK(!fs::exists(t / "out/x.png"));
    CHECK_THAT(build.out, Catch::Contains("plugin 'prying' crashed (SIG") && Catch::Contains("in decode of"));

    // Round trip: decode (grey 0x40) to PNG, then encode that PNG's first red into the BC1 block of a DDS.
    Run encode = run_in(t.path(), "--plugin-override prying convert --format bc1 out/a.png a.dds");
    INFO(encode.out);
    REQUIRE(encode.code == 0);
    const std::string dds = slurp(t / "a.dds");
    // The first block, after the DDS header (128 bytes, and 20 more for a DX10 extension).
    const size_t header = 128 + (dds.size() > 88 && dds.compare(84, 4, "DX10") == 0 ? 20 : 0);
    REQUIRE(dds.size() >= header + 8);
    CHECK(uint8_t(dds[header]) == 0x40);
}

TEST_CASE("isolation: without Landlock a third-party plugin is refused by name unless --allow-unconfined-load",
          "[isolation]") {
    PryingPath path;
    keep_secret();
    TempDir t;
    t.write("pipeline.yaml", kPryingPipeline);
    t.write("src/a.prying", prying_file(0x40));
    const std::string without = std::string(AF_WITHOUT_LANDLOCK) + " " + AF_EXE;
    Run plugins = run_shell("cd '" + t.path().string() + "' && " + without + " plugins");
    INFO(plugins.out);
    CHECK(plugins.code == 1);
    CHECK_THAT(plugins.out, Catch::Contains(std::string("FAILED ") + AF_PRYING_PLUGIN_DIR + "/prying.so") &&
                                Catch::Contains("this kernel has no Landlock (ENOSYS)") &&
                                Catch::Contains("--allow-unconfined-load"));
    Run refused = run_shell("cd '" + t.path().string() + "' && " + without + " build -j1");
    INFO(refused.out);
    CHECK(refused.code != 0);
    CHECK(!fs::exists(t / "out/a.png"));
    // Allowed: namespaces, NO_NEW_PRIVS and both seccomp filters still hold, so the constructor reads what the user
    // can read (what the option says) but can neither write its marker nor open a socket.
    Run unconfined = run_shell("cd '" + t.path().string() + "' && " + without + " --allow-unconfined-load build -j1");
    INFO(unconfined.out);
    CHECK(unconfined.code == 0);
    CHECK(fs::exists(t / "out/a.png"));
    CHECK_THAT(unconfined.out, Catch::Contains("constructor:secret-read") &&
                                   Catch::Contains("constructor:marker-refused(EACCES)") &&
                                   Catch::Contains("constructor:socket-refused"));
    Run listed = run_shell("cd '" + t.path().string() + "' && " + without + " --allow-unconfined-load plugins");
    INFO(listed.out);
    CHECK_THAT(listed.out, Catch::Contains("loaded only in sealed workers (no Landlock,"));
}
