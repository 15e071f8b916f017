// The build's safety promises, one test (or more) per promise, through the
// real CLI. Each was written before the fix and fails on the binary of commit
// 0f9cf33 (except the quickstart check at the end, which guards against the
// fixes breaking the bundled example).
//
// What the tests rely on (flags, keys, words in messages):
//   exit codes     0 ok, 1 an input/action failed, 2 usage/configuration error or a refused plan
//   summary        "N built, N up to date, N failed, N removed"
//   build flags    --overwrite-edited, --state-dir DIR, -D name=value, -j N, -q
//   clean flags    --orphans;  status mentions "orphan"
//   job keys       keep_edits: true, follow_links: true, allow_empty: true, needs: [...]
//   top-level key  output_root:
//   messages       name the job / file / pattern / template involved; refusals that have a
//                  fix name it ("needs", "--overwrite-edited", "did you mean"); config errors
//                  are "FILE:LINE:COLUMN: ..."
#include "cli_run.hpp"
#include "support/project.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <regex>
#include <spawn.h>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace {

using namespace af::test;

const std::string kQuickstart = std::string(AF_SOURCE_DIR) + "/examples/quickstart";

std::string lower(std::string s) {
    for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}
bool icontains(const std::string& hay, const std::string& needle) {
    return lower(hay).find(lower(needle)) != std::string::npos;
}

// Entries of a zip (name → uncompressed size), read from its central directory.
std::map<std::string, uint32_t> zip_entries(const fs::path& p) {
    std::string z = slurp(p);
    auto u16 = [&](size_t o) { return uint32_t(uint8_t(z[o])) | uint32_t(uint8_t(z[o + 1])) << 8; };
    auto u32 = [&](size_t o) { return u16(o) | u16(o + 2) << 16; };
    REQUIRE(z.size() >= 22);
    size_t eocd = std::string::npos;
    for (size_t i = z.size() - 22 + 1; i-- > 0;)
        if (u32(i) == 0x06054b50u) {
            eocd = i;
            break;
        }
    REQUIRE(eocd != std::string::npos);
    const uint32_t count = u16(eocd + 10);
    size_t at = u32(eocd + 16);
    std::map<std::string, uint32_t> out;
    for (uint32_t i = 0; i < count; ++i) {
        REQUIRE(at + 46 <= z.size());
        REQUIRE(u32(at) == 0x02014b50u);
        const uint32_t usize = u32(at + 24), nlen = u16(at + 28), elen = u16(at + 30), clen = u16(at + 32);
        REQUIRE(at + 46 + nlen <= z.size());
        out[z.substr(at + 46, nlen)] = usize;
        at += 46 + nlen + elen + clen;
    }
    return out;
}

std::vector<std::string> keys(const std::map<std::string, uint32_t>& m) {
    std::vector<std::string> v;
    for (const auto& [k, _] : m) v.push_back(k);
    return v;
}

// (inode, mtime in ns): an output that was rewritten (temporary + rename) changes both.
std::pair<uint64_t, int64_t> identity(const fs::path& p) {
    struct stat st {};
    REQUIRE(::stat(p.c_str(), &st) == 0);
    return {uint64_t(st.st_ino), int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

// "FILE:LINE:COL" with FILE ending in `file`: the line, or -1.
int error_line(const std::string& out, const std::string& file) {
    std::smatch m;
    std::regex re(std::regex_replace(file, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") + R"(:(\d+):(\d+))");
    if (!std::regex_search(out, m, re)) return -1;
    return std::stoi(m[1]);
}

} // namespace

// ---------------------------------------------------------------------------
// 1. A build never writes over one of its own inputs.

TEST_CASE("promise 1: a plan whose output is one of its own inputs is refused before anything runs", "[promises][p1]") {
    TempDir t;
    t.copy(kBcData + "g_caustics_128.png", "src/a.png");
    t.copy(kBcData + "d_rock_128.png", "src/sub/b.png");
    const std::string a_before = slurp(t / "src/a.png"), b_before = slurp(t / "src/sub/b.png");

    SECTION("output template {stem} in the input folder") {
        t.write("pipeline.yaml", R"(assetforge: 1
jobs:
  shrink:
    inputs: "src/*.png"
    steps: [ { resize: { scale: 0.5 } } ]
    output: "src/{stem}.png"
  other:
    inputs: "src/*.png"
    steps: [ copy ]
    output: "out/{name}"
)");
        for (int i = 0; i < 2; ++i) {
            Run r = run_in(t.path(), "build");
            INFO(r.out);
            CHECK(r.code == 2);
            CHECK_THAT(r.out, Catch::Contains("shrink"));
            CHECK_THAT(r.out, Catch::Contains("src/a.png"));
            CHECK_THAT(r.out, Catch::Contains("src/{stem}.png"));
            CHECK(slurp(t / "src/a.png") == a_before); // the source is untouched
            CHECK_FALSE(fs::exists(t / "out"));        // nothing ran, not even the innocent job
        }
    }
    SECTION("output template {dir}/{stem} over a recursive glob") {
        t.write("pipeline.yaml", R"(assetforge: 1
jobs:
  shrink:
    inputs: "src/**/*.png"
    steps: [ { resize: { scale: 0.5 } } ]
    output: "src/{dir}/{stem}.png"
)");
        Run r = run_in(t.path(), "build");
        INFO(r.out);
        CHECK(r.code == 2);
        CHECK_THAT(r.out, Catch::Contains("shrink"));
        CHECK_THAT(r.out, Catch::Contains("src/{dir}/{stem}.png"));
        CHECK((r.out.find("src/a.png") != std::string::npos || r.out.find("src/sub/b.png") != std::string::npos));
        CHECK(slurp(t / "src/a.png") == a_before);
        CHECK(slurp(t / "src/sub/b.png") == b_before);
    }
}

// ---------------------------------------------------------------------------
// 2. Globs never pick up outputs they have not declared.

TEST_CASE("promise 2a: a glob does not pick up its own job's outputs", "[promises][p2]") {
    TempDir t;
    t.copy(kBcData + "g_caustics_128.png", "a.png");
    t.copy(kBcData + "d_rock_128.png", "sub/b.png");
    t.write("pipeline.yaml", R"(assetforge: 1
jobs:
  suffix:
    inputs: "**/*.png"
    steps: [ copy ]
    output: "{dir}/{stem}_x.png"
)");
    for (int i = 0; i < 3; ++i) {
        Run r = run_in(t.path(), "build");
        INFO("build " << i + 1 << "\n" << r.out);
        CHECK(r.code == 0);
        if (i == 0)
            CHECK_THAT(r.out, Catch::Contains("2 built, 0 up to date, 0 failed"));
        else
            CHECK_THAT(r.out, Catch::Contains("0 built, 2 up to date, 0 failed, 0 removed"));
    }
    auto files = files_under(t.path());
    INFO(Catch::Detail::stringify(files));
    CHECK(fs::exists(t / "a_x.png"));
    CHECK(fs::exists(t / "sub/b_x.png"));
    CHECK(std::none_of(files.begin(), files.end(),
                       [](const std::string& f) { return f.find("_x_x") != std::string::npos; }));
}

TEST_CASE("promise 2b: a gather zip inside its own input folder does not pack itself", "[promises][p2]") {
    TempDir t;
    t.write("mod/a.txt", "hello\n");
    t.write("mod/sub/b.txt", "bee\n");
    t.write("pipeline.yaml", R"(assetforge: 1
jobs:
  pack:
    inputs: "mod/**/*"
    gather: { zip: {} }
    output: "mod/mod.zip"
)");
    std::optional<uintmax_t> size;
    for (int i = 0; i < 3; ++i) {
        Run r = run_in(t.path(), "build");
        INFO("build " << i + 1 << "\n" << r.out);
        REQUIRE(r.code == 0);
        REQUIRE(fs::exists(t / "mod/mod.zip"));
        auto entries = zip_entries(t / "mod/mod.zip");
        CHECK(keys(entries) == std::vector<std::string>{"a.txt", "sub/b.txt"});
        uintmax_t s = fs::file_size(t / "mod/mod.zip");
        if (size) CHECK(s == *size);
        size = s;
    }
}

TEST_CASE("promise 2c: reading another job's outputs without needs is refused at plan time", "[promises][p2]") {
    TempDir t;
    t.copy(kBcData + "g_caustics_128.png", "src/a.png");
    t.copy(kBcData + "d_rock_128.png", "src/b.png");
    const std::string jobs = R"(assetforge: 1
jobs:
  textures:
    inputs: "src/*.png"
    steps: [ copy ]
    output: "build/tex/{name}"
  package:
NEEDS    inputs: "build/tex/**/*"
    gather: { zip: {} }
    output: "build/mod.zip"
)";

    SECTION("without needs") {
        t.write("pipeline.yaml", filled(jobs, "NEEDS", ""));
        Run r = run_in(t.path(), "build");
        INFO(r.out);
        CHECK(r.code == 2);
        CHECK_THAT(r.out, Catch::Contains("textures"));
        CHECK_THAT(r.out, Catch::Contains("needs"));
        CHECK_FALSE(fs::exists(t / "build/mod.zip"));
        CHECK_FALSE(fs::exists(t / "build/tex"));
    }
    SECTION("with needs: the first build packs everything, the second is a no-op") {
        t.write("pipeline.yaml", filled(jobs, "NEEDS", "    needs: [ textures ]\n"));
        Run r = run_in(t.path(), "build");
        INFO(r.out);
        REQUIRE(r.code == 0);
        CHECK(keys(zip_entries(t / "build/mod.zip")) == std::vector<std::string>{"a.png", "b.png"});
        Run again = run_in(t.path(), "build");
        INFO(again.out);
        CHECK(again.code == 0);
        CHECK_THAT(again.out, Catch::Contains("0 built, 3 up to date, 0 failed, 0 removed"));
    }
}

// ---------------------------------------------------------------------------
// 3. Edits are never discarded silently.

namespace {
const char* kExtractYaml = R"(assetforge: 1
jobs:
  extract:
    inputs: "dds/*.dds"
KEEP    steps: [ decode ]
    output: "png/{stem}.png"
)";
void setup_extract(const TempDir& t, bool keep_edits) {
    t.copy(kDdsData + "Water__water-reflection.dds", "dds/w.dds");
    t.copy(kDdsData + "Terrain__transition1.dds", "dds/t.dds");
    t.write("pipeline.yaml", filled(kExtractYaml, "KEEP", keep_edits ? "    keep_edits: true\n" : ""));
}
} // namespace

TEST_CASE("promise 3a: an edited output is not overwritten without --overwrite-edited", "[promises][p3]") {
    TempDir t;
    setup_extract(t, false);
    Run first = run_in(t.path(), "build");
    INFO(first.out);
    REQUIRE(first.code == 0);
    const std::string generated = slurp(t / "png/w.png");
    REQUIRE(!generated.empty());

    const std::string edited = slurp(kBcData + "g_caustics_128.png"); // the modder's own PNG
    REQUIRE(edited != generated);
    t.write("png/w.png", edited);
    Run r = run_in(t.path(), "build");
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("png/w.png"));
    CHECK_THAT(r.out, Catch::Contains("--overwrite-edited"));
    CHECK(slurp(t / "png/w.png") == edited);

    Run forced = run_in(t.path(), "build --overwrite-edited");
    INFO(forced.out);
    CHECK(forced.code == 0);
    CHECK(slurp(t / "png/w.png") == generated);
}

TEST_CASE("promise 3d: a file a step parameter reads is an input: never written, even with --overwrite-edited",
          "[promises][p3]") {
    TempDir t;
    t.copy(kBcData + "g_caustics_128.png", "edited/a.png");
    t.copy(kDdsData + "Signs__black.dds", "orig/a.dds"); // the game's original, read by `like:`
    const std::string orig = slurp(t / "orig/a.dds");
    // Output over the originals `like:` reads (a modder re-exporting "in place").
    t.write("pipeline.yaml", R"(assetforge: 1
jobs:
  game_dds:
    inputs: "edited/*.png"
    steps:
      - encode: { format: match, like: "orig/{stem}.dds" }
    output: "orig/{stem}.dds"
)");
    for (const char* flags : {"build", "build --overwrite-edited"}) {
        Run r = run_in(t.path(), flags);
        INFO(flags << "\n" << r.out);
        CHECK(r.code == 1);
        CHECK_THAT(r.out, Catch::Contains("orig/a.dds") && Catch::Contains("input"));
        CHECK(slurp(t / "orig/a.dds") == orig);
    }
}

TEST_CASE("promise 3b: keep_edits keeps an edited output and rewrites a deleted one", "[promises][p3]") {
    TempDir t;
    setup_extract(t, true);
    Run first = run_in(t.path(), "build");
    INFO(first.out);
    REQUIRE(first.code == 0);
    const std::string generated = slurp(t / "png/w.png");

    const std::string edited = slurp(kBcData + "g_caustics_128.png");
    t.write("png/w.png", edited);
    Run r = run_in(t.path(), "build");
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK(slurp(t / "png/w.png") == edited);

    fs::remove(t / "png/w.png");
    Run again = run_in(t.path(), "build");
    INFO(again.out);
    CHECK(again.code == 0);
    REQUIRE(fs::exists(t / "png/w.png"));
    CHECK(slurp(t / "png/w.png") == generated);
}

TEST_CASE("promise 3c: an edited output of a vanished input is not deleted", "[promises][p3]") {
    TempDir t;
    setup_extract(t, false);
    Run first = run_in(t.path(), "build");
    INFO(first.out);
    REQUIRE(first.code == 0);

    const std::string edited = slurp(kBcData + "g_caustics_128.png");
    t.write("png/w.png", edited);
    fs::remove(t / "dds/w.dds");
    Run r = run_in(t.path(), "build");
    INFO(r.out);
    REQUIRE(fs::exists(t / "png/w.png"));
    CHECK(slurp(t / "png/w.png") == edited);
    CHECK(fs::exists(t / "png/t.png")); // the other input's output is untouched
}

// Issue 43, item 10: a PNG deleted from the edit tree takes its DDS out of the game-ready tree, as the build's
// rule says; a game file gone must not be a surprise. The build says which file it removed and why, in the
// terminal and the reports: as information, not a warning (a deliberate deletion discards nothing, so
// --warnings-as-errors still passes).
TEST_CASE("promise 3e: the output of a deleted input is removed by name, in the terminal and the reports",
          "[promises][p3]") {
    TempDir t;
    for (const char* name : {"walls/rock", "walls/brick"}) {
        REQUIRE(run_in(t.path(), "convert '" + kRockImage.string() + "' original/" + name + ".dds --format bc1").code ==
                0);
        t.copy(kRockImage, std::string("edit/") + name + ".png");
    }
    t.copy(fs::path(AF_SOURCE_DIR) / "configs/png-to-game-dds.yaml", "png-to-game-dds.yaml");
    const std::string build = "build png-to-game-dds.yaml -D src=edit -D original=original -D out=mod";
    REQUIRE(run_in(t.path(), build).code == 0);
    REQUIRE(fs::exists(t / "mod/walls/brick.dds"));

    fs::remove(t / "edit/walls/brick.png");
    Run r = run_in(t.path(), build + " --warnings-as-errors --report build.json");
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK_FALSE(fs::exists(t / "mod/walls/brick.dds"));
    CHECK_THAT(r.out, Catch::Contains("removed mod/walls/brick.dds: its input edit/walls/brick.png is gone"));
    CHECK_THAT(r.out, !Catch::Contains("warning"));
    CHECK_THAT(slurp(t / "build.json"), Catch::Contains("its input edit/walls/brick.png is gone"));

    // The page names the file and why, too.
    fs::remove(t / "edit/walls/rock.png");
    t.copy(kRockImage, "edit/walls/stone.png");
    REQUIRE(run_in(t.path(), "convert '" + kRockImage.string() + "' original/walls/stone.dds --format bc1").code == 0);
    r = run_in(t.path(), build + " --report build.html --report-pictures none");
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("removed mod/walls/rock.dds: its input edit/walls/rock.png is gone"));
    const std::string page = slurp(t / "build.html");
    CHECK_THAT(page, Catch::Contains("mod/<wbr>walls/<wbr>rock.dds"));
    CHECK_THAT(page, Catch::Contains("its input edit/<wbr>walls/<wbr>rock.png is gone")); // wraps at its slashes
}

// ---------------------------------------------------------------------------
// 4. Nothing outside the project is read through a link.

namespace {
const char* kPackageYaml = R"(assetforge: 1
jobs:
  package:
FOLLOW    inputs: "mod/**/*"
    gather: { zip: { manifest: manifest.json } }
    output: "dist/mod.zip"
)";
}

TEST_CASE("promise 4a: a link out of the project is not packed unless follow_links", "[promises][p4]") {
    TempDir t;
    const fs::path proj = t / "proj";
    t.write("outside/secret.txt", "TOP SECRET: not part of the mod\n");
    const fs::path target = t / "outside/secret.txt";
    t.write("proj/mod/a.txt", "hello\n");
    fs::create_symlink(target, proj / "mod/innocent.dds");

    SECTION("refused") {
        t.write("proj/pipeline.yaml", filled(kPackageYaml, "FOLLOW", ""));
        Run r = run_in(proj, "build");
        INFO(r.out);
        CHECK(r.code == 1);
        CHECK_THAT(r.out, Catch::Contains("innocent.dds"));
        CHECK_THAT(r.out, Catch::Contains(target.string()));
        if (fs::exists(proj / "dist/mod.zip")) CHECK(zip_entries(proj / "dist/mod.zip").count("innocent.dds") == 0);
    }
    SECTION("follow_links: true packs it") {
        t.write("proj/pipeline.yaml", filled(kPackageYaml, "FOLLOW", "    follow_links: true\n"));
        Run r = run_in(proj, "build");
        INFO(r.out);
        CHECK(r.code == 0);
        REQUIRE(fs::exists(proj / "dist/mod.zip"));
        auto entries = zip_entries(proj / "dist/mod.zip");
        REQUIRE(entries.count("innocent.dds") == 1);
        CHECK(entries["innocent.dds"] == fs::file_size(target));
    }
}

TEST_CASE("promise 4b: a recursive glob skips dot-files, a pattern naming one matches, a link inside the project works",
          "[promises][p4]") {
    TempDir t;
    t.write("mod/a.txt", "hello\n");
    t.write("mod/.env", "API_KEY=hunter2\n");
    t.write("mod/.git/config", "[core]\n");
    t.write("other/ok.txt", "ok\n");
    fs::create_symlink("../other/ok.txt", t / "mod/ok.txt");
    t.write("pipeline.yaml", filled(kPackageYaml, "FOLLOW", "") +
                                 R"(  env:
    inputs: "mod/.env"
    steps: [ copy ]
    output: "dist/env.txt"
)");
    Run r = run_in(t.path(), "build");
    INFO(r.out);
    CHECK(r.code == 0);
    REQUIRE(fs::exists(t / "dist/mod.zip"));
    auto entries = zip_entries(t / "dist/mod.zip");
    CHECK(keys(entries) == std::vector<std::string>{"a.txt", "manifest.json", "ok.txt"});
    CHECK(entries["ok.txt"] == 3);
    REQUIRE(fs::exists(t / "dist/env.txt"));
    CHECK(slurp(t / "dist/env.txt") == "API_KEY=hunter2\n");
}

// ---------------------------------------------------------------------------
// 5. A glob that matches nothing is an error.

TEST_CASE("promise 5: a glob that matches nothing fails and removes nothing", "[promises][p5]") {
    TempDir t;
    t.write("mod/a.txt", "hello\n");
    t.write("mod/sub/b.txt", "bee\n");
    const std::string yaml = R"(assetforge: 1
vars: { mod: mod }
jobs:
  files:
ALLOW    inputs: "${mod}/*.txt"
    steps: [ copy ]
    output: "out/{name}"
  package:
ALLOW    inputs: "${mod}/**/*"
    gather: { zip: {} }
    output: "dist/mod.zip"
)";

    SECTION("a typo in -D on a fresh project") {
        t.write("pipeline.yaml", filled(yaml, "ALLOW", ""));
        Run r = run_in(t.path(), "build -D mod=mdo");
        INFO(r.out);
        CHECK(r.code == 1);
        CHECK_THAT(r.out, Catch::Contains("package"));
        CHECK_THAT(r.out, Catch::Contains("mdo/**/*"));
        CHECK_FALSE(fs::exists(t / "dist/mod.zip"));
    }
    SECTION("a typo after a good build keeps the good build's outputs") {
        t.write("pipeline.yaml", filled(yaml, "ALLOW", ""));
        Run good = run_in(t.path(), "build -D mod=mod");
        INFO(good.out);
        REQUIRE(good.code == 0);
        REQUIRE(fs::exists(t / "out/a.txt"));
        const std::string zip = slurp(t / "dist/mod.zip");
        Run r = run_in(t.path(), "build -D mod=mdo");
        INFO(r.out);
        CHECK(r.code == 1);
        CHECK((r.out.find("mdo/*.txt") != std::string::npos || r.out.find("mdo/**/*") != std::string::npos));
        CHECK(fs::exists(t / "out/a.txt"));
        REQUIRE(fs::exists(t / "dist/mod.zip"));
        CHECK(slurp(t / "dist/mod.zip") == zip);
        Run back = run_in(t.path(), "build -D mod=mod");
        INFO(back.out);
        CHECK(back.code == 0);
        CHECK(fs::exists(t / "out/a.txt"));
    }
    SECTION("allow_empty: true") {
        t.write("pipeline.yaml", filled(yaml, "ALLOW", "    allow_empty: true\n"));
        Run r = run_in(t.path(), "build -D mod=mdo");
        INFO(r.out);
        CHECK(r.code == 0);
    }
}

// ---------------------------------------------------------------------------
// 6. Stale-output removal never deletes what this build or another configuration owns.

TEST_CASE("promise 6a: an input moved to another job with the same template keeps its output", "[promises][p6]") {
    TempDir t;
    t.copy(kBcData + "g_caustics_128.png", "src/a/a.png");
    t.copy(kBcData + "n_rock_128.png", "src/a/c.png"); // so `first` still matches something after the move
    t.copy(kBcData + "d_rock_128.png", "src/b/b.png");
    // `first` needs `second` so the order is fixed: `second` writes out/a.png,
    // then `first` finishes and looks for outputs of its vanished inputs.
    t.write("pipeline.yaml", R"(assetforge: 1
jobs:
  first:
    needs: [ second ]
    inputs: "src/a/*.png"
    steps: [ copy ]
    output: "out/{name}"
  second:
    inputs: "src/b/*.png"
    steps: [ copy ]
    output: "out/{name}"
)");
    Run r = run_in(t.path(), "build");
    INFO(r.out);
    REQUIRE(r.code == 0);
    fs::rename(t / "src/a/a.png", t / "src/b/a.png");
    Run moved = run_in(t.path(), "build");
    INFO(moved.out);
    CHECK(moved.code == 0);
    REQUIRE(fs::exists(t / "out/a.png"));
    CHECK(slurp(t / "out/a.png") == slurp(t / "src/b/a.png"));
    Run again = run_in(t.path(), "build");
    INFO(again.out);
    CHECK_THAT(again.out, Catch::Contains("0 built, 3 up to date"));
}

TEST_CASE("promise 6b: outputs of another configuration (-D) are orphans, kept until clean --orphans",
          "[promises][p6]") {
    TempDir t;
    t.copy(kBcData + "g_caustics_128.png", "modA/a.png");
    t.copy(kBcData + "d_rock_128.png", "modB/b.png");
    t.write("pipeline.yaml", R"(assetforge: 1
vars: { src: modA }
jobs:
  tex:
    inputs: "${src}/*.png"
    steps: [ copy ]
    output: "out/{name}"
)");
    Run a = run_in(t.path(), "build -D src=modA");
    INFO(a.out);
    REQUIRE(a.code == 0);
    REQUIRE(fs::exists(t / "out/a.png"));
    Run b = run_in(t.path(), "build -D src=modB");
    INFO(b.out);
    CHECK(b.code == 0);
    CHECK(fs::exists(t / "out/a.png"));
    CHECK(fs::exists(t / "out/b.png"));

    Run st = run_in(t.path(), "status -D src=modB");
    INFO(st.out);
    CHECK(st.code == 0);
    CHECK(icontains(st.out, "orphan"));

    Run c = run_in(t.path(), "clean --orphans -D src=modB");
    INFO(c.out);
    CHECK(c.code == 0);
    CHECK_FALSE(fs::exists(t / "out/a.png"));
    CHECK(fs::exists(t / "out/b.png"));
}

TEST_CASE("promise 6c: the outputs of a renamed job are removed by the next build", "[promises][p6]") {
    TempDir t;
    t.copy(kBcData + "g_caustics_128.png", "src/a.png");
    const std::string yaml = R"(assetforge: 1
jobs:
  NAME:
    inputs: "src/*.png"
    steps: [ copy ]
    output: "out/NAME/{name}"
)";
    t.write("pipeline.yaml", filled(yaml, "NAME", "tex"));
    Run r = run_in(t.path(), "build");
    INFO(r.out);
    REQUIRE(r.code == 0);
    REQUIRE(fs::exists(t / "out/tex/a.png"));
    t.write("pipeline.yaml", filled(yaml, "NAME", "textures"));
    Run renamed = run_in(t.path(), "build");
    INFO(renamed.out);
    CHECK(renamed.code == 0);
    CHECK(fs::exists(t / "out/textures/a.png"));
    CHECK_FALSE(fs::exists(t / "out/tex/a.png"));
}

// ---------------------------------------------------------------------------
// 7. Two jobs that would write the same path.

TEST_CASE("promise 7: two jobs writing the same path are refused at plan time", "[promises][p7]") {
    TempDir t;
    t.copy(kBcData + "g_caustics_128.png", "src/rock.png");
    t.write("pipeline.yaml", R"(assetforge: 1
jobs:
  alpha:
    inputs: "src/*.png"
    steps: [ copy ]
    output: "out/{name}"
  beta:
    inputs: "src/*.png"
    steps: [ copy ]
    output: "out/{name}"
)");
    Run r = run_in(t.path(), "build");
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK_THAT(r.out, Catch::Contains("alpha"));
    CHECK_THAT(r.out, Catch::Contains("beta"));
    CHECK_THAT(r.out, Catch::Contains("out/rock.png"));
    CHECK_FALSE(fs::exists(t / "out"));
}

// ---------------------------------------------------------------------------
// 8. Everything an action reads is in its key.

TEST_CASE("promise 8: pages.repack rebuilds when its replacements folder changes", "[promises][p8]") {
    TempDir blocks; // page payloads to use as replacements, outside the project
    const std::string world = kQuickstart + "/pages/world.pages";
    for (const char* page : {"0 7 0", "1 3 0"}) {
        Run b = af::test::run_cli("pages blocks '" + world + "' " + page + " --out '" + blocks.path().string() + "'");
        INFO(b.out);
        REQUIRE(b.code == 0);
    }
    const fs::path p070 = blocks / "0_7_0.payload.bin", p130 = blocks / "1_3_0.payload.bin";
    REQUIRE(fs::exists(p070));
    REQUIRE(fs::exists(p130));

    const char* yaml = R"(assetforge: 1
jobs:
  repack:
    inputs: "pages/*.pages"
    steps: [ { pages.repack: { replacements: repl } } ]
    output: "out/{name}"
)";
    // What a from-scratch build makes of world.pages with these replacements.
    auto reference = [&](const std::vector<std::pair<std::string, fs::path>>& repl) {
        TempDir r;
        r.copy(world, "pages/world.pages");
        fs::create_directories(r / "repl");
        for (const auto& [name, from] : repl) r.copy(from, "repl/" + name);
        r.write("pipeline.yaml", yaml);
        Run b = run_in(r.path(), "build");
        INFO(b.out);
        REQUIRE(b.code == 0);
        return slurp(r / "out/world.pages");
    };

    TempDir t;
    t.copy(world, "pages/world.pages");
    t.copy(p070, "repl/0_6_0.bin");
    t.write("pipeline.yaml", yaml);
    Run first = run_in(t.path(), "build");
    INFO(first.out);
    REQUIRE(first.code == 0);
    const std::string v1 = slurp(t / "out/world.pages");
    REQUIRE(v1 != slurp(world));
    // The next build, which must run the repack again: its world.pages.
    auto rebuilt = [&] {
        Run r = run_in(t.path(), "build");
        INFO(r.out);
        CHECK(r.code == 0);
        CHECK_THAT(r.out, !Catch::Contains("0 built"));
        return slurp(t / "out/world.pages");
    };

    SECTION("a replacement file's content changes") {
        t.copy(p130, "repl/0_6_0.bin");
        const std::string v2 = rebuilt();
        CHECK(v2 != v1);
        CHECK(v2 == reference({{"0_6_0.bin", p130}}));
    }
    SECTION("a replacement file is added") {
        t.copy(p070, "repl/0_6_1.bin");
        const std::string v2 = rebuilt();
        CHECK(v2 != v1);
        CHECK(v2 == reference({{"0_6_0.bin", p070}, {"0_6_1.bin", p070}}));
    }
}

// ---------------------------------------------------------------------------
// 9. Unknown or invalid parameters are load-time errors.

TEST_CASE("promise 9: unknown or invalid step parameters are errors at load time with file:line:column",
          "[promises][p9]") {
    struct Case {
        std::string steps, output;
        std::vector<std::string> mentions;
        std::vector<int> lines; // accepted line numbers of the mark
    };
    const std::vector<Case> cases = {
        {"{ encode: { fromat: bc7 } }", "out/{stem}.dds", {"fromat", "did you mean", "format"}, {5}},
        {"{ read: { zzz: 1 } }", "out/{stem}.png", {"zzz", "read"}, {5}},
        {"{ write: { zzz: 1 } }", "out/{stem}.png", {"zzz", "write"}, {5}},
        {"{ encode: { zzz: 1 } }", "out/{stem}.dds", {"zzz", "encode"}, {5}},
        {"{ xtf.write: { format: DXT7 } }", "out/{stem}.xtf", {"DXT7", "format"}, {5}},
        {"{ mips: { count: \"lots\" } }", "out/{stem}.dds", {"count", "lots"}, {5}},
        {"copy", "out/{steem}.png", {"steem", "did you mean", "stem"}, {6}},
    };
    for (const auto& c : cases) {
        TempDir t;
        t.copy(kBcData + "g_caustics_128.png", "src/a.png");
        t.write("pipeline.yaml", "assetforge: 1\njobs:\n  tex:\n    inputs: \"src/*.png\"\n    steps: [ " + c.steps +
                                     " ]\n    output: \"" + c.output + "\"\n");
        Run r = run_in(t.path(), "build");
        INFO(c.steps << " → " << c.output << "\n" << r.out);
        CHECK(r.code == 2);
        for (const auto& m : c.mentions) CHECK_THAT(r.out, Catch::Contains(m, Catch::CaseSensitive::No));
        int line = error_line(r.out, "pipeline.yaml");
        CHECK(std::find(c.lines.begin(), c.lines.end(), line) != c.lines.end());
        CHECK_FALSE(fs::exists(t / "out"));
    }
    SECTION("a duplicate key") {
        TempDir t;
        t.copy(kBcData + "g_caustics_128.png", "src/a.png");
        t.write("pipeline.yaml", R"(assetforge: 1
jobs:
  tex:
    inputs: "src/*.png"
    steps: [ copy ]
    output: "out/{stem}.png"
    output: "out2/{stem}.png"
)");
        Run r = run_in(t.path(), "build");
        INFO(r.out);
        CHECK(r.code == 2);
        CHECK(icontains(r.out, "duplicate"));
        CHECK_THAT(r.out, Catch::Contains("output"));
        int line = error_line(r.out, "pipeline.yaml");
        CHECK((line == 6 || line == 7));
        CHECK_FALSE(fs::exists(t / "out"));
        CHECK_FALSE(fs::exists(t / "out2"));
    }
}

// ---------------------------------------------------------------------------
// 12. One build at a time per state.

TEST_CASE("promise 12: a second build waits for (or refuses) the running one, status stays prompt", "[promises][p12]") {
    TempDir t;
    const std::vector<std::string> sources = {"a_palm_128.png", "d_rock_128.png", "n_rock_128.png",
                                              "d_wallpaper_128.png"};
    const int copies = 12;
    for (int c = 0; c < copies; ++c)
        for (const auto& s : sources) t.copy(kBcData + s, "src/" + std::to_string(c) + "_" + s);
    const size_t n = copies * sources.size();
    t.write("pipeline.yaml", R"(assetforge: 1
jobs:
  dds:
    inputs: "src/*.png"
    steps: [ mips, { encode: { format: bc7, quality: high } } ]
    output: "out/{stem}.dds"
)");
    auto outputs = [&] {
        size_t c = 0;
        for (const auto& f : files_under(t / "out"))
            if (f.find(".af-tmp-") == std::string::npos) ++c;
        return c;
    };

    // The first build, paused (SIGSTOP) once it has written an output: it holds
    // whatever it holds for the whole of the second build's attempt.
    Child first(spawn_in(t.path(), "build -j2", t / "first.log"));
    for (int i = 0; i < 4000 && outputs() < 1; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    REQUIRE(kill(first.pid(), SIGSTOP) == 0);
    const size_t at_pause = outputs();
    INFO("outputs when the first build was paused: " << at_pause << " of " << n);
    REQUIRE(at_pause >= 1);
    REQUIRE(at_pause < n);

    Child second(spawn_in(t.path(), "build -j2", t / "second.log"));

    auto t0 = std::chrono::steady_clock::now();
    Run status = run_in(t.path(), "status");
    double status_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    INFO("status took " << status_s << " s:\n" << status.out);
    CHECK(status_s < 2.0);

    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    REQUIRE(kill(first.pid(), SIGCONT) == 0);
    const int first_code = first.wait_exit();
    const int second_code = second.wait_exit();
    const std::string first_out = slurp(t / "first.log"), second_out = slurp(t / "second.log");
    INFO("first (pid " << first.pid() << ", exit " << first_code << "):\n"
                       << first_out << "\nsecond (exit " << second_code << "):\n"
                       << second_out);
    CHECK(first_code == 0);
    CHECK_THAT(first_out, Catch::Contains(std::to_string(n) + " built, 0 up to date, 0 failed"));
    const std::string pid = std::to_string(first.pid());
    if (second_code == 2) {
        // Refused: names the process holding the lock.
        CHECK_THAT(second_out, Catch::Contains(pid));
    } else {
        // Waited, then found nothing to do.
        CHECK(second_code == 0);
        CHECK((icontains(second_out, "wait") || second_out.find(pid) != std::string::npos));
        CHECK_THAT(second_out, Catch::Contains("0 built, " + std::to_string(n) + " up to date"));
    }
    CHECK(outputs() == n);
}

// ---------------------------------------------------------------------------
// 13. A damaged state is recovered; where the state lives.

namespace {
const char* kCopyYaml = R"(assetforge: 1
jobs:
  tex:
    inputs: "src/*.png"
    steps: [ copy ]
    output: "out/{name}"
)";

// A regular file under `dir` (other than `except`) holding exactly `bytes`.
std::optional<fs::path> find_with_content(const fs::path& dir, const std::string& bytes, const fs::path& except) {
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file() && e.path() != except && e.file_size() == bytes.size() && slurp(e.path()) == bytes)
            return e.path();
    return std::nullopt;
}
} // namespace

TEST_CASE("promise 13a: a damaged state database is moved aside and the build recovers", "[promises][p13]") {
    TempDir t;
    t.copy(kBcData + "g_caustics_128.png", "src/a.png");
    t.copy(kBcData + "d_rock_128.png", "src/b.png");
    t.write("pipeline.yaml", kCopyYaml);
    Run good = run_in(t.path(), "build");
    INFO(good.out);
    REQUIRE(good.code == 0);
    const fs::path db = t / ".assetforge/state.db";
    REQUIRE(fs::exists(db));
    const auto id_a = identity(t / "out/a.png"), id_b = identity(t / "out/b.png");

    std::string damaged;
    SECTION("overwritten with garbage") {
        std::mt19937 rng(42);
        damaged.resize(5000);
        for (auto& c : damaged) c = char(rng());
    }
    SECTION("truncated to half") {
        damaged = slurp(db);
        damaged.resize(damaged.size() / 2);
    }
    for (const char* side : {"-wal", "-shm"}) fs::remove(db.string() + side);
    std::ofstream(db, std::ios::binary | std::ios::trunc) << damaged;

    Run r = run_in(t.path(), "build");
    INFO(r.out);
    CHECK(r.code == 0);
    // The damaged file is kept under another name, and the warning names it.
    auto aside = find_with_content(t.path(), damaged, db);
    REQUIRE(aside);
    CHECK_THAT(r.out, Catch::Contains(aside->filename().string()));
    // Outputs whose bytes are right are not rewritten.
    CHECK(identity(t / "out/a.png") == id_a);
    CHECK(identity(t / "out/b.png") == id_b);
    Run again = run_in(t.path(), "build");
    INFO(again.out);
    CHECK(again.code == 0);
    CHECK_THAT(again.out, Catch::Contains("0 built, 2 up to date"));
}

TEST_CASE("promise 13b: the state lives in output_root (a read-only pipeline folder builds) or --state-dir",
          "[promises][p13]") {
    TempDir t;
    const fs::path proj = t / "proj", outroot = t / "outroot";
    t.copy(kBcData + "g_caustics_128.png", "proj/src/a.png");
    fs::create_directories(outroot);

    SECTION("output_root elsewhere") {
        t.write("proj/pipeline.yaml", R"(assetforge: 1
vars: { out: build }
output_root: "${out}"
jobs:
  tex:
    inputs: "src/*.png"
    steps: [ copy ]
    output: "${out}/tex/{name}"
)");
        // Make the pipeline folder read-only, if that stops this process from writing (not as root).
        fs::permissions(proj, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                                  fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
        bool read_only = !std::ofstream(proj / "probe");
        if (!read_only) {
            fs::remove(proj / "probe");
            WARN("running with privileges that ignore permissions: the read-only part only checks that nothing "
                 "is written into the pipeline folder");
        }
        const std::string def = "-D out='" + outroot.string() + "'";
        Run r = run_in(proj, "build " + def);
        INFO(r.out);
        CHECK(r.code == 0);
        CHECK(fs::exists(outroot / "tex/a.png"));
        CHECK_FALSE(fs::exists(proj / ".assetforge"));
        CHECK(files_under(proj) == std::vector<std::string>{"pipeline.yaml", "src/a.png"});
        Run again = run_in(proj, "build " + def);
        INFO(again.out);
        CHECK(again.code == 0);
        CHECK_THAT(again.out, Catch::Contains("0 built, 1 up to date"));
        fs::permissions(proj, fs::perms::owner_all, fs::perm_options::add);
    }
    SECTION("--state-dir") {
        t.write("proj/pipeline.yaml", kCopyYaml);
        const fs::path state = t / "state";
        Run r = run_in(proj, "build --state-dir '" + state.string() + "'");
        INFO(r.out);
        CHECK(r.code == 0);
        CHECK(fs::exists(proj / "out/a.png"));
        CHECK_FALSE(fs::exists(proj / ".assetforge"));
        CHECK_FALSE(files_under(state).empty());
        Run again = run_in(proj, "build --state-dir '" + state.string() + "'");
        INFO(again.out);
        CHECK(again.code == 0);
        CHECK_THAT(again.out, Catch::Contains("0 built, 1 up to date"));
    }
}

// ---------------------------------------------------------------------------
// 14. Long and strange names.

TEST_CASE("promise 14a: an input with a 250-byte name builds", "[promises][p14]") {
    TempDir t;
    const std::string name = std::string(246, 'a') + ".png";
    REQUIRE(name.size() == 250);
    t.copy(kBcData + "g_caustics_128.png", "src/" + name);
    t.write("pipeline.yaml", kCopyYaml);
    Run r = run_in(t.path(), "build");
    INFO(r.out);
    CHECK(r.code == 0);
    REQUIRE(fs::exists(t / "out" / name));
    CHECK(slurp(t / "out" / name) == slurp(t / "src" / name));
}

TEST_CASE("promise 14b: a newline in a file name cannot forge an output line", "[promises][p14]") {
    TempDir t;
    t.write("src/x\nFAKE: line.png", "this is not a PNG");
    t.write("pipeline.yaml", R"(assetforge: 1
jobs:
  dds:
    inputs: "src/*.png"
    steps: [ { encode: { format: bc1 } } ]
    output: "out/{stem}.dds"
)");
    for (const char* args : {"build", "build --explain", "status"}) {
        Run r = run_in(t.path(), args);
        INFO(args << "\n" << r.out);
        if (std::string(args) == "build") CHECK(r.code == 1);
        for (const auto& l : lines_of(r.out)) CHECK(l.rfind("FAKE:", 0) == std::string::npos);
    }
}

// ---------------------------------------------------------------------------
// The bundled example still builds, and a second build is a no-op.

TEST_CASE("quickstart example builds and rebuilds as a no-op", "[promises][quickstart]") {
    TempDir t;
    fs::copy(kQuickstart, t / "quickstart", fs::copy_options::recursive);
    const fs::path q = t / "quickstart";
    Run r = run_in(q, "build");
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("0 failed"));
    Run again = run_in(q, "build");
    INFO(again.out);
    CHECK(again.code == 0);
    CHECK_THAT(again.out, Catch::Contains("0 built"));
    CHECK_THAT(again.out, Catch::Contains("0 failed, 0 removed"));
}
