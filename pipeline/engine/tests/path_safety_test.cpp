// Outputs never land outside the output root, whatever the input names, the
// names a container reader reports, the zip entry names or the links already
// in the output tree say.
#include "test_project.hpp"

#include "base/output_template.hpp"
#include "engine/output_root_guard.hpp"
#include "host/plugin_registry.hpp"
#include "steps/texture_steps.hpp"
#include "steps/zip_writer.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>

using namespace af::base;
using namespace af::steps;
using namespace af::load;
using namespace af::engine;
using namespace af::engine::test;
namespace fs = std::filesystem;

namespace {

// A path next to the project (in its parent directory) that no other test uses.
fs::path outside(const TestProject& t, const std::string& what) {
    static std::mt19937_64 rng{std::random_device{}()};
    return t.root().parent_path() / ("af-escape-" + what + "-" + std::to_string(rng()));
}

// Every regular file below `dir`, relative to it.
std::vector<std::string> files_below(const fs::path& dir) {
    std::vector<std::string> v;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
        if (it->is_regular_file()) v.push_back(it->path().lexically_relative(dir).generic_string());
    std::sort(v.begin(), v.end());
    return v;
}

// The test step table plus `rename`: a stand-in for any step that takes item
// names out of a container (an archive entry, a page name). It sets the item
// name, or the metadata value `entry`, to its `to` parameter.
StepTable steps_with_rename() {
    StepTable steps = png_test_steps();
    steps.add({.name = "rename",
               .description = "names the item as a hostile container would",
               .params = {{"to", "", {}, ""}, {"field", "name", {"name", "entry"}, ""}},
               .provider = "test",
               .run = [](StepContext& ctx, std::vector<Item> items) {
                   for (auto& it : items) {
                       if (ctx.params.at("field") == "name")
                           it.name = ctx.params.at("to");
                       else
                           it.meta["entry"] = ctx.params.at("to");
                   }
                   return items;
               }});
    return steps;
}

BuildSummary build_with(TestProject& t, const StepTable& steps, const std::string& yaml, std::string* log = nullptr,
                        const PathAllowList& allowed_paths = {}) {
    t.write("pipeline.yaml", yaml);
    BuildOptions opt;
    std::ostringstream sink;
    opt.out = opt.err = &sink;
    opt.progress = 0;
    auto s = run_build(load_pipeline(t.path("pipeline.yaml"), {}, steps, {}, allowed_paths), steps, opt);
    if (log) *log = sink.str();
    return s;
}

std::string yaml_quoted(const std::string& s) {
    std::string q = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') q += '\\';
        q += c;
    }
    return q + "\"";
}

} // namespace

TEST_CASE("placeholder values from names are checked before they become paths", "[path-safety][template]") {
    auto t = OutputTemplate::parse("out/{dir}/{stem}_{entry}.{ext}");
    auto with_entry = [](const std::string& e) { return template_values("d/x.png", {{"entry", e}}, "j"); };
    // What a hostile container or a crafted file name can say.
    for (std::string bad : std::vector<std::string>{"..", "../x", "a/../../x", "/etc/passwd", "..\\..\\x", "a\\b",
                                                    std::string("x\0/../..", 8), std::string("ok\0", 3)}) {
        INFO("entry = " << bad);
        CHECK_THROWS_WITH(resolve_output(t, with_entry(bad), "/p"),
                          Catch::Contains("{entry}") && Catch::Contains("refusing to write outside"));
    }
    CHECK_THROWS_WITH(resolve_output(t, with_entry("/etc/x"), "/p"), Catch::Contains("is an absolute path"));
    CHECK_THROWS_WITH(resolve_output(t, with_entry("..\\x"), "/p"), Catch::Contains("contains a backslash"));
    CHECK_THROWS_WITH(resolve_output(t, with_entry(std::string("a\0b", 3)), "/p"),
                      Catch::Contains("a\\x00b") && Catch::Contains("NUL"));
    // Names that only look alarming stay allowed: dots inside a component,
    // and separators that lead further down.
    CHECK(resolve_output(t, with_entry("..x"), "/p") == "/p/out/d/x_..x.png");
    CHECK(resolve_output(t, with_entry("x.."), "/p") == "/p/out/d/x_x...png");
    CHECK(resolve_output(t, with_entry("deeper/down"), "/p") == "/p/out/d/x_deeper/down.png");
    // The name of the item itself: {dir} and {path} carry its folders.
    for (std::string ph : {"dir", "path"}) {
        auto only = OutputTemplate::parse("out/{" + ph + "}.bin");
        CHECK_THROWS_WITH(resolve_output(only, template_values("../../../etc/x", {}, "j"), "/p"),
                          Catch::Contains("contains '..'"));
    }
    // A template with no fixed directory: an absolute value would go anywhere.
    auto bare = OutputTemplate::parse("{path}");
    CHECK_THROWS_WITH(resolve_output(bare, template_values("/etc/cron.d/x", {}, "j"), "/p"),
                      Catch::Contains("absolute"));
    CHECK(resolve_output(bare, template_values("a/b.png", {}, "j"), "/p") == "/p/a/b.png");
}

TEST_CASE("templates and variables that point outside the output root are refused at load", "[path-safety][config]") {
    TestProject t;
    StepTable steps = png_test_steps();
    auto load_error = [&](const std::string& output, const Defines& d = {}) -> std::string {
        t.write("pipeline.yaml", "assetforge: 1\nvars: { out: build }\njobs:\n  a:\n    inputs: \"src/*.png\"\n"
                                 "    output: " +
                                     yaml_quoted(output) + "\n");
        try {
            load_pipeline(t.path("pipeline.yaml"), d, steps);
        } catch (const ConfigError& e) {
            return e.what();
        }
        return "";
    };
    CHECK_THAT(load_error("/tmp/elsewhere/{stem}.png"), Catch::Contains("leaves the output root"));
    CHECK_THAT(load_error("build/../../{stem}.png"), Catch::Contains("leaves the output root"));
    CHECK_THAT(load_error("build/{dir}/../../{stem}.png"), Catch::Contains("uses '..' after a placeholder"));
    // A variable set on the command line is no way round it.
    CHECK_THAT(load_error("${out}/{stem}.png", {{"out", "../up"}}), Catch::Contains("leaves the output root"));
    CHECK_THAT(load_error("${out}/{stem}.png", {{"out", "/etc"}}), Catch::Contains("leaves the output root"));
    CHECK(load_error("${out}/{stem}.png").empty());
}

TEST_CASE("hostile item names from a container step fail the action and write nothing", "[path-safety][extract]") {
    TestProject t;
    t.write("src/x.bin", "payload");
    StepTable steps = steps_with_rename();
    const fs::path escape = outside(t, "name");
    const std::string escape_name = escape.filename().string();
    struct Case {
        std::string field, value, expect;
    };
    std::vector<Case> cases = {
        {"name", "../../" + escape_name, "contains '..'"},  {"name", "deep/../../../" + escape_name, "contains '..'"},
        {"name", escape.string(), "is an absolute path"},   {"name", "..\\..\\" + escape_name, "contains a backslash"},
        {"entry", "../../" + escape_name, "contains '..'"}, {"entry", escape.string(), "is an absolute path"},
    };
    for (const auto& c : cases) {
        INFO(c.field << " = " << c.value);
        auto s = build_with(t, steps,
                            "assetforge: 1\njobs:\n  j:\n    inputs: \"src/*.bin\"\n    steps: [ { rename: { field: " +
                                c.field + ", to: " + yaml_quoted(c.value) + " } } ]\n    output: \"out/" +
                                (c.field == "name" ? "{dir}/{name}" : "{stem}/{entry}") + "\"\n");
        REQUIRE(s.failed == 1);
        CHECK_THAT(s.actions[0].error, Catch::Contains(c.expect));
        CHECK_FALSE(fs::exists(escape));
        CHECK(files_below(t.path("out")).empty());
    }
}

TEST_CASE("the extract step keeps container metadata inside the output tree", "[path-safety][extract]") {
    // A reader that, like a container format with named entries, copies a
    // name from the file into the texture's metadata; `extract` carries it on
    // to every item it makes.
    TestProject t;
    af::host::PluginRegistry no_plugins;
    StepTable steps = png_test_steps();
    auto png_reader = steps.reader;
    auto png_writer = steps.writer;
    add_texture_steps(steps, no_plugins); // the real `extract`; reading and writing stay on the test PNG code
    steps.writer = png_writer;
    steps.reader = [png_reader](const Item& it, std::vector<std::string>& tools) {
        Item out = png_reader(it, tools);
        auto tex = std::make_shared<af::Texture>(*out.texture);
        std::string text(it.bytes->begin(), it.bytes->end());
        auto at = text.find("entry=");
        tex->meta["entry"] = text.substr(at + 6, text.find('\n', at) - at - 6);
        out.texture = tex;
        out.meta["entry"] = tex->meta["entry"];
        return out;
    };
    steps.reader_meta_keys = std::vector<std::string>{"entry"}; // so the template may name {entry}
    const fs::path escape = outside(t, "extract");
    auto write_input = [&](const std::string& entry) {
        t.write_png("src/a.png", 8, 8, 3);
        // PNG readers ignore bytes after IEND; this reader finds its name there.
        t.write("src/a.png", t.read("src/a.png") + "entry=" + entry + "\n");
    };
    const char* yaml =
        "assetforge: 1\njobs:\n  j:\n    inputs: \"src/*.png\"\n    steps: [ { extract: { what: mips } } ]\n"
        "    output: \"out/{stem}/{entry}_{mip}.png\"\n";
    write_input("../../../" + escape.filename().string());
    auto s = build_with(t, steps, yaml);
    REQUIRE(s.failed == 1);
    CHECK_THAT(s.actions[0].error, Catch::Contains("{entry}") && Catch::Contains("contains '..'"));
    CHECK_FALSE(fs::exists(escape.string() + "_0.png"));
    CHECK(files_below(t.path("out")).empty());

    write_input("top");
    s = build_with(t, steps, yaml);
    CHECK(s.failed == 0);
    CHECK(files_below(t.path("out")) == std::vector<std::string>{"a/top_0.png"});
}

TEST_CASE("input file names that are odd but safe still build", "[path-safety]") {
    TestProject t;
    t.write_png("src/..dots.png", 2, 2, 1);
    t.write_png("src/sub/x...png", 2, 2, 2);
    t.write_png("src/back\\slash.png", 2, 2, 3);
    std::string log;
    auto s = build_with(t, t.steps(),
                        // "..dots.png" starts with a dot: wildcards skip it, naming it reaches it.
                        "assetforge: 1\njobs:\n  j:\n    inputs: [ \"src/**/*.png\", \"src/..dots.png\" ]\n"
                        "    steps: [ invert ]\n    output: \"out/{dir}/{stem}.png\"\n",
                        &log);
    CHECK(s.built == 2);
    CHECK(files_below(t.path("out")) == std::vector<std::string>{"..dots.png", "sub/x...png"});
    // A backslash reads as a separator elsewhere ("..\\..\\x" climbs on Windows): refused by name.
    REQUIRE(s.failed == 1);
    CHECK_THAT(with_status(s, "failed")[0], Catch::Contains("back\\slash.png"));
    CHECK_THAT(log, Catch::Contains("contains a backslash"));
}

TEST_CASE("zip entry names must stay relative and inside the archive", "[path-safety][zip]") {
    std::string data = "x";
    std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(data.data()), data.size());
    struct Bad {
        std::string name, why;
    };
    for (const auto& b : std::vector<Bad>{{"", "is empty"},
                                          {"/etc/passwd", "is an absolute path"},
                                          {"../x", "contains '..'"},
                                          {"a/../../x", "contains '..'"},
                                          {"a/..", "contains '..'"},
                                          {"..\\..\\x", "contains a backslash"},
                                          {"a\\b", "contains a backslash"},
                                          {"C:x", "starts with a drive letter"},
                                          {"c:/windows/x", "starts with a drive letter"},
                                          {"./x", "contains a '.' component"},
                                          {"a//b", "contains '//'"},
                                          {"dir/", "ends with '/'"},
                                          {std::string("a\0/../../x", 10), "contains a control character"},
                                          {"a\nb", "contains a control character"}}) {
        INFO("entry name " << b.name);
        CHECK(unsafe_entry_reason(b.name) == b.why);
        CHECK_THROWS_WITH(make_zip({{b.name, bytes}}, ZipMethod::Store, 0),
                          Catch::Contains("zip: entry name") && Catch::Contains(b.why));
    }
    for (std::string good : {"a", "a/b/c.png", "..hidden", "x..", "ü/漢字.dds", "dir/a:b"})
        CHECK(unsafe_entry_reason(good).empty());
}

TEST_CASE("the zip gather refuses hostile entry names from steps and its prefix", "[path-safety][zip]") {
    TestProject t;
    t.write("src/x.bin", "payload");
    StepTable steps = steps_with_rename();
    for (std::string to : {"../../evil.bin", "/abs/evil.bin", "..\\evil.bin", "C:evil.bin", "./evil.bin"}) {
        INFO("item name " << to);
        auto s = build_with(t, steps,
                            "assetforge: 1\njobs:\n  p:\n    inputs: \"src/*.bin\"\n    steps: [ { rename: { to: " +
                                yaml_quoted(to) + " } } ]\n    gather: zip\n    output: \"out/mod.zip\"\n");
        REQUIRE(s.failed == 1);
        CHECK_THAT(s.actions[0].error, Catch::Contains("zip: entry name"));
        CHECK_FALSE(t.exists("out/mod.zip"));
    }
    auto s =
        build_with(t, steps,
                   "assetforge: 1\njobs:\n  p:\n    inputs: \"src/*.bin\"\n    gather: { zip: { prefix: \"../up\" } }\n"
                   "    output: \"out/mod.zip\"\n");
    REQUIRE(s.failed == 1);
    CHECK_THAT(s.actions[0].error, Catch::Contains("'../up/x.bin' contains '..'"));
    CHECK_FALSE(t.exists("out/mod.zip"));
}

TEST_CASE("a directory link out of the output root is refused, never written through", "[path-safety][symlink]") {
    TestProject t;
    t.write_png("src/sub/a.png", 4, 4, 1);
    t.write_png("src/b.png", 4, 4, 2);
    const fs::path elsewhere = outside(t, "dir");
    fs::create_directories(elsewhere);
    fs::create_directories(t.path("out"));
    fs::create_directory_symlink(elsewhere, t.path("out/sub"));
    std::string log;
    const char* yaml = "assetforge: 1\njobs:\n  j:\n    inputs: \"src/**/*.png\"\n    steps: [ invert ]\n"
                       "    output: \"out/{dir}/{stem}.png\"\n";
    auto s = build_with(t, t.steps(), yaml, &log);
    CHECK(s.built == 1); // b.png does not go through the link
    REQUIRE(s.failed == 1);
    CHECK(with_status(s, "failed") == std::vector<std::string>{"j:src/sub/a.png"});
    CHECK_THAT(log, Catch::Contains("symbolic link") && Catch::Contains("out/sub") &&
                        Catch::Contains("outside the output root"));
    CHECK(files_below(elsewhere).empty());
    CHECK(fs::is_symlink(t.path("out/sub"))); // the user's link is left alone
    // The whole output directory as a link out of the root: the same.
    fs::remove(t.path("out/sub"));
    fs::remove_all(t.path("out"));
    fs::create_directory_symlink(elsewhere, t.path("out"));
    s = build_with(t, t.steps(), yaml, &log);
    CHECK(s.failed == 2);
    CHECK(files_below(elsewhere).empty());
    // A dangling link: refused as well, not created through.
    fs::remove(t.path("out"));
    fs::create_directories(t.path("out"));
    fs::create_directory_symlink(elsewhere / "not-yet", t.path("out/sub"));
    s = build_with(t, t.steps(), yaml, &log);
    CHECK(s.failed == 1);
    CHECK_THAT(log, Catch::Contains("dangling symbolic link"));
    CHECK_FALSE(fs::exists(elsewhere / "not-yet"));
    fs::remove_all(elsewhere);
}

TEST_CASE("links that stay inside the root are followed, and the root itself may be a link", "[path-safety][symlink]") {
    TestProject t;
    t.write_png("src/sub/a.png", 4, 4, 1);
    fs::create_directories(t.path("out/real"));
    fs::create_directory_symlink("real", t.path("out/sub"));
    auto s = build_with(t, t.steps(),
                        "assetforge: 1\njobs:\n  j:\n    inputs: \"src/**/*.png\"\n    steps: [ invert ]\n"
                        "    output: \"out/{dir}/{stem}.png\"\n");
    CHECK(s.failed == 0);
    CHECK(fs::is_regular_file(t.path("out/real/a.png")));

    // output_root names a link to a disk elsewhere: the user chose that place, and says so with --allow-path.
    TestProject u;
    const fs::path disk = outside(u, "root");
    fs::create_directories(disk);
    fs::create_directory_symlink(disk, u.path("dist"));
    u.write_png("src/a.png", 4, 4, 1);
    s = build_with(u, u.steps(),
                   "assetforge: 1\noutput_root: dist\njobs:\n  j:\n    inputs: \"src/*.png\"\n    steps: [ invert ]\n"
                   "    output: \"dist/{stem}.png\"\n",
                   nullptr, {disk});
    CHECK(s.failed == 0);
    // The build state lives in the output root too.
    CHECK(files_below(disk) == std::vector<std::string>{".assetforge/lock", ".assetforge/state.db", "a.png"});
    fs::remove_all(disk);
}

TEST_CASE("a link in place of an output file is replaced, its target never written", "[path-safety][symlink]") {
    TestProject t;
    t.write_png("src/a.png", 4, 4, 1);
    const fs::path victim = outside(t, "file");
    { std::ofstream(victim) << "precious"; }
    fs::create_directories(t.path("out"));
    fs::create_symlink(victim, t.path("out/a.png"));
    auto s = build_with(t, t.steps(),
                        "assetforge: 1\njobs:\n  j:\n    inputs: \"src/*.png\"\n    steps: [ invert ]\n"
                        "    output: \"out/{stem}.png\"\n");
    CHECK(s.built == 1);
    CHECK_FALSE(fs::is_symlink(t.path("out/a.png")));
    CHECK(fs::is_regular_file(t.path("out/a.png")));
    std::ifstream in(victim);
    std::string text((std::istreambuf_iterator<char>(in)), {});
    CHECK(text == "precious");
    fs::remove(victim);
}

TEST_CASE("stale-output removal and clean never delete through a link out of the root", "[path-safety][symlink]") {
    TestProject t;
    t.write_png("src/sub/a.png", 4, 4, 1);
    const char* yaml = "assetforge: 1\njobs:\n  j:\n    inputs: \"src/**/*.png\"\n    steps: [ invert ]\n"
                       "    output: \"out/{dir}/{stem}.png\"\n    allow_empty: true\n";
    REQUIRE(build_with(t, t.steps(), yaml).built == 1);
    // Someone swaps the output folder for a link to a folder holding a file of the same name.
    const fs::path elsewhere = outside(t, "stale");
    fs::create_directories(elsewhere);
    { std::ofstream(elsewhere / "a.png") << "not ours"; }
    fs::remove_all(t.path("out/sub"));
    fs::create_directory_symlink(elsewhere, t.path("out/sub"));

    // Clean first (on a copy of the state), then the vanished-input removal.
    const fs::path saved_state = outside(t, "state");
    fs::copy(t.path(".assetforge"), saved_state, fs::copy_options::recursive);
    auto c = clean_outputs(load_pipeline(t.path("pipeline.yaml"), {}, t.steps()), CleanOptions{});
    CHECK(c.removed_files == 0);
    REQUIRE(c.refused.size() == 1);
    CHECK_THAT(c.refused[0], Catch::Contains("symbolic link"));
    CHECK(fs::exists(elsewhere / "a.png"));
    fs::remove_all(t.path(".assetforge"));
    fs::copy(saved_state, t.path(".assetforge"), fs::copy_options::recursive);
    fs::remove_all(saved_state);

    fs::remove(t.path("src/sub/a.png"));
    std::string log;
    auto s = build_with(t, t.steps(), yaml, &log);
    CHECK(s.removed == 1);
    CHECK_THAT(log, Catch::Contains("not removing stale output") && Catch::Contains("symbolic link"));
    CHECK(fs::exists(elsewhere / "a.png"));
    fs::remove_all(elsewhere);
}

TEST_CASE("check_no_link_escape on its own", "[path-safety][symlink]") {
    TestProject t;
    fs::create_directories(t.path("out/a"));
    CHECK_NOTHROW(check_no_link_escape(t.path("out/a/b/c.png"), t.root()));
    CHECK_THROWS_WITH(check_no_link_escape(t.path("../x.png"), t.root()), Catch::Contains("not inside"));
    CHECK_THROWS_WITH(check_no_link_escape(t.root(), t.root()), Catch::Contains("not inside"));
    fs::create_directory_symlink("/", t.path("out/a/up"));
    CHECK_THROWS_WITH(check_no_link_escape(t.path("out/a/up/etc/x"), t.root()), Catch::Contains("out/a/up"));
    // A chain of links: the first stays inside, the second leads out.
    fs::create_directory_symlink("a", t.path("out/alias"));
    CHECK_THROWS_WITH(check_no_link_escape(t.path("out/alias/up/x"), t.root()), Catch::Contains("symbolic link"));
    CHECK_NOTHROW(check_no_link_escape(t.path("out/alias/x"), t.root()));
}
