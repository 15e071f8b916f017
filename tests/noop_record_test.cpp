// A `build` with nothing to do answered from its no-op record: it answers
// only when nothing it depends on changed, and every change of the kinds a
// modder or an attacker makes sends the build down the ordinary road.
#include "cli_run.hpp"
#include "support/project.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <utime.h>

namespace fs = std::filesystem;
using namespace af::test;

namespace {

constexpr const char* kSaid = "up to date by the no-op record";

const char* kCopyPipeline = R"(assetforge: 1
jobs:
  copies:
    inputs: "src/**/*.png"
    steps: [ copy ]
    output: "out/{dir}/{name}"
)";

// `assetforge build ARGS` in the project, with the records in the project's own cache folder. `env`
// (NAME=value ...) is set by env(1), so even the variables a shell sets itself (PWD, SHLVL, _) are as given.
Run build(const TempDir& t, const std::string& args = "", const std::string& env = "") {
    return run_shell("cd '" + t.path().string() + "' && env XDG_CACHE_HOME='" + (t / "cache").string() +
                     "' ASSETFORGE_NOOP_RECORDS=say " + env + " " + AF_EXE + " build " + args);
}

size_t records(const TempDir& t) {
    std::error_code ec;
    size_t n = 0;
    for (auto it = fs::directory_iterator(t / "cache/assetforge/noop", ec); !ec && it != fs::directory_iterator();
         it.increment(ec))
        ++n;
    return n;
}

// Timestamps are taken from a coarse clock: files written just before a build are too new to vouch for.
void let_time_pass() { std::this_thread::sleep_for(std::chrono::milliseconds(30)); }

// A clean build, then one that writes the record (the first's outputs were too new), then one it answers.
void settle(const TempDir& t, const std::string& args = "", const std::string& env = "") {
    Run first = build(t, args, env);
    INFO(first.out);
    REQUIRE(first.code == 0);
    let_time_pass();
    Run second = build(t, args, env);
    INFO(second.out);
    REQUIRE(second.code == 0);
    REQUIRE_THAT(second.out, !Catch::Contains(kSaid));
    let_time_pass();
    Run third = build(t, args, env);
    INFO(third.out);
    REQUIRE(third.code == 0);
    REQUIRE_THAT(third.out, Catch::Contains(kSaid));
}

void make_project(const TempDir& t) {
    t.copy(kBcData + "g_caustics_128.png", "src/a.png");
    t.copy(kBcData + "d_rock_128.png", "src/sub/b.png");
    t.write("pipeline.yaml", kCopyPipeline);
}

} // namespace

TEST_CASE("no-op record: a build with nothing to do is answered from it, saying what the full no-op says", "[noop]") {
    TempDir t;
    make_project(t);
    Run first = build(t);
    REQUIRE(first.code == 0);
    CHECK(records(t) == 0); // its outputs are newer than its start
    let_time_pass();
    Run second = build(t);
    CHECK_THAT(second.out, Catch::Contains("0 built, 2 up to date, 0 failed, 0 removed"));
    CHECK(records(t) == 1);
    let_time_pass();
    Run third = build(t);
    INFO(third.out);
    CHECK(third.code == 0);
    CHECK_THAT(third.out, Catch::Contains(kSaid));
    CHECK_THAT(third.out, Catch::Contains("0 built, 2 up to date, 0 failed, 0 removed"));
    Run quiet = build(t, "-q");
    CHECK_THAT(quiet.out, !Catch::Contains(kSaid)); // another command line, another record
}

TEST_CASE("no-op record: every change it depends on sends the build the ordinary way", "[noop]") {
    TempDir t;
    make_project(t);
    settle(t);
    let_time_pass();
    SECTION("an input's new content, its size, inode and mtime as before") {
        struct stat before {};
        REQUIRE(::stat((t / "src/a.png").c_str(), &before) == 0);
        std::string bytes = slurp(t / "src/a.png");
        bytes[bytes.size() / 2] ^= 0x5a;
        {
            std::ofstream f(t / "src/a.png", std::ios::binary | std::ios::in | std::ios::out);
            f.seekp(std::streamoff(bytes.size() / 2));
            f.put(bytes[bytes.size() / 2]);
        }
        const struct timespec times[2] = {before.st_atim, before.st_mtim};
        REQUIRE(::utimensat(AT_FDCWD, (t / "src/a.png").c_str(), times, 0) == 0);
        // Its ctime moved: the record does not answer, and the stat cache sees the change too.
        Run r = build(t);
        INFO(r.out);
        CHECK_THAT(r.out, !Catch::Contains(kSaid));
        CHECK_THAT(r.out, Catch::Contains("1 built"));
    }
    SECTION("a new input in a folder below") {
        t.copy(kBcData + "d_rock_128.png", "src/sub/deeper/c.png");
        Run r = build(t);
        CHECK_THAT(r.out, !Catch::Contains(kSaid));
        CHECK(fs::exists(t / "out/sub/deeper/c.png"));
    }
    SECTION("an input deleted: its output goes") {
        fs::remove(t / "src/sub/b.png");
        Run r = build(t);
        CHECK_THAT(r.out, !Catch::Contains(kSaid));
        CHECK_THAT(r.out, Catch::Contains("1 removed"));
        CHECK(!fs::exists(t / "out/sub/b.png"));
    }
    SECTION("an output deleted") {
        fs::remove(t / "out/a.png");
        Run r = build(t);
        CHECK_THAT(r.out, !Catch::Contains(kSaid));
        CHECK(fs::exists(t / "out/a.png"));
    }
    SECTION("an output edited") {
        t.write("out/a.png", "edited by hand");
        Run r = build(t);
        CHECK_THAT(r.out, !Catch::Contains(kSaid));
        CHECK_THAT(r.out, Catch::Contains("edited"));
    }
    SECTION("the pipeline edited") {
        t.write("pipeline.yaml", std::string(kCopyPipeline) + "# a comment\n");
        Run r = build(t);
        CHECK_THAT(r.out, !Catch::Contains(kSaid));
    }
    SECTION("another -D, or the same command line from another folder") {
        Run r = build(t, "-D x=1");
        CHECK_THAT(r.out, !Catch::Contains(kSaid));
        Run other = run_shell("cd '" + (t / "src").string() + "' && XDG_CACHE_HOME='" + (t / "cache").string() +
                              "' ASSETFORGE_NOOP_RECORDS=say " + AF_EXE + " build -f ../pipeline.yaml");
        CHECK_THAT(other.out, !Catch::Contains(kSaid));
    }
    SECTION("a link among the inputs: no record at all") {
        fs::create_symlink(t / "src/a.png", t / "src/linked.png");
        build(t);
        let_time_pass();
        build(t);
        let_time_pass();
        Run r = build(t);
        CHECK_THAT(r.out, !Catch::Contains(kSaid));
        CHECK(records(t) == 0);
    }
    SECTION("a damaged record is ignored") {
        for (auto& e : fs::directory_iterator(t / "cache/assetforge/noop")) {
            std::string bytes = slurp(e.path());
            for (size_t cut : {size_t(0), size_t(7), size_t(20), bytes.size() / 2, bytes.size() - 1}) {
                t.write(fs::relative(e.path(), t.path()).string(), bytes.substr(0, cut));
                Run r = build(t);
                INFO(cut << ": " << r.out);
                CHECK(r.code == 0);
                CHECK_THAT(r.out, !Catch::Contains(kSaid));
                CHECK_THAT(r.out, Catch::Contains("0 built, 2 up to date"));
                t.write(fs::relative(e.path(), t.path()).string(), bytes); // the ordinary no-op wrote it anew
            }
        }
    }
}

// Another user who can write in the record's folder could plant a record (or swap one in) that says "up to
// date" for a build that is not: a record counts only in folders that are the user's alone.
TEST_CASE("no-op record: trusted only in the user's own folder, from the user's own file", "[noop]") {
    TempDir t;
    make_project(t);
    settle(t);
    const fs::path noop = t / "cache/assetforge/noop";
    std::vector<fs::path> files;
    for (auto& e : fs::directory_iterator(noop)) files.push_back(e.path());
    REQUIRE(files.size() == 1);
    const fs::path record = files[0];
    struct stat st {};
    REQUIRE(::stat(noop.c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0700);
    REQUIRE(::stat(record.c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0600);
    REQUIRE(::stat((t / "cache/assetforge").c_str(), &st) == 0);
    CHECK((st.st_mode & 022) == 0);
    let_time_pass();

    // Not trusted, saying why (once). A folder is not repaired either: the builds after go the ordinary way too.
    auto ignored = [&](const std::string& why, int builds) {
        for (int i = 0; i < builds; ++i) {
            Run r = build(t);
            INFO(r.out);
            CHECK(r.code == 0);
            CHECK_THAT(r.out, !Catch::Contains(kSaid));
            CHECK_THAT(r.out, Catch::Contains("0 built, 2 up to date, 0 failed"));
            CHECK_THAT(r.out, Catch::Contains(why));
            const std::string& o = r.out;
            CHECK(o.find(why) == o.rfind(why));
            let_time_pass();
        }
    };
    SECTION("the record folder writable by everyone") {
        fs::permissions(noop, fs::perms(0777));
        ignored("writable by group or others", 3);
    }
    SECTION("the record folder writable by its group") {
        fs::permissions(noop, fs::perms(0770));
        ignored("writable by group or others", 3);
    }
    SECTION("the folder on the way writable by everyone") {
        fs::permissions(t / "cache/assetforge", fs::perms(0777));
        ignored("writable by group or others", 3);
    }
    // In a folder of the user's alone, the ordinary build writes the record anew, 0600.
    SECTION("the record readable and writable by everyone") {
        fs::permissions(record, fs::perms(0666));
        ignored("group or others", 1);
        REQUIRE(::stat(record.c_str(), &st) == 0);
        CHECK((st.st_mode & 07777) == 0600);
    }
    SECTION("the record readable by its group") {
        fs::permissions(record, fs::perms(0640));
        ignored("group or others", 1);
        REQUIRE(::stat(record.c_str(), &st) == 0);
        CHECK((st.st_mode & 07777) == 0600);
    }
    SECTION("the record a link to a copy of itself") {
        fs::copy_file(record, t / "copy");
        fs::permissions(t / "copy", fs::perms(0600));
        fs::remove(record);
        fs::create_symlink(t / "copy", record);
        Run r = build(t);
        INFO(r.out);
        CHECK(r.code == 0);
        CHECK_THAT(r.out, !Catch::Contains(kSaid));
        CHECK_THAT(r.out, Catch::Contains("0 built, 2 up to date, 0 failed"));
    }
    SECTION("the record folder a link to a copy of itself") {
        fs::rename(noop, t / "elsewhere");
        fs::create_directory_symlink(t / "elsewhere", noop);
        Run r = build(t);
        INFO(r.out);
        CHECK(r.code == 0);
        CHECK_THAT(r.out, !Catch::Contains(kSaid));
        CHECK_THAT(r.out, Catch::Contains("0 built, 2 up to date, 0 failed"));
    }
    SECTION("made the user's alone again, records count again") {
        fs::permissions(noop, fs::perms(0777));
        build(t);
        fs::permissions(noop, fs::perms(0700));
        let_time_pass();
        build(t); // the ordinary build before touched the state, which the record vouched for: written anew
        let_time_pass();
        Run r = build(t);
        INFO(r.out);
        CHECK(r.code == 0);
        CHECK_THAT(r.out, Catch::Contains(kSaid));
    }
}

// A pipeline may read any variable the user allows, those a shell sets itself included: a record made under
// one value must not answer under another.
TEST_CASE("no-op record: every environment variable the pipeline read is part of it", "[noop]") {
    for (const char* name : {"PWD", "OLDPWD", "SHLVL", "_"}) {
        DYNAMIC_SECTION(name) {
            TempDir t;
            t.copy(kBcData + "g_caustics_128.png", "src/a.png");
            t.copy(kBcData + "d_rock_128.png", "src/sub/b.png");
            t.write("pipeline.yaml", std::string(R"(assetforge: 1
jobs:
  copies:
    inputs: "src/**/*.png"
    steps: [ copy ]
    output: "out/${env:)") + name + R"(}/{dir}/{name}"
)");
            const std::string args = std::string("--allow-env ") + name;
            settle(t, args, std::string(name) + "=one");
            CHECK(fs::exists(t / "out/one/a.png"));
            let_time_pass();
            Run r = build(t, args, std::string(name) + "=two");
            INFO(r.out);
            CHECK(r.code == 0);
            CHECK_THAT(r.out, !Catch::Contains(kSaid));
            CHECK_THAT(r.out, Catch::Contains("2 built"));
            CHECK(fs::exists(t / "out/two/a.png"));
        }
    }
}

TEST_CASE("stat cache: a same-size variant copied over an input with its mtime kept (cp -p) is built, with and "
          "without no-op records",
          "[noop]") {
    for (const char* records_mode : {"say", "off"}) {
        TempDir t;
        make_project(t);
        settle(t);
        let_time_pass();
        std::string variant = slurp(t / "src/a.png");
        variant[variant.size() / 2] ^= 0x5a;
        t.write("variant.png", variant);
        fs::last_write_time(t / "variant.png", fs::last_write_time(t / "src/a.png"));
        struct stat before {};
        REQUIRE(::stat((t / "src/a.png").c_str(), &before) == 0);
        // cp -p writes into the existing file (same inode) and sets the source's times: only the ctime moves.
        Run cp = run_shell("cp -p '" + (t / "variant.png").string() + "' '" + (t / "src/a.png").string() + "'");
        REQUIRE(cp.code == 0);
        struct stat after {};
        REQUIRE(::stat((t / "src/a.png").c_str(), &after) == 0);
        REQUIRE(after.st_ino == before.st_ino);
        REQUIRE(after.st_size == before.st_size);
        REQUIRE(after.st_mtim.tv_sec == before.st_mtim.tv_sec);
        REQUIRE(after.st_mtim.tv_nsec == before.st_mtim.tv_nsec);
        Run r = run_shell("cd '" + t.path().string() + "' && XDG_CACHE_HOME='" + (t / "cache").string() +
                          "' ASSETFORGE_NOOP_RECORDS=" + records_mode + " " + AF_EXE + " build");
        INFO(records_mode << ": " << r.out);
        CHECK(r.code == 0);
        CHECK_THAT(r.out, Catch::Contains("1 built, 1 up to date"));
        CHECK(slurp(t / "out/a.png") == variant);
    }
}

TEST_CASE("no-op record: a failing build leaves none, and the next build retries", "[noop]") {
    TempDir t;
    make_project(t);
    settle(t);
    t.write("src/broken.png", "not a png at all");
    t.write("pipeline.yaml", R"(assetforge: 1
jobs:
  copies:
    inputs: "src/**/*.png"
    steps: [ mips ]
    output: "out/{dir}/{stem}.dds"
)");
    let_time_pass();
    Run failing = build(t);
    CHECK(failing.code == 1);
    CHECK(records(t) == 0);
    let_time_pass();
    Run again = build(t);
    INFO(again.out);
    CHECK(again.code == 1);
    CHECK_THAT(again.out, !Catch::Contains(kSaid));
}

// The world's changes at random, each followed by a build that checks the record against the full build
// (ASSETFORGE_VERIFY_NOOP=1: when the record says "nothing to do", the build runs anyway and exits 70 if it
// did anything). Records are trusted here even when racily new, so they are put to the test far more often
// than a user's would be.
TEST_CASE("no-op record: never says up to date when the full build would do something (random changes)",
          "[noop][property]") {
    TempDir t;
    const std::string pipeline = R"(assetforge: 1
jobs:
  copies:
    inputs: "src/**/*.png"
    steps: [ copy ]
    output: "out/{dir}/{name}"
  shrunk:
    from: copies
    steps: [ { resize: { scale: 0.5 } } ]
    output: "small/{dir}/{stem}.png"
  package:
    from: copies
    gather: { zip: {} }
    output: "mod.zip"
)";
    t.write("pipeline.yaml", pipeline);
    const std::vector<std::string> samples = {kBcData + "g_caustics_128.png", kBcData + "d_rock_128.png",
                                              kBcData + "n_rock_128.png"};
    std::vector<std::string> inputs = {"src/a.png", "src/sub/b.png", "src/sub/deep/c.png"};
    for (size_t i = 0; i < inputs.size(); ++i) t.copy(samples[i], inputs[i]);
    std::mt19937 rng(20261204);
    auto pick = [&](size_t n) { return size_t(rng() % n); };
    auto verify = [&](const std::string& what) {
        Run r = run_shell("cd '" + t.path().string() + "' && XDG_CACHE_HOME='" + (t / "cache").string() +
                          "' ASSETFORGE_NOOP_RECORDS=say ASSETFORGE_VERIFY_NOOP=1 " + AF_EXE + " build");
        INFO(what << "\n" << r.out);
        REQUIRE(r.code != 70);
        REQUIRE_THAT(r.out, !Catch::Contains("internal error"));
        return r.out.find(kSaid) != std::string::npos;
    };
    verify("first build");
    size_t answered = 0, changes = 0;
    for (int step = 0; step < 80; ++step) {
        std::string what;
        const std::string in = inputs.empty() ? "" : inputs[pick(inputs.size())];
        switch (inputs.empty() ? 0 : pick(12)) {
        case 0:
            what = "add an input";
            inputs.push_back("src/" + std::string(pick(2) ? "sub/" : "new" + std::to_string(step) + "/") + "n" +
                             std::to_string(step) + ".png");
            t.copy(samples[pick(samples.size())], inputs.back());
            break;
        case 1: {
            what = "rewrite " + in + ", same size, mtime set back";
            struct stat st {};
            ::stat((t / in).c_str(), &st);
            std::string bytes = slurp(t / in);
            t.write(in, bytes); // same bytes: only the times move
            const struct timespec times[2] = {st.st_atim, st.st_mtim};
            ::utimensat(AT_FDCWD, (t / in).c_str(), times, 0);
            break;
        }
        case 2:
            what = "replace " + in + " with another picture";
            fs::remove(t / in);
            t.copy(samples[pick(samples.size())], in);
            break;
        case 3:
            what = "delete " + in;
            fs::remove(t / in);
            inputs.erase(std::find(inputs.begin(), inputs.end(), in));
            break;
        case 4:
            what = "delete an output";
            if (fs::exists(t / "mod.zip")) fs::remove(t / "mod.zip");
            break;
        case 5:
            what = "chmod " + in;
            fs::permissions(t / in, fs::perms::group_write, fs::perm_options::add);
            break;
        case 6:
            what = "a hidden file beside " + in;
            t.write(fs::path(in).parent_path().string() + "/.note" + std::to_string(step), "x");
            break;
        case 7:
            what = "edit the pipeline";
            t.write("pipeline.yaml", pipeline + "# " + std::to_string(step) + "\n");
            break;
        case 8: {
            what = "rename the folder of " + in;
            const std::string dir = fs::path(in).parent_path().string();
            if (dir == "src") break;
            const std::string to = dir + "_r" + std::to_string(step);
            fs::rename(t / dir, t / to);
            for (auto& i : inputs)
                if (i.rfind(dir + "/", 0) == 0) i = to + i.substr(dir.size());
            break;
        }
        default:
            what = "nothing";
            break;
        }
        changes += what != "nothing";
        answered += verify(what);
    }
    INFO(changes << " changes, " << answered << " builds answered by the record");
    CHECK(answered >= 10); // the record was put to the test
}
