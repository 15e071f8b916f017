// The build's promises at their edges (issue 27): writes that a planted link
// would redirect, unreadable input folders, outputs that became sources, the
// files named on the command line, and a plan that stays fast and
// interruptible with thousands of jobs. Each test failed on the binary before
// its fix.
#include "cli_run.hpp"
#include "support/project.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <sched.h>
#include <set>
#include <spawn.h>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace {

using namespace af::test;

const char* kTexturePipeline = "assetforge: 1\njobs:\n  dds:\n    inputs: \"src/*.png\"\n"
                               "    steps: [ { encode: { format: bc1, quality: fast } } ]\n"
                               "    output: \"out/{stem}.dds\"\n";

// As root, permissions do not stop a read: the build then runs as the
// unprivileged user `nobody` (setpriv), on a project it owns, so that a
// folder with mode 000 is really unreadable to it.
constexpr uid_t kNobody = 65534;
bool as_root() { return ::geteuid() == 0; }

Run run_unprivileged(const fs::path& dir, const std::string& args) {
    if (!as_root()) return run_in(dir, args);
    return af::test::run_shell("cd '" + dir.string() + "' && setpriv --reuid=" + std::to_string(kNobody) +
                               " --regid=" + std::to_string(kNobody) + " --clear-groups " + AF_EXE + " " + args);
}

void give_to_nobody(const fs::path& dir) {
    if (!as_root()) return;
    REQUIRE(::chown(dir.c_str(), kNobody, kNobody) == 0);
    for (const auto& e : fs::recursive_directory_iterator(dir))
        REQUIRE(::lchown(e.path().c_str(), kNobody, kNobody) == 0);
}

struct TimedRun {
    int code;
    std::string out;
    double cpu_seconds; // user + system time of the child
};

// `assetforge ARGS` in `dir`, with the CPU time it used (wait4's rusage).
TimedRun run_timed(const fs::path& dir, std::vector<std::string> args) {
    const fs::path log = dir / "timed.log";
    args.insert(args.begin(), AF_EXE);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        // One CPU: on a many-core machine TBB's idle workers spin, and their
        // spinning is CPU time the plan did not use (3.3 s on a CI runner
        // against 0.3 s here for the same 2,000 jobs).
        cpu_set_t one;
        CPU_ZERO(&one);
        cpu_set_t allowed;
        if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
            for (int c = 0; c < CPU_SETSIZE; ++c)
                if (CPU_ISSET(c, &allowed)) {
                    CPU_SET(c, &one);
                    break;
                }
        if (CPU_COUNT(&one) == 1) sched_setaffinity(0, sizeof one, &one);
        if (chdir(dir.c_str()) != 0 || !freopen(log.c_str(), "w", stdout) || dup2(1, 2) < 0) _exit(127);
        execv(argv[0], argv.data());
        _exit(127);
    }
    int status = 0;
    rusage ru{};
    REQUIRE(wait4(pid, &status, 0, &ru) == pid);
    const double cpu =
        double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(log), cpu};
}

} // namespace

// ---------------------------------------------------------------------------
// 1. Every write goes through one safe writer; a sweep removes only what it wrote.

TEST_CASE("edges 1a: a link planted at a report picture's temporary name is never written through",
          "[promises][edges]") {
    TempDir t, outside("af-outside");
    t.copy(kBcData + "a_palm_128.png", "src/a.png");
    t.write("pipeline.yaml", kTexturePipeline);
    Run first = run_in(t.path(), "build --report build.html");
    INFO(first.out);
    REQUIRE(first.code == 0);
    const auto pics = pictures_in(t / "build.html.d");
    REQUIRE(!pics.empty());
    outside.write("victim.txt", "precious");
    // The picture names are the same on every machine, so a repository can
    // ship links at the temporaries' old names (".af-tmp-" + picture name).
    for (const auto& p : pics) fs::create_symlink(outside / "victim.txt", t / ("build.html.d/.af-tmp-" + p));
    fs::remove_all(t / "out");
    fs::remove_all(t / ".assetforge");
    Run again = run_in(t.path(), "build --report build.html");
    INFO(again.out);
    CHECK(again.code == 0);
    CHECK(slurp(outside / "victim.txt") == "precious");
    CHECK(pictures_in(t / "build.html.d") == pics);
}

TEST_CASE("edges 1b: a report folder that is a link out of the project is neither written into nor swept",
          "[promises][edges]") {
    TempDir t, outside("af-outside");
    t.copy(kBcData + "a_palm_128.png", "src/a.png");
    t.write("pipeline.yaml", kTexturePipeline);
    outside.write("0123456789abcdef.src.png", "theirs");
    fs::create_symlink(outside.path(), t / "build.html.d");
    Run r = run_in(t.path(), "build --report build.html");
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("symbolic link"));
    CHECK(fs::exists(t / "build.html"));
    CHECK(slurp(outside / "0123456789abcdef.src.png") == "theirs");
    CHECK(std::distance(fs::directory_iterator(outside.path()), fs::directory_iterator()) == 1);
}

TEST_CASE("edges 1c: the report's sweep removes earlier pictures it wrote, never a file planted among them",
          "[promises][edges]") {
    TempDir t;
    t.copy(kBcData + "a_palm_128.png", "src/a.png");
    t.copy(kBcData + "d_rock_128.png", "src/b.png");
    t.write("pipeline.yaml", kTexturePipeline);
    Run first = run_in(t.path(), "build --report build.html");
    INFO(first.out);
    REQUIRE(first.code == 0);
    const auto both = pictures_in(t / "build.html.d");
    REQUIRE(both.size() == 6 + 5); // a's (with alpha: its own picture) and b's
    t.write("build.html.d/fedcba9876543210.res.png", "a user's file with a picture's name");
    fs::remove(t / "src/b.png");
    t.copy(kBcData + "g_caustics_128.png", "src/a.png"); // a runs again; b is gone
    Run second = run_in(t.path(), "build --report build.html");
    INFO(second.out);
    REQUIRE(second.code == 0);
    const auto now = pictures_in(t / "build.html.d");
    CHECK(now.size() == 5 + 1); // a's five (opaque now: no alpha picture), and the planted file
    CHECK(slurp(t / "build.html.d/fedcba9876543210.res.png") == "a user's file with a picture's name");
}

// ---------------------------------------------------------------------------
// 2. An unreadable input is an error of that input; nothing derived from it goes.

TEST_CASE("edges 2: an unreadable input folder fails the build and removes none of its outputs", "[promises][edges]") {
    if (as_root() && af::test::run_shell("command -v setpriv").code != 0) {
        WARN("running as root without setpriv: a mode-000 folder stays readable, so this cannot be tested");
        return;
    }
    TempDir t;
    t.write("t/a/x.txt", "ex\n");
    t.write("t/b/y.txt", "why\n");
    t.write("pipeline.yaml", R"(assetforge: 1
jobs:
  files:
    inputs: "t/**/*.txt"
    steps: [ copy ]
    output: "out/{dir}/{name}"
  package:
    inputs: "t/**/*.txt"
    gather: { zip: {} }
    output: "dist/mod.zip"
)");
    give_to_nobody(t.path());
    Run good = run_unprivileged(t.path(), "build");
    INFO(good.out);
    REQUIRE(good.code == 0);
    REQUIRE(fs::exists(t / "out/b/y.txt"));
    const std::string zip = slurp(t / "dist/mod.zip");
    fs::permissions(t / "t/b", fs::perms::none);
    Run r = run_unprivileged(t.path(), "build");
    fs::permissions(t / "t/b", fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                   fs::perms::others_read | fs::perms::others_exec);
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("t/b") && Catch::Contains("cannot be read"));
    CHECK(fs::exists(t / "out/b/y.txt"));
    CHECK(fs::exists(t / "out/a/x.txt"));
    CHECK(slurp(t / "dist/mod.zip") == zip);
    Run back = run_unprivileged(t.path(), "build");
    INFO(back.out);
    CHECK(back.code == 0);
    CHECK(fs::exists(t / "out/b/y.txt"));
}

TEST_CASE("edges 2b: a project folder the user cannot write is named as the reason, not a missing lock file",
          "[promises][edges]") {
    if (as_root() && af::test::run_shell("command -v setpriv").code != 0) {
        WARN("running as root without setpriv: a read-only folder stays writable, so this cannot be tested");
        return;
    }
    TempDir t;
    t.write("t/a.txt", "a\n");
    t.write("pipeline.yaml", "assetforge: 1\njobs:\n  files:\n    inputs: \"t/*.txt\"\n    steps: [ copy ]\n"
                             "    output: \"out/{name}\"\n");
    give_to_nobody(t.path());
    fs::permissions(t.path(), fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                                  fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
    Run r = run_unprivileged(t.path(), "build");
    fs::permissions(t.path(), fs::perms::owner_all, fs::perm_options::add);
    INFO(r.out);
    CHECK(r.code != 0);
    CHECK_THAT(r.out, Catch::Contains((t / ".assetforge").string()) && Catch::Contains("cannot create") &&
                          Catch::Contains("Permission denied"));
    CHECK_THAT(r.out, !Catch::Contains("No such file or directory"));
}

// ---------------------------------------------------------------------------
// 3. An output that a job now reads is never removed as stale.

TEST_CASE("edges 3: a removed job's output that another job now reads is kept, as a source", "[promises][edges]") {
    TempDir t;
    t.write("src/a.txt", "made by gen\n");
    t.write("pipeline.yaml", R"(assetforge: 1
jobs:
  gen:
    inputs: "src/*.txt"
    steps: [ copy ]
    output: "textures/{name}"
)");
    Run first = run_in(t.path(), "build");
    INFO(first.out);
    REQUIRE(first.code == 0);
    REQUIRE(fs::exists(t / "textures/a.txt"));
    t.write("pipeline.yaml", R"(assetforge: 1
jobs:
  pack:
    inputs: "textures/*.txt"
    gather: { zip: {} }
    output: "dist/mod.zip"
)");
    Run r = run_in(t.path(), "build");
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK(slurp(t / "textures/a.txt") == "made by gen\n");
    CHECK_THAT(r.out, Catch::Contains("textures/a.txt") && Catch::Contains("source"));
    CHECK_THAT(r.out, Catch::Contains("1 built"));
    CHECK(slurp(t / "dist/mod.zip").find("a.txt") != std::string::npos);
    Run again = run_in(t.path(), "build");
    INFO(again.out);
    CHECK(again.code == 0);
    CHECK_THAT(again.out, Catch::Contains("0 built, 1 up to date, 0 failed, 0 removed"));
    CHECK(fs::exists(t / "textures/a.txt"));
}

// ---------------------------------------------------------------------------
// 4, 5. Files named on the command line, the pipeline and the state are never replaced.

TEST_CASE("edges 4: --report, --trace and --state-dir get the rules of outputs", "[promises][edges]") {
    TempDir t;
    t.write("src/a.txt", "a source\n");
    const std::string yaml = "assetforge: 1\njobs:\n  files:\n    inputs: \"src/*.txt\"\n    steps: [ copy ]\n"
                             "    output: \"out/{name}\"\n";
    t.write("pipeline.yaml", yaml);
    for (const std::string args : {"--report pipeline.yaml", "--trace pipeline.yaml", "--trace src/a.txt",
                                   "--report src/new.txt", "--report out/a.txt", "--report .assetforge/state.db"}) {
        Run r = run_in(t.path(), "build " + args);
        INFO(args << "\n" << r.out);
        CHECK(r.code == 2);
        CHECK_THAT(r.out, Catch::Contains(args.substr(0, args.find(' '))));
        CHECK(slurp(t / "pipeline.yaml") == yaml);
        CHECK(slurp(t / "src/a.txt") == "a source\n");
        CHECK_FALSE(fs::exists(t / "src/new.txt"));
    }
    Run sd = run_in(t.path(), "build --state-dir src");
    INFO(sd.out);
    CHECK(sd.code == 2);
    CHECK_THAT(sd.out, Catch::Contains("state folder") && Catch::Contains("src/a.txt"));
    Run ok = run_in(t.path(), "build --report report.json --trace trace.json --state-dir state");
    INFO(ok.out);
    CHECK(ok.code == 0);
    CHECK(fs::exists(t / "report.json"));
    CHECK(fs::exists(t / "trace.json"));
}

TEST_CASE("edges 4b: a --state-dir holding inputs is refused before anything is created in it", "[promises][edges]") {
    TempDir t;
    t.write("src/a.txt", "a source\n");
    t.write("src/deep/b.txt", "another\n");
    t.write("pipeline.yaml", "assetforge: 1\njobs:\n  files:\n    inputs: \"src/**/*.txt\"\n    steps: [ copy ]\n"
                             "    output: \"out/{name}\"\n");
    auto listing = [&](const fs::path& d) {
        std::set<std::string> names;
        for (const auto& e : fs::recursive_directory_iterator(d)) names.insert(fs::relative(e.path(), d).string());
        return names;
    };
    for (const std::string dir : {"src", "src/deep"}) {
        const auto before = listing(t / "src");
        Run r = run_in(t.path(), "build --state-dir " + dir);
        INFO(dir << "\n" << r.out);
        CHECK(r.code == 2);
        CHECK_THAT(r.out, Catch::Contains("state folder") && Catch::Contains("src/"));
        CHECK(listing(t / "src") == before); // no lock, no state.db, no marker
        CHECK_FALSE(fs::exists(t / "out"));
    }
}

TEST_CASE("edges 5: the pipeline, its includes and the state are never outputs, whatever the flags",
          "[promises][edges]") {
    TempDir t;
    const std::string yaml = R"(assetforge: 1
include: [ more.yaml ]
jobs:
  files:
    inputs: "src/FILE"
    steps: [ copy ]
    output: "TEMPLATE"
)";
    const std::string more = "vars: { x: 1 }\n";
    t.write("more.yaml", more);
    t.write("src/pipeline.yaml", "not the pipeline\n");
    t.write("src/more.yaml", "not the include\n");
    t.write("src/state.db", "not the state\n");
    for (const auto& [file, tpl] : std::vector<std::pair<std::string, std::string>>{
             {"pipeline.yaml", "{name}"}, {"more.yaml", "{name}"}, {"state.db", ".assetforge/{name}"}}) {
        const std::string y = filled(filled(yaml, "FILE", file), "TEMPLATE", tpl);
        t.write("pipeline.yaml", y);
        for (const std::string flags : {"", " --overwrite-edited"}) {
            Run r = run_in(t.path(), "build" + flags);
            INFO(file << flags << "\n" << r.out);
            CHECK(r.code == 2);
            CHECK_THAT(r.out, Catch::Contains("never writes"));
            CHECK(slurp(t / "pipeline.yaml") == y);
            CHECK(slurp(t / "more.yaml") == more);
            CHECK_FALSE(r.out.find("damaged") != std::string::npos);
        }
    }
}

// ---------------------------------------------------------------------------
// 13. Planning is not quadratic in the number of jobs, and Ctrl-C/SIGTERM stop any phase.

TEST_CASE("edges 13: 2,000 jobs are planned within 3 s, and SIGTERM ends a build within 1 s", "[promises][edges]") {
    TempDir t;
    std::string yaml = "assetforge: 1\njobs:\n";
    for (int i = 0; i < 2000; ++i) {
        const std::string n = std::to_string(i);
        t.write("src/j" + n + "/a.txt", n + "\n");
        yaml += "  j" + n + ":\n    inputs: \"src/j" + n + "/*.txt\"\n    steps: [ copy ]\n    output: \"out/j" + n +
                "/{name}\"\n";
    }
    t.write("pipeline.yaml", yaml);
    // CPU time, not wall time: a machine busy with other builds stretches the
    // wall clock, while the quadratic plan this guards against cost 17 s of CPU.
    // The better of two runs: the first also pays for a cold page cache.
    auto st = run_timed(t.path(), {"status"});
    const auto again = run_timed(t.path(), {"status"});
    if (again.cpu_seconds < st.cpu_seconds) st = again;
    INFO(st.out.substr(0, 2000));
    CHECK(st.code == 0);
#if !defined(AF_ASAN) // instrumented, the same linear plan costs ~16 s: the bound is for real builds
    CHECK(st.cpu_seconds <= 3.0);
#endif
    // Killed at several points of a first build (loading, globbing, planning, running).
    for (int ms : {30, 150, 400, 900}) {
        pid_t pid = spawn_in(t.path(), "build -q", t / "build.log");
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        const auto k = std::chrono::steady_clock::now();
        ::kill(pid, SIGTERM);
        int status = 0;
        REQUIRE(::waitpid(pid, &status, 0) == pid);
        const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - k).count();
        INFO("SIGTERM after " << ms << " ms: exited " << took << " s later\n" << slurp(t / "build.log"));
        CHECK(took <= 1.0);
    }
}
