// `assetforge status`/`build` on pipelines with mistakes, with the real
// plugins: every mistake is exit 2 at load, naming file:line:column, the valid
// names and the closest one; pipeline files that are devices or huge are
// refused; a slow load ends at once on SIGINT or SIGTERM.
#include "cli_run.hpp"
#include "support/project.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <random>
#include <spawn.h>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace fs = std::filesystem;
using af::test::Run;

namespace {

using af::test::TempDir;

// `assetforge status` on a pipeline.yaml holding `yaml`.
Run status_of(const std::string& yaml) {
    TempDir t;
    t.write("pipeline.yaml", yaml);
    t.write("src/a.png", "not read by status"); // an input pattern that matches nothing would be an error of its own
    return af::test::run_cli("status", t.path());
}

// One job; `steps` starts at line 5, column 12, `output` is line 6 (value at column 13).
std::string job(const std::string& steps, const std::string& output = "out/{stem}.dds") {
    return "assetforge: 1\njobs:\n  j:\n    inputs: \"src/*.png\"\n    steps: " + steps + "\n    output: \"" + output +
           "\"\n";
}

void check_load_error(const Run& r, const std::vector<std::string>& parts) {
    INFO(r.out);
    CHECK(r.code == 2);
    for (const auto& p : parts) CHECK_THAT(r.out, Catch::Contains(p));
}

} // namespace

TEST_CASE("a misspelt parameter of read, encode or write is exit 2 at load, not a silent default",
          "[config][params][e2e]") {
    check_load_error(status_of(job("[ { encode: { fromat: bc7 } } ]")),
                     {"pipeline.yaml:5:26: 'fromat' is not a valid parameter of step 'encode'; valid: format, "
                      "quality, like, grey, metrics",
                      "level", "(did you mean 'format'?)"});
    check_load_error(
        status_of(job("[ { read: { zzz: 1 } } ]")),
        {"pipeline.yaml:5:24: 'zzz' is not a valid parameter of step 'read'; valid: container", "permissive"});
    check_load_error(status_of(job("[ { encode: { zzz: 1 } } ]")),
                     {"pipeline.yaml:5:26: 'zzz' is not a valid parameter of step 'encode'"});
    check_load_error(status_of(job("[ { write: { zzz: 1 } } ]")),
                     {"pipeline.yaml:5:25: 'zzz' is not a valid parameter of step 'write'; valid: container", "dx10"});
    // The options the loaded containers and codecs declare are valid.
    Run ok =
        status_of(job("[ { read: { permissive: yes } }, { encode: { format: bc7, level: 4, weights: perceptual } }, "
                      "{ write: { dx10: always } } ]"));
    INFO(ok.out);
    CHECK(ok.code == 0);
}

TEST_CASE("bad parameter values of built-in steps and plugin stages are exit 2 at load", "[config][params][e2e]") {
    check_load_error(status_of(job("[ { xtf.write: { format: DXT7 } } ]", "out/{stem}.xtf")),
                     {"pipeline.yaml:5:37: 'DXT7' is not a valid value for 'format' of step 'xtf.write'", "DXT5",
                      "(did you mean 'DXT1'?)"});
    check_load_error(status_of(job("[ { mips: { count: \"lots\" } } ]")),
                     {"pipeline.yaml:5:31: 'lots' is not a valid value for 'count' of step 'mips': expected an "
                      "integer in [0, 32]"});
    check_load_error(
        status_of(job("[ { encode: { weights: perceptul } } ]")),
        {"'perceptul' is not a valid value for 'weights' of step 'encode'", "(did you mean 'perceptual'?)"});
    check_load_error(
        status_of(job("[ { pages.extract: { wat: payload } } ]", "out/{level}.bin")),
        {"pipeline.yaml:5:33: 'wat' is not a valid parameter of step 'pages.extract'", "(did you mean 'what'?)"});
}

TEST_CASE("an unknown output placeholder is exit 2 at load", "[config][template][e2e]") {
    check_load_error(status_of(job("[ { encode: { format: bc1 } } ]", "out/{steem}.dds")),
                     {"pipeline.yaml:6:13: 'steem' is not a valid output placeholder", "(did you mean 'stem'?)"});
    // Plugin stages declare the metadata they set.
    check_load_error(status_of(job("[ pages.extract ]", "out/{input_stem}/{levl}_{x}_{y}.bin")),
                     {"'levl' is not a valid output placeholder", "compression_name", "(did you mean 'level'?)"});
}

TEST_CASE("${env:NAME} is exit 2 unless --allow-env or ASSETFORGE_ALLOW_ENV names it", "[config][env][e2e]") {
    TempDir t;
    t.write("src/a.png", "not read by status");
    t.write("pipeline.yaml", "assetforge: 1\njobs:\n  j:\n    inputs: \"src/*.png\"\n    output: "
                             "\"out/${env:AF_TEST_CI_TOKEN:-x}/{stem}.png\"\n");
    const std::string cd = "cd '" + t.path().string() + "' && AF_TEST_CI_TOKEN=hunter2 ";
    Run refused = af::test::run_shell(cd + AF_EXE + " status");
    check_load_error(
        refused, {"pipeline.yaml:5:13:", "'AF_TEST_CI_TOKEN', which is not allowed", "--allow-env AF_TEST_CI_TOKEN"});
    CHECK(refused.out.find("hunter2") == std::string::npos);
    for (const std::string& how : {std::string(AF_EXE) + " status --allow-env AF_TEST_CI_TOKEN",
                                   "ASSETFORGE_ALLOW_ENV=OTHER,AF_TEST_CI_TOKEN " + std::string(AF_EXE) + " status"}) {
        Run ok = af::test::run_shell(cd + how);
        INFO(how << "\n" << ok.out);
        CHECK(ok.code == 0);
    }
}

TEST_CASE("a key given twice is exit 2 at load", "[config][duplicate][e2e]") {
    check_load_error(status_of("assetforge: 1\njobs:\n  j:\n    inputs: \"*.png\"\n    output: \"a/{stem}.png\"\n"
                               "    output: \"b/{stem}.png\"\n"),
                     {"pipeline.yaml:6:5: duplicate key 'output' (first at pipeline.yaml:5:5)"});
}

TEST_CASE("the bundled configs and the quickstart example still load", "[config][e2e]") {
    TempDir t;
    const fs::path src = AF_SOURCE_DIR;
    // Inputs for every pattern (one that matches nothing is an error of its own).
    for (const char* f : {"src/a.dds", "src/a.png", "src/b_n.png", "mod/readme.txt"}) t.write(f, "x");
    // Each with the variables it has: a -D the pipeline does not use is an error.
    for (const auto& [c, var] : {std::pair{"dds-tree-to-png.yaml", "src"}, std::pair{"png-to-dds.yaml", "src"},
                                 std::pair{"package-mod-zip.yaml", "mod"}}) {
        INFO(c);
        const std::string folder = std::string(var) == "mod" ? "mod" : "src";
        Run r = af::test::run_cli("status " + (src / "configs" / c).string() + " -D " + var + "=" +
                                  (t / folder).string() + " -D out=" + (t / "out").string());
        INFO(r.out);
        CHECK(r.code == 0);
    }
    fs::copy(src / "examples/quickstart", t / "quickstart", fs::copy_options::recursive);
    Run r = af::test::run_cli("status", t / "quickstart");
    INFO(r.out);
    CHECK(r.code == 0);
}

// Issue 43, item 10: paths typed on the command line are the user's, relative to the folder the user is in (as
// every command-line tool reads them); paths written in the pipeline file stay relative to the pipeline. A shipped
// config run in place from the project folder once put its state and outputs inside configs/.
TEST_CASE("relative -D paths resolve against the current folder, the pipeline's own values against the pipeline's",
          "[config][defines][e2e]") {
    TempDir t;
    const fs::path configs = fs::path(AF_SOURCE_DIR) / "configs";
    for (const char* f : {"png-to-dds.yaml", "png-to-game-dds.yaml", "presets.yaml"})
        t.copy(configs / f, std::string("configs/") + f);
    t.copy(af::test::kRockImage, "edit/walls/rock.png");
    REQUIRE(
        af::test::run_cli("convert '" + af::test::kRockImage.string() + "' game/walls/rock.dds --format bc1", t.path())
            .code == 0);

    Run r = af::test::run_cli("build configs/png-to-dds.yaml -D src=edit -D out=dds", t.path());
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK(fs::exists(t / "dds/walls/rock.dds"));
    CHECK(fs::exists(t / "dds/.assetforge/state.db"));
    CHECK_FALSE(fs::exists(t / "configs/dds"));
    // Up to date from the same folder; from inside configs/ the same words name other folders.
    r = af::test::run_cli("build configs/png-to-dds.yaml -D src=edit -D out=dds", t.path());
    CHECK_THAT(r.out, Catch::Contains("0 built, 1 up to date"));

    // A file a step reads (`like`) and a folder a gather reads (zip's `original`), from -D: the user's folder too;
    // a -D value inside a name (`${name}.zip`) is a name, not a path.
    r = af::test::run_cli("build configs/png-to-game-dds.yaml -D src=edit -D original=game -D out=mod -D name=mine",
                          t.path());
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK(fs::exists(t / "mod/walls/rock.dds"));
    CHECK(fs::exists(t / "mod/mine.zip"));
    CHECK_FALSE(fs::exists(t / "configs/mod"));

    // Run from inside the pipeline's folder, relative values name folders there, as before.
    r = af::test::run_cli("build png-to-dds.yaml -D src=../edit -D out=../dds2", t / "configs");
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK(fs::exists(t / "dds2/walls/rock.dds"));

    // An exclude that starts with the -D folder leaves out the same files as the pattern it trims.
    t.copy(af::test::kRockImage, "edit/wip/draft.png");
    t.write("sub/pipeline.yaml", "assetforge: 1\nvars: { src: x, out: y }\noutput_root: \"${out}\"\njobs:\n  copy:\n"
                                 "    inputs: { include: \"${src}/**/*.png\", exclude: \"${src}/wip/**\" }\n"
                                 "    steps: [ copy ]\n    output: \"${out}/{dir}/{stem}.png\"\n");
    r = af::test::run_cli("build sub/pipeline.yaml -D src=edit -D out=copied", t.path());
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK(fs::exists(t / "copied/walls/rock.png"));
    CHECK_FALSE(fs::exists(t / "copied/wip/draft.png"));

    // The pipeline's own defaults (vars:) stay relative to the pipeline file, wherever it is run from.
    t.copy(af::test::kRockImage, "configs/edited/walls/rock.png");
    r = af::test::run_cli("build configs/png-to-dds.yaml", t.path());
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK(fs::exists(t / "configs/dds/walls/rock.dds"));
}

TEST_CASE("every in-tree plugin declares its parameters, options and metadata", "[config][params][e2e]") {
    Run r = af::test::run_cli("plugins --json");
    REQUIRE(r.code == 0);
    auto j = nlohmann::json::parse(r.out);
    size_t stages = 0;
    for (const auto& p : j["plugins"]) {
        INFO(p["name"]);
        for (const auto& c : p.value("containers", nlohmann::json::array())) {
            INFO(c["name"]);
            CHECK(c["read_options"].is_array());
            CHECK(c["write_options"].is_array());
            CHECK(c["meta_keys"].is_array());
        }
        for (const auto& c : p.value("codecs", nlohmann::json::array())) {
            INFO(c["name"]);
            CHECK(c["encode_options"].is_array());
            CHECK(c["decode_options"].is_array());
        }
        for (const auto& s : p.value("stages", nlohmann::json::array())) {
            INFO(s["name"]);
            ++stages;
            CHECK(s["params"].is_array());
            CHECK(s["meta_keys"].is_array());
            // A stage parameter that names what the stage reads is typed so, for the up-to-date check.
            for (const auto& prm : s["params"])
                if (s["name"] == "pages.repack" && prm["name"] == "replacements") CHECK(prm["type"] == "directory");
        }
    }
    CHECK(stages >= 6); // xtf.write, swizzle, deswizzle, pages.extract, pages.build, pages.repack
}

TEST_CASE("a stage from a plugin built against the old API accepts any parameter", "[config][params][e2e]") {
    setenv("ASSETFORGE_PLUGIN_PATH", AF_TEST_PLUGIN_DIR, 1);
    TempDir t;
    t.write("src/a.bin", "hello");
    // It declares neither parameter types nor metadata: neither is checked.
    t.write("pipeline.yaml", "assetforge: 1\njobs:\n  j:\n    inputs: \"src/*.bin\"\n"
                             "    steps: [ { old.passthrough: { anything: 1, goes: [a, b] } } ]\n"
                             "    output: \"out/{stem}.{ext}\"\n"
                             "  k:\n    inputs: \"src/*.bin\"\n    steps: [ old.passthrough ]\n"
                             "    output: \"out2/{whatever}\"\n");
    Run r = af::test::run_cli("status", t.path());
    CHECK(r.code == 0);
    INFO(r.out);
    // The plugin is third-party: it loads sealed, and its stage runs in a worker.
    r = af::test::run_cli("build --job j", t.path());
    CHECK(r.code == 0);
    CHECK(af::test::slurp(t / "out/a.bin") == "hello");
    unsetenv("ASSETFORGE_PLUGIN_PATH");
}

TEST_CASE("pipeline files and includes must be regular files of at most 16 MiB", "[config][limits][e2e]") {
    TempDir t;
    t.write("pipeline.yaml",
            "assetforge: 1\ninclude: [ /dev/zero ]\njobs:\n  j: { inputs: x, output: \"o/{stem}\" }\n");
    auto start = std::chrono::steady_clock::now();
    // Allowed, so the device reaches the regular-file check (else it is refused as outside the project).
    Run r = af::test::run_cli("status --allow-path /dev", t.path());
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
    check_load_error(r, {"pipeline.yaml:2:12: /dev/zero: not a regular file"});
    check_load_error(af::test::run_cli("status", t.path()),
                     {"pipeline.yaml:2:12: include '/dev/zero' reads /dev/zero, outside the project"});

    t.write("big.yaml", "vars: { a: 1 }\n");
    fs::resize_file(t / "big.yaml", (16u << 20) + 1);
    t.write("pipeline.yaml", "assetforge: 1\ninclude: big.yaml\njobs:\n  j: { inputs: x, output: \"o/{stem}\" }\n");
    check_load_error(af::test::run_cli("status", t.path()), {"pipeline.yaml:2:10: ", "big.yaml: larger than 16 MiB"});
    check_load_error(af::test::run_cli("build big.yaml", t.path()), {"big.yaml: larger than 16 MiB"});
}

namespace {

// Spawns `assetforge status` on a ≈10 MB pipeline (slow to parse), sends `sig`
// once it is loading, and returns how long the process took to end after it.
std::chrono::milliseconds time_to_end_after(int sig) {
    TempDir t;
    {
        std::ofstream out(t / "pipeline.yaml");
        out << "assetforge: 1\nvars:\n";
        for (int i = 0; i < 330000; ++i) out << "  v" << i << ": \"some value " << i << "\"\n";
        out << "jobs:\n  j: { inputs: x, output: \"o/{stem}\" }\n";
    }
    REQUIRE(fs::file_size(t / "pipeline.yaml") > 9'000'000);
    std::string exe = AF_EXE, file = (t / "pipeline.yaml").string();
    char* argv[] = {exe.data(), const_cast<char*>("status"), file.data(), nullptr};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    REQUIRE(posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv, environ) == 0);
    posix_spawn_file_actions_destroy(&fa);
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
    int status = 0;
    REQUIRE(waitpid(pid, &status, WNOHANG) == 0); // still loading
    REQUIRE(kill(pid, sig) == 0);
    const auto sent = std::chrono::steady_clock::now();
    pid_t done = 0;
    while ((done = waitpid(pid, &status, WNOHANG)) == 0 &&
           std::chrono::steady_clock::now() - sent < std::chrono::seconds(10))
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - sent);
    if (done == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    return took;
}

} // namespace

TEST_CASE("SIGINT and SIGTERM end a slow pipeline load within a second", "[config][limits][e2e][cancel]") {
    for (int sig : {SIGINT, SIGTERM}) {
        INFO("signal " << sig);
        CHECK(time_to_end_after(sig) < std::chrono::milliseconds(1000));
    }
}
