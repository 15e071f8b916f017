// Shell and CI conventions: a typo'd command gets a suggestion, `convert`
// does not overwrite without -y, `build --dry-run` is `status`, and
// `--report FILE.xml` is JUnit XML that an independent parser reads.
#include "cli_run.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

namespace fs = std::filesystem;
using af::test::run_cli;
using af::test::run_in;
using af::test::slurp;

namespace {
const fs::path kConventionImages = fs::path(AF_SOURCE_DIR) / "plugins/bc/tests/data";

// A project whose one action (mips and high-quality BC7 of a 1024² picture)
// runs long enough for the progress output to be seen while it runs.
void one_long_action(const af::test::TempDir& t) {
    t.copy(kConventionImages / "a_palm_128.png", "seed.png");
    REQUIRE(run_in(t.path(), "convert seed.png src/big.png --resize 1024x1024").code == 0);
    t.write("pipeline.yaml", "assetforge: 1\njobs:\n  dds:\n    inputs: \"src/*.png\"\n"
                             "    steps: [ mips, { encode: { format: bc7, quality: high } } ]\n"
                             "    output: \"out/{stem}.dds\"\n");
}
} // namespace

TEST_CASE("cli: a mistyped command suggests the right one") {
    auto r = run_cli("buidl");
    CHECK(r.code == 2);
    CHECK_THAT(r.out, Catch::Contains("unknown command 'buidl' (did you mean 'build'?)"));
    auto s = run_cli("stauts");
    CHECK_THAT(s.out, Catch::Contains("did you mean 'status'?"));
}

TEST_CASE("cli: convert refuses to replace an existing output unless -y") {
    af::test::TempDir t;
    t.copy(kConventionImages / "a_palm_128.png", "a.png");
    t.write("out.dds", "precious");
    auto r = run_in(t.path(), "convert a.png out.dds --quality fast");
    CHECK(r.code == 2);
    CHECK_THAT(r.out, Catch::Contains("out.dds exists; pass -y (--overwrite) to replace it"));
    CHECK(slurp(t / "out.dds") == "precious");
    auto y = run_in(t.path(), "convert a.png out.dds --quality fast -y");
    CHECK(y.code == 0);
    CHECK(slurp(t / "out.dds").substr(0, 4) == "DDS ");
    t.write("all_l0_f0_m1.png", "precious");
    auto all = run_in(t.path(), "convert out.dds all.png --all-surfaces");
    CHECK(all.code == 2);
    CHECK_FALSE(fs::exists(t / "all_l0_f0_m0.png")); // refused before the first is written
    CHECK(run_in(t.path(), "convert out.dds all.png --all-surfaces --overwrite").code == 0);
}

TEST_CASE("cli: convert never writes over its input, even with -y (by name or through a link)") {
    af::test::TempDir t;
    t.copy(kConventionImages / "a_palm_128.png", "a.png");
    const std::string before = slurp(t / "a.png");
    fs::create_symlink("a.png", t / "link.png");
    for (const std::string out : {"a.png", "link.png"}) {
        auto r = run_in(t.path(), "convert a.png " + out + " -y");
        INFO(out << "\n" << r.out);
        CHECK(r.code == 2);
        CHECK_THAT(r.out, Catch::Contains("is the input a.png"));
        CHECK(slurp(t / "a.png") == before);
    }
}

TEST_CASE("cli: build --dry-run says what would run, runs nothing, and exits as status does") {
    af::test::TempDir t;
    t.copy(kConventionImages / "a_palm_128.png", "src/a.png");
    t.write("pipeline.yaml",
            "assetforge: 1\njobs:\n  dds:\n    inputs: \"src/*.png\"\n"
            "    steps: [ { encode: { format: bc1, quality: fast } } ]\n    output: \"out/{stem}.dds\"\n");
    auto r = run_in(t.path(), "build --dry-run");
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("1 action(s) would run"));
    CHECK_FALSE(fs::exists(t / "out"));
    t.write("pipeline.yaml", "assetforge: 1\njobs:\n  dds:\n    inputs: \"nothing/*.png\"\n"
                             "    steps: [ { encode: { format: bc1 } } ]\n    output: \"out/{stem}.dds\"\n");
    CHECK(run_in(t.path(), "build -n").code == run_in(t.path(), "status").code);
}

TEST_CASE("cli: --report FILE.xml writes JUnit XML with one test case per action") {
    af::test::TempDir t;
    t.copy(kConventionImages / "a_palm_128.png", "src/a.png");
    t.copy(kConventionImages / "d_rock_128.png", "src/b&<c>.png");
    t.write("src/broken.png", "\x89PNG\r\n\x1a\nnot really");
    t.write("pipeline.yaml",
            "assetforge: 1\njobs:\n  dds:\n    inputs: \"src/*.png\"\n"
            "    steps: [ { encode: { format: bc1, quality: fast } } ]\n    output: \"out/{stem}.dds\"\n");
    auto r = run_in(t.path(), "build --report junit.xml");
    CHECK(r.code == 1);
    REQUIRE(fs::exists(t / "junit.xml"));
    // Read by Python's XML parser, not by anything of ours.
    const std::string cmd =
        "/usr/bin/python3 -c \"import xml.etree.ElementTree as E,sys; r=E.parse(sys.argv[1]).getroot(); "
        "c=r.findall('.//testcase'); f=[x for x in c if x.find('failure') is not None]; "
        "print(r.get('tests'), r.get('failures'), len(c), len(f), f[0].get('name'), sorted(x.get('name') for x in "
        "c))\" '" +
        (t / "junit.xml").string() + "'";
    const auto sh = af::test::run_shell(cmd);
    CHECK(sh.code == 0);
    const std::string& out = sh.out;
    CHECK_THAT(out, Catch::StartsWith("3 1 3 1 src/broken.png"));
    CHECK_THAT(out, Catch::Contains("src/b&<c>.png")); // escaped in the file, read back whole
}

TEST_CASE("cli: every plugin subcommand takes --help, and info points .pages files at their command") {
    auto r = run_cli("pages repack --help");
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("usage: pages repack FILE --replace DIR --out FILE"));
    const fs::path pages = fs::path(AF_SOURCE_DIR) / "plugins/vtpages/tests/data/l3_s1_dfs_slack_x4.pages";
    auto i = run_cli("info '" + pages.string() + "'");
    CHECK(i.code != 0);
    CHECK_THAT(i.out, Catch::Contains("read by the `pages` command of plugin vtpages (try `assetforge pages header"));
}

TEST_CASE("cli: a piped build says what is still running during a long action, -v prints each step") {
    af::test::TempDir t;
    one_long_action(t);
    // Heartbeats every 100 ms instead of 10 s, so one BC7 action is long enough to see them.
    const std::string cmd = "cd '" + t.path().string() + "' && ASSETFORGE_HEARTBEAT_MS=100 " + AF_EXE + " build -j1 -v";
    const auto sh = af::test::run_shell(cmd);
    CHECK(sh.code == 0);
    const std::string& out = sh.out;
    INFO(out);
    CHECK_THAT(out, Catch::Contains("[0/1] still running: dds: src/big.png ("));
    CHECK_THAT(out, Catch::Contains("  dds: src/big.png: mips ("));
    CHECK_THAT(out, Catch::Contains("  dds: src/big.png: encode ("));
    CHECK_THAT(out, Catch::Contains("[1/1] dds: src/big.png"));
}

TEST_CASE("cli: failures are red only when asked or on a terminal") {
    af::test::TempDir t;
    t.write("src/broken.png", "\x89PNG\r\n\x1a\nnot really");
    t.write("pipeline.yaml", "assetforge: 1\njobs:\n  dds:\n    inputs: \"src/*.png\"\n"
                             "    steps: [ mips ]\n    output: \"out/{stem}.dds\"\n");
    auto always = run_in(t.path(), "build --color=always");
    CHECK(always.code == 1);
    CHECK_THAT(always.out, Catch::Contains("\033[1;31mFAILED\033[0m dds: src/broken.png"));
    auto piped = run_in(t.path(), "build"); // not a terminal: no escapes
    CHECK(piped.out.find('\033') == std::string::npos);
    CHECK_THAT(piped.out, Catch::Contains("FAILED dds: src/broken.png"));
    auto never = run_in(t.path(), "build --color=never");
    CHECK(never.out.find('\033') == std::string::npos);
    CHECK(run_in(t.path(), "build --color=sometimes").code == 2);
}

TEST_CASE("cli: on a terminal the status line names the action running now and is redrawn while it runs") {
    af::test::TempDir t;
    one_long_action(t);
    // util-linux `script` gives the build a pseudo-terminal.
    const std::string cmd = "cd '" + t.path().string() + "' && script -qec '" + AF_EXE + " build -j1' /dev/null";
    const auto sh = af::test::run_shell(cmd);
    CHECK(sh.code == 0);
    const std::string& out = sh.out;
    INFO(out);
    size_t redraws = 0;
    for (size_t at = 0; (at = out.find("\r\033[K[0/1] ", at)) != std::string::npos; ++at) ++redraws;
    CHECK(redraws >= 2);                                           // more than once while the one action runs
    CHECK_THAT(out, Catch::Contains("ETA -- dds: src/big.png (")); // the running action, with its time
    CHECK_THAT(out, Catch::Contains("1 built"));
}

TEST_CASE("cli: --report FILE.html is one self-contained page, failures first") {
    af::test::TempDir t;
    t.copy(kConventionImages / "a_palm_128.png", "src/a.png");
    t.copy(kConventionImages / "d_rock_128.png", "src/b.png");
    t.write("src/broken.png", "\x89PNG\r\n\x1a\nnot really");
    t.write("pipeline.yaml",
            "assetforge: 1\njobs:\n  dds:\n    inputs: \"src/*.png\"\n"
            "    steps: [ { encode: { format: bc1, quality: fast } } ]\n    output: \"out/{stem}.dds\"\n");
    auto r = run_in(t.path(), "build --report build.html");
    CHECK(r.code == 1);
    const std::string html = slurp(t / "build.html");
    // Nothing from the network: no links, no external scripts or styles; the
    // only images are the pictures in the folder beside the page.
    for (const char* ext : {"http://", "https://", "<link", "<script src"}) CHECK(html.find(ext) == std::string::npos);
    size_t pictures = 0;
    for (size_t at = 0; (at = html.find(" src=\"", at)) != std::string::npos; ++at, ++pictures) {
        const std::string file = html.substr(at + 6, html.find('"', at + 6) - at - 6);
        CHECK_THAT(file, Catch::StartsWith("build.html.d/"));
        CHECK(fs::is_regular_file(t / file));
    }
    // Per texture: thumbnails, full size, the difference; a.png has alpha, a picture of its own.
    CHECK(pictures == (2 + 2 + 1 + 1) + (2 + 2 + 1));
    // Read by Python's HTML parser: the rows, in order, with the first the failure.
    t.write("rows.py", R"PY(
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(s): super().__init__(); s.rows = []; s.row = None; s.cell = None
    def handle_starttag(s, t, a):
        if t == "tr" and ("class", "built") in a or ("class", "failed") in a: s.row = []
        if t == "td" and s.row is not None: s.cell = ""
    def handle_endtag(s, t):
        if t == "td" and s.row is not None: s.row.append(s.cell); s.cell = None
        if t == "tr" and s.row is not None: s.rows.append(s.row); s.row = None
    def handle_data(s, d):
        if s.cell is not None: s.cell += d
p = P(); p.feed(open(sys.argv[1]).read())
for r in p.rows: print(r[1], r[2], r[7])
)PY");
    const auto sh = af::test::run_shell("/usr/bin/python3 '" + (t / "rows.py").string() + "' '" +
                                        (t / "build.html").string() + "'");
    CHECK(sh.code == 0);
    const std::string& out = sh.out;
    CHECK_THAT(out, Catch::StartsWith("src/broken.png failed"));
    CHECK_THAT(out, Catch::Contains("src/a.png built BC1_UNORM_SRGB"));
    CHECK_THAT(out, Catch::Contains("src/b.png built BC1_UNORM"));
}

TEST_CASE("cli: the HTML report's pictures are nobody's input, and only an HTML report makes them") {
    af::test::TempDir t;
    t.copy(kConventionImages / "a_palm_128.png", "src/a.png");
    // Every PNG under the project, the report's folder included if it were not left out.
    t.write("pipeline.yaml",
            "assetforge: 1\njobs:\n  dds:\n    inputs: \"**/*.png\"\n"
            "    steps: [ { encode: { format: bc1, quality: fast } } ]\n    output: \"out/{stem}.dds\"\n");
    auto j = run_in(t.path(), "build --report build.json");
    CHECK(j.code == 0);
    CHECK(!fs::exists(t / "build.json.d"));
    CHECK(!fs::exists(t / "build.html.d"));
    t.write("src/b.png", slurp(kConventionImages / "d_rock_128.png"));
    t.write("build.html.d/0123456789abcdef.src.png", "an earlier report's picture");
    t.write("build.html.d/notes.txt", "the user's");
    auto r = run_in(t.path(), "build --report build.html");
    CHECK(r.code == 0);
    INFO(r.out);
    CHECK_THAT(r.out, Catch::Contains("1 built, 1 up to date"));
    size_t pngs = 0;
    for (const auto& e : fs::directory_iterator(t / "build.html.d")) pngs += e.path().extension() == ".png";
    // b.png's (two thumbnails, two full size, the difference): a.png was up to date, and no report made its
    // pictures. The planted picture-like file stays: no build wrote it, so no sweep removes it.
    CHECK(pngs == 6);
    CHECK(fs::exists(t / "build.html.d/0123456789abcdef.src.png"));
    CHECK(fs::exists(t / "build.html.d/notes.txt"));
    auto again = run_in(t.path(), "build --report build.html");
    CHECK(again.code == 0);
    CHECK_THAT(again.out, Catch::Contains("0 built, 2 up to date")); // its pictures did not become inputs
    t.write("src/c.png", slurp(kConventionImages / "g_caustics_128.png"));
    // Without pictures the folder is not the report's: the planted file,
    // which no sweep removes, would be an input of `**/*.png`.
    fs::remove(t / "build.html.d/0123456789abcdef.src.png");
    auto plain = run_in(t.path(), "build --report plain.html --report-pictures=false");
    CHECK(plain.code == 0);
    CHECK(fs::exists(t / "plain.html"));
    CHECK(!fs::exists(t / "plain.html.d"));
    CHECK(slurp(t / "plain.html").find("<img") == std::string::npos);
}
