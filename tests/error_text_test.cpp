// What a user reads when something fails: every command's failure paths (bad
// files, missing entries, bad numbers, names holding escape sequences) name
// the file and operation, never show a library's text alone (`map::at`,
// `stoi`, `[json.exception…]`), and never pass a control character to the
// terminal.
#include "cli_run.hpp"
#include "support/project.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using af::test::kRockImage;
using af::test::run_cli;
using af::test::run_shell;
using af::test::TempDir;

namespace {

const fs::path kSet = fs::path(AF_SOURCE_DIR) / "plugins/evr/tests/data/s7q"; // quirks, 3 parts, raw BC files
const std::string kSetName = "f2a74de452e6b438";
const fs::path kPages = fs::path(AF_SOURCE_DIR) / "plugins/vtpages/tests/data/l3_s2_bfs.pages";

const char* const kLibraryTexts[] = {"std::",  "map::at", "_M_range_check", "basic_string", "stoi",
                                     "stoull", "stol",    "json.exception", "vector::",     "bad_"};

void check_no_library_text(const std::string& out) {
    for (const char* s : kLibraryTexts) {
        INFO("library text '" << s << "' reached the user");
        CHECK(out.find(s) == std::string::npos);
    }
}

void check_no_control(const std::string& out) {
    for (char c : out) {
        if (c == '\n' || c == '\t') continue;
        INFO("control byte " << int(static_cast<unsigned char>(c)) << " reached the terminal");
        REQUIRE(!(static_cast<unsigned char>(c) < 0x20 || c == 0x7f));
    }
}

struct Case {
    std::string args;
    std::string names; // a word the message must hold (the file or entry), "" for none
};

void run_cases(const TempDir& t, const std::vector<Case>& cases) {
    for (const auto& c : cases) {
        auto r = run_cli(c.args, t.path());
        INFO("assetforge " << c.args << "\n" << r.out);
        CHECK(r.code != 0);
        check_no_library_text(r.out);
        if (!c.names.empty()) CHECK_THAT(r.out, Catch::Contains(c.names));
    }
}

} // namespace

TEST_CASE("every command's failure output names its context and no library text", "[errors][e2e]") {
    TempDir t("af-error-text");
    t.write("garbage.dds", std::string("DDS ") + std::string(200, '\x7f'));
    t.write("garbage.png", "\x89PNG\r\n\x1a\n not really");
    t.write("garbage.xtf", std::string(300, '\x01'));
    t.write("garbage.vtf", std::string("VTF\0", 4) + std::string(80, '\xff'));
    t.write("garbage.pages", std::string(64, '\x04'));
    t.copy(kRockImage, "a.png");
    fs::copy(kSet, t / "set", fs::copy_options::recursive);
    // The modder's normal case: --from holds only the file they changed (an edited raw BC texture, whose
    // metadata entry is in the full tree only).
    auto x = run_cli("evr extract set " + kSetName + " --out full", t.path());
    REQUIRE(x.code == 0);
    const std::string raw = "7f5bc1cf8ce51ffd/3e01aaa699498ac4.bc";
    REQUIRE(fs::exists(t / "full" / raw));
    fs::create_directories(t / "partial/7f5bc1cf8ce51ffd");
    fs::copy_file(t / "full" / raw, t / "partial" / raw);
    {
        std::fstream f(t / "partial" / raw, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(40);
        f.put('\x01');
    }
    fs::create_directories(t / "garbage-set/manifests");
    t.write("garbage-set/manifests/x", std::string(100, '\x05'));

    // Once the case that met `map::at`; now it must simply work.
    {
        auto r = run_cli("evr replace set " + kSetName + " --from partial --out new", t.path());
        INFO(r.out);
        CHECK(r.code == 0);
        check_no_library_text(r.out);
    }
    run_cases(t, {
                     {"info missing.dds", "missing.dds"},
                     {"info garbage.dds garbage.xtf garbage.vtf garbage.png", "garbage"},
                     {"info --json garbage.dds", "garbage.dds"},
                     {"convert garbage.dds out.png", "garbage.dds"},
                     {"convert garbage.xtf out.png", "garbage.xtf"},
                     {"convert a.png out.dds --format nosuch", "nosuch"},
                     {"convert a.png out.dds --threads abc", "threads"},
                     {"convert a.png out.dds --mip 99", ""},
                     {"convert a.png out.dds --resize 0x9999999999", "resize"},
                     {"compare a.png garbage.png", "garbage.png"},
                     {"compare a.png missing.png", "missing.png"},
                     {"--max-dimension x info a.png", "max-dimension"},
                     {"build missing.yaml", "missing.yaml"},
                     {"status -j abc", ""},
                     {"evr list garbage-set x", "garbage-set"},
                     {"evr list set nosuchname", "nosuchname"},
                     {"evr verify set " + kSetName + " --max-frame-bytes abc", "max-frame-bytes"},
                     {"evr replace set " + kSetName + " --from partial --out new2 --frame-size -5", ""},
                     {"evr build missing-dir --out y --name z", "missing-dir"},
                     {"pages header garbage.pages", "garbage.pages"},
                     {"pages walk garbage.pages", "garbage.pages"},
                     {"pages page " + kPages.string() + " 99 99 99", ""},
                     {"pages repack garbage.pages --replace missing-dir --out o.pages", "garbage.pages"},
                 });
}

TEST_CASE("names holding escape sequences are printed escaped everywhere", "[errors][names][e2e]") {
    TempDir t("af-error-text");
    const std::string esc = "x\x1b[2J\x1b]0;title\x07";
    t.write(esc + ".dds", "junk");
    t.write(esc + ".pages", "junk");
    fs::create_directories(t / (esc + "-set"));
    t.copy(kRockImage, "a.png");
    const std::string q = "'" + esc + "'";
    run_cases(t, {{"info " + q + ".dds", "x\\x1b[2J"},
                  {"convert " + q + ".dds out.png", "x\\x1b[2J"},
                  {"convert a.png " + q + ".zzz", ""},
                  {"compare a.png " + q + ".dds", "x\\x1b[2J"},
                  {"evr list " + q + "-set name", "x\\x1b[2J"},
                  {"pages header " + q + ".pages", "x\\x1b[2J"},
                  {"pages " + q, "x\\x1b[2J"},
                  {"evr " + q, "x\\x1b[2J"},
                  {q, "x\\x1b[2J"}});
    for (const auto& c :
         std::vector<std::string>{"info " + q + ".dds", "convert " + q + ".dds o.png", "compare a.png " + q + ".dds",
                                  "evr list " + q + "-set n", "pages header " + q + ".pages", q})
        check_no_control(run_cli(c, t.path()).out);

    // The pipeline file: a config error, the valid jobs of an unknown --job, a missing include.
    t.write("pipeline.yaml", "assetforge: 1\njobs:\n  \"j\\e[2Jx\":\n    inputs: \"*.png\"\n"
                             "    steps: [ \"mi\\e[31mps\" ]\n    output: \"out/{stem}.dds\"\n");
    auto bad_step = run_cli("status", t.path());
    INFO(bad_step.out);
    CHECK(bad_step.code == 2);
    CHECK_THAT(bad_step.out, Catch::Contains("mi\\x1b[31mps"));
    check_no_control(bad_step.out);

    t.write("pipeline.yaml", "assetforge: 1\njobs:\n  \"j\\e[2Jx\":\n    inputs: \"*.png\"\n"
                             "    steps: [ mips ]\n    output: \"out/{stem}.dds\"\n");
    for (const char* cmd : {"status --job nosuch", "build --job nosuch", "clean --job nosuch"}) {
        auto r = run_cli(cmd, t.path());
        INFO(cmd << "\n" << r.out);
        CHECK(r.code == 2);
        CHECK_THAT(r.out, Catch::Contains("j\\x1b[2Jx"));
        check_no_control(r.out);
    }
    t.write("pipeline.yaml", "assetforge: 1\ninclude: [ \"in\\e[2Jc.yaml\" ]\njobs: {}\n");
    auto inc = run_cli("status", t.path());
    INFO(inc.out);
    CHECK(inc.code == 2);
    CHECK_THAT(inc.out, Catch::Contains("in\\x1b[2Jc.yaml"));
    check_no_control(inc.out);
}

// Issue 43, item 10: a texture the modder added has no game original, and the shipped config's `format: match`
// cannot copy one. The failure names the texture, where its original was looked for and the two ways on.
TEST_CASE("a new texture with no original under format: match names the input, the original looked for and what to do",
          "[errors][e2e]") {
    TempDir t;
    REQUIRE(run_cli("convert '" + kRockImage.string() + "' original/walls/rock.dds --format bc1", t.path()).code == 0);
    t.copy(kRockImage, "edit/walls/rock.png");
    t.copy(kRockImage, "edit/walls/new_brick.png"); // no original/walls/new_brick.dds
    t.copy(fs::path(AF_SOURCE_DIR) / "configs/png-to-game-dds.yaml", "png-to-game-dds.yaml");
    auto r = run_cli("build png-to-game-dds.yaml -D src=edit -D original=original -D out=mod", t.path());
    INFO(r.out);
    CHECK(r.code != 0);
    CHECK_THAT(r.out, Catch::Contains("edit/walls/new_brick.png"));
    CHECK_THAT(r.out, Catch::Contains("original/walls/new_brick.dds"));
    CHECK_THAT(r.out, Catch::Contains("no original"));
    CHECK_THAT(r.out, Catch::Contains("explicit format")); // the way on for a new texture
    CHECK_THAT(r.out, !Catch::Contains("cannot open"));
    CHECK(fs::exists(t / "mod/walls/rock.dds")); // the textures that have one are built
    check_no_library_text(r.out);

    // Under an explicit format, `unedited: original` has nothing a new texture could be unchanged from: it is
    // encoded as any edit, not failed.
    t.write("new.yaml", "assetforge: 1\njobs:\n  dds:\n    inputs: \"edit/**/*.png\"\n    steps:\n"
                        "      - encode: { format: bc1, like: \"original/{dir}/{stem}.dds\", unedited: original }\n"
                        "    output: \"bc1/{dir}/{stem}.dds\"\n");
    r = run_cli("build new.yaml", t.path());
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK(fs::exists(t / "bc1/walls/new_brick.dds"));
}
