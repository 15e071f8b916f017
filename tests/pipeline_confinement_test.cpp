// A pipeline file is code (a mod's pipeline.yaml is whatever its author wrote), so it is confined to its
// project, the folder that holds it: an input, an include, a file a step parameter names or an output_root
// that resolves outside is exit 2 at load, naming the file, the line, the path and --allow-path, and nothing
// is read or written; `--allow-path DIR` on the command line lets it read from and write under DIR.
#include "cli_run.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using af::test::Run;
using af::test::TempDir;

namespace {

// t/proj holds the pipeline; t/secret is a folder beside it, outside the project.
void confined_project(const TempDir& t, const std::string& yaml) {
    t.write("proj/pipeline.yaml", yaml);
    t.write("proj/src/a.txt", "mine");
    t.write("secret/token.txt", "hunter2");
}

void check_confinement_refusal(const Run& r, const std::vector<std::string>& parts) {
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK_THAT(r.out, Catch::Contains("outside the project"));
    CHECK_THAT(r.out, Catch::Contains("--allow-path"));
    for (const auto& p : parts) CHECK_THAT(r.out, Catch::Contains(p));
}

// Every file under `dir`, for "nothing was written" checks.
size_t regular_files_in(const fs::path& dir) {
    size_t n = 0;
    if (!fs::exists(dir)) return 0;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file()) ++n;
    return n;
}

} // namespace

TEST_CASE("an input glob through ../ is refused unless --allow-path names its folder", "[confine][e2e]") {
    TempDir t;
    confined_project(t, "assetforge: 1\njobs:\n  j:\n    inputs: \"../secret/*.txt\"\n    steps: [copy]\n"
                        "    output: \"out/{stem}.txt\"\n");
    const fs::path proj = t / "proj";
    for (const char* cmd : {"build", "status", "clean"}) {
        INFO(cmd);
        check_confinement_refusal(af::test::run_cli(cmd, proj), {"pipeline.yaml:4:", (t / "secret").string()});
    }
    CHECK_FALSE(fs::exists(proj / "out"));
    CHECK(regular_files_in(t / "secret") == 1);
    Run ok = af::test::run_cli("build --allow-path ../secret", proj);
    INFO(ok.out);
    CHECK(ok.code == 0);
    CHECK(af::test::slurp(proj / "out/token.txt") == "hunter2");
    CHECK(af::test::run_cli("status --allow-path " + (t / "secret").string(), proj).code == 0);
}

TEST_CASE("an absolute input path outside the project is refused unless allowed", "[confine][e2e]") {
    TempDir t;
    confined_project(t, "assetforge: 1\njobs:\n  j:\n    inputs: [ \"src/*.txt\", \"" +
                            (t / "secret/token.txt").string() +
                            "\" ]\n    steps: [copy]\n    output: \"out/{stem}.txt\"\n");
    const fs::path proj = t / "proj";
    check_confinement_refusal(af::test::run_cli("build", proj),
                              {"pipeline.yaml:4:", (t / "secret/token.txt").string()});
    CHECK_FALSE(fs::exists(proj / "out"));
    Run ok = af::test::run_cli("build --allow-path " + (t / "secret").string(), proj);
    INFO(ok.out);
    CHECK(ok.code == 0);
    CHECK(af::test::slurp(proj / "out/token.txt") == "hunter2");
}

TEST_CASE("output_root outside the project is refused unless allowed, and nothing is written there", "[confine][e2e]") {
    TempDir t;
    confined_project(t, "assetforge: 1\noutput_root: ../elsewhere\njobs:\n  j:\n    inputs: \"src/*.txt\"\n"
                        "    steps: [copy]\n    output: \"../elsewhere/{stem}.txt\"\n");
    const fs::path proj = t / "proj";
    for (const char* cmd : {"build", "status", "clean"}) {
        INFO(cmd);
        check_confinement_refusal(af::test::run_cli(cmd, proj), {"pipeline.yaml:2:", (t / "elsewhere").string()});
    }
    CHECK_FALSE(fs::exists(t / "elsewhere"));
    // An allowance of another folder does not cover it.
    check_confinement_refusal(af::test::run_cli("build --allow-path ../secret", proj), {(t / "elsewhere").string()});
    CHECK_FALSE(fs::exists(t / "elsewhere"));
    Run ok = af::test::run_cli("build --allow-path ../elsewhere", proj);
    INFO(ok.out);
    CHECK(ok.code == 0);
    CHECK(af::test::slurp(t / "elsewhere/a.txt") == "mine");
}

TEST_CASE("an include file outside the project is refused unless allowed", "[confine][e2e]") {
    TempDir t;
    confined_project(t, "assetforge: 1\ninclude: ../shared/presets.yaml\njobs:\n  j:\n    inputs: \"src/*.txt\"\n"
                        "    steps: [same]\n    output: \"out/{stem}.txt\"\n");
    t.write("shared/presets.yaml", "presets:\n  same: [copy]\n");
    const fs::path proj = t / "proj";
    check_confinement_refusal(af::test::run_cli("build", proj),
                              {"pipeline.yaml:2:", (t / "shared/presets.yaml").string()});
    CHECK_FALSE(fs::exists(proj / "out"));
    Run ok = af::test::run_cli("build --allow-path ../shared", proj);
    INFO(ok.out);
    CHECK(ok.code == 0);
}

TEST_CASE("a folder a step parameter names outside the project is refused unless allowed", "[confine][e2e]") {
    TempDir t;
    confined_project(t,
                     "assetforge: 1\njobs:\n  j:\n    inputs: \"src/*.txt\"\n"
                     "    gather: { zip: { only: changed, original: \"../secret\" } }\n    output: \"out/all.zip\"\n");
    const fs::path proj = t / "proj";
    check_confinement_refusal(af::test::run_cli("build", proj), {"pipeline.yaml:5:", (t / "secret").string()});
    CHECK_FALSE(fs::exists(proj / "out"));
    Run ok = af::test::run_cli("build --allow-path ../secret", proj);
    INFO(ok.out);
    CHECK(ok.code == 0);
    CHECK(fs::exists(proj / "out/all.zip"));
}

TEST_CASE("a link in the project to a folder outside counts as outside, a folder given with -D is allowed",
          "[confine][e2e]") {
    TempDir t;
    confined_project(t,
                     "assetforge: 1\nvars:\n  src: src\njobs:\n  j:\n    inputs: \"${src}/*.txt\"\n    steps: [copy]\n"
                     "    output: \"out/{stem}.txt\"\n");
    const fs::path proj = t / "proj";
    fs::create_directory_symlink("../secret", proj / "linked");
    t.write("proj/escape.yaml", "assetforge: 1\njobs:\n  j:\n    inputs: \"linked/*.txt\"\n    follow_links: true\n"
                                "    steps: [copy]\n    output: \"out/{stem}.txt\"\n");
    // Even with follow_links: that key is in the pipeline file, not the user's word.
    check_confinement_refusal(af::test::run_cli("build escape.yaml", proj),
                              {"escape.yaml:4:", (t / "secret").string()});
    CHECK_FALSE(fs::exists(proj / "out"));
    // The user names the folder: by the link or by its real path.
    for (const std::string& src : {std::string("linked"), (t / "secret").string()}) {
        Run ok = af::test::run_cli("build -D src=" + src, proj);
        INFO(src << "\n" << ok.out);
        CHECK(ok.code == 0);
        CHECK(af::test::slurp(proj / "out/token.txt") == "hunter2");
    }
    // A -D folder does not stretch to what the pipeline adds to it.
    t.write("proj/climb.yaml", "assetforge: 1\nvars:\n  src: src\njobs:\n  j:\n    inputs: \"${src}/../../*.txt\"\n"
                               "    allow_empty: true\n    steps: [copy]\n    output: \"out/{stem}.txt\"\n");
    check_confinement_refusal(af::test::run_cli("build climb.yaml -D src=" + (t / "secret").string(), proj),
                              {"climb.yaml:6:"});
}

TEST_CASE("the pipeline's own folder needs no allowance, nor a sibling folder named alike", "[confine][e2e]") {
    TempDir t;
    confined_project(t, "assetforge: 1\noutput_root: build\njobs:\n  j:\n    inputs: \"./src/../src/*.txt\"\n"
                        "    steps: [copy]\n    output: \"build/{stem}.txt\"\n");
    const fs::path proj = t / "proj";
    Run ok = af::test::run_cli("build", proj);
    INFO(ok.out);
    CHECK(ok.code == 0);
    // "proj2" starts with "proj" but is not inside it.
    t.write("proj2/x.txt", "x");
    t.write("proj/sibling.yaml", "assetforge: 1\njobs:\n  j:\n    inputs: \"../proj2/*.txt\"\n    steps: [copy]\n"
                                 "    output: \"out/{stem}.txt\"\n");
    check_confinement_refusal(af::test::run_cli("status sibling.yaml", proj), {(t / "proj2").string()});
}

TEST_CASE("build, status, clean and watch describe --allow-path", "[confine][e2e]") {
    for (const char* cmd : {"build", "status", "clean", "watch"}) {
        Run r = af::test::run_cli(std::string(cmd) + " --help");
        INFO(cmd << "\n" << r.out);
        CHECK(r.code == 0);
        CHECK_THAT(r.out, Catch::Contains("--allow-path"));
    }
}
