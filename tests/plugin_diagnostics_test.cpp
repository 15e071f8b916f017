// Plugin diagnostics (issue 29, item 3): every plugin log line and read
// warning names the file it concerns, on the terminal and in the JSON, JUnit
// and HTML reports, in process and from a worker; failed plugin loads are
// named once where a file or step might have been theirs, and `plugins`
// exits 1 on a failed load or a clash.
#include "cli_run.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <optional>
#include <string>

namespace fs = std::filesystem;
using namespace af::test;

namespace {

struct PluginPath {
    explicit PluginPath(const std::string& dir) { setenv("ASSETFORGE_PLUGIN_PATH", dir.c_str(), 1); }
    ~PluginPath() { unsetenv("ASSETFORGE_PLUGIN_PATH"); }
};

size_t count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
    return n;
}

constexpr const char* kPipeline = R"(assetforge: 1
jobs:
  textures:
    inputs: "src/*"
    steps: [ decode ]
    output: "out/{stem}.png"
)";

} // namespace

TEST_CASE("plugin diagnostics: log lines and read warnings name the file, on the terminal and in every report",
          "[diagnostics]") {
    PluginPath path(AF_HOSTILE_PLUGIN_DIR);
    TempDir t;
    t.write("pipeline.yaml", kPipeline);
    t.write("src/x.hostile", "HSTLl\x20");
    // The plugin's input is the item x.hostile (named from the glob's folder); the action's is src/x.hostile.
    const std::string warning = "x.hostile: hostile says hello (plugin 'hostile')";
    const std::string read_warning = "x.hostile: offset 5: hostile warns (plugin 'hostile')";
    const std::string info = "x.hostile: hostile informs (plugin 'hostile')";
    for (const char* isolate : {"third-party", "none"}) {
        SECTION(std::string("--isolate ") + isolate) {
            // One report a build; each build reads the file afresh (its 6th byte changes), so the action runs.
            char shade = 0x20;
            auto fresh_build = [&](const std::string& report) {
                t.write("src/x.hostile", std::string("HSTLl") + char(shade++));
                return run_in(t.path(), std::string("build --isolate ") + isolate + " --report " + report);
            };
            Run r = fresh_build("report.json");
            INFO(r.out);
            CHECK(r.code == 0);
            CHECK_THAT(r.out, Catch::Contains("warning: textures: src/x.hostile: " + warning) &&
                                  Catch::Contains("warning: textures: src/x.hostile: " + read_warning) &&
                                  Catch::Contains("assetforge: info: " + info));
            // Said once each: a warning is printed with the action's result, not also as it happened.
            CHECK(count(r.out, "hostile says hello") == 1);
            CHECK(count(r.out, "hostile warns") == 1);
            CHECK(count(r.out, "hostile informs") == 1);
            CHECK_THAT(r.out, !Catch::Contains("hostile debugs"));

            const auto json = nlohmann::json::parse(slurp(t / "report.json"));
            std::string metrics;
            for (const auto& a : json["actions"])
                if (a.contains("metrics")) metrics += a["metrics"].dump();
            CHECK_THAT(metrics, Catch::Contains("\"warnings\":[\"" + warning + "\",\"" + read_warning + "\"]") &&
                                    Catch::Contains("\"plugin_log\":[\"" + info + "\"]"));

            Run x = fresh_build("report.xml");
            CHECK(x.code == 0);
            const std::string xml = slurp(t / "report.xml");
            CHECK_THAT(xml, Catch::Contains("<system-err>warning: x.hostile: hostile says hello (plugin "));
            CHECK_THAT(xml, Catch::Contains("warning: x.hostile: offset 5: hostile warns (plugin "));
            CHECK_THAT(xml, Catch::Contains("<system-out>x.hostile: hostile informs (plugin "));

            Run h = fresh_build("report.html");
            CHECK(h.code == 0);
            const std::string html = slurp(t / "report.html");
            CHECK_THAT(html, Catch::Contains("x.hostile: hostile says hello") &&
                                 Catch::Contains("x.hostile: offset 5: hostile warns") &&
                                 Catch::Contains("x.hostile: hostile informs"));

            SECTION("an up-to-date action shows the warnings its outputs were made with") {
                Run again = run_in(t.path(), std::string("build --isolate ") + isolate);
                INFO(again.out);
                CHECK(again.code == 0);
                CHECK_THAT(again.out, Catch::Contains(read_warning + " (from an earlier build)"));
            }
        }
    }
}

TEST_CASE("plugin diagnostics: a line from a call given no file (a write) names the action's input", "[diagnostics]") {
    PluginPath path(AF_HOSTILE_PLUGIN_DIR);
    TempDir t;
    t.write("pipeline.yaml", R"(assetforge: 1
jobs:
  copies:
    inputs: "src/*.hostile"
    steps: [ decode ]
    output: "out/{stem}.hostile"
)");
    t.write("src/a.hostile", "HSTLo\x30");
    for (const char* isolate : {"third-party", "none"}) {
        SECTION(std::string("--isolate ") + isolate) {
            Run r = run_in(t.path(), std::string("build --isolate ") + isolate + " --report report.json");
            INFO(r.out);
            CHECK(r.code == 0);
            CHECK(slurp(t / "out/a.hostile") == "HSTLo\x30");
            CHECK_THAT(r.out, Catch::Contains("assetforge: info: a.hostile: hostile writes (plugin 'hostile')"));
            CHECK_THAT(slurp(t / "report.json"), Catch::Contains("a.hostile: hostile writes (plugin 'hostile')"));
        }
    }
}

TEST_CASE("plugin diagnostics: ASSETFORGE_DEBUG shows a plugin's debug lines, with the file", "[diagnostics]") {
    PluginPath path(AF_HOSTILE_PLUGIN_DIR);
    TempDir t;
    t.write("pipeline.yaml", kPipeline);
    t.write("src/x.hostile", "HSTLl\x20");
    Run quiet = run_in(t.path(), "build --isolate none");
    CHECK(quiet.code == 0);
    CHECK_THAT(quiet.out, !Catch::Contains("assetforge: debug:"));
    t.write("src/x.hostile", "HSTLl\x21"); // changed: the action runs again
    setenv("ASSETFORGE_DEBUG", "1", 1);
    Run debug = run_in(t.path(), "build");
    unsetenv("ASSETFORGE_DEBUG");
    INFO(debug.out);
    CHECK(debug.code == 0);
    CHECK_THAT(debug.out, Catch::Contains("assetforge: debug: x.hostile: hostile debugs (plugin 'hostile')"));
}

TEST_CASE("plugin diagnostics: build, convert and info name the plugins that failed to load, once", "[diagnostics]") {
    PluginPath path(AF_TEST_PLUGIN_DIR); // abi_wrong_major, abi_no_entry, … fail to load
    TempDir t;
    t.write("pipeline.yaml", kPipeline);
    for (const char* n : {"a", "b", "c"}) t.write(std::string("src/") + n + ".unk", "not a texture");
    Run b = run_in(t.path(), "build -j1");
    INFO(b.out);
    CHECK(b.code == 1);
    CHECK(count(b.out, "unknown format") == 3);
    CHECK(count(b.out, "failed to load") == 1);
    CHECK_THAT(b.out, Catch::Contains("abi_wrong_major.so: built for plugin API"));

    Run c = run_in(t.path(), "convert src/a.unk a.png");
    INFO(c.out);
    CHECK(c.code == 1);
    CHECK(count(c.out, "failed to load") == 1);

    Run i = run_in(t.path(), "info src/a.unk src/b.unk");
    INFO(i.out);
    CHECK(i.code == 1);
    CHECK(count(i.out, "failed to load") == 1);
}

TEST_CASE("plugin diagnostics: `plugins` exits 1 when two plugins clash", "[diagnostics][plugins]") {
    PluginPath path(std::string(AF_TEST_PLUGIN_DIR) + "/clash_plugins"); // two plugins with stage twin.stage
    Run r = run_cli("plugins");
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("CLASH") && Catch::Contains("twin.stage"));
    Run j = run_cli("plugins --json");
    CHECK(j.code == 1);
}

namespace {

// A 2x2 RGBA8 PNG of two colours, (16,32,48) above (64,80,96), opaque.
constexpr char kTwoColourPng[] =
    "\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x02\x00\x00\x00"
    "\x02\x08\x06\x00\x00\x00\x72\xb6\x0d\x24\x00\x00\x00\x15\x49\x44\x41\x54\x78\x9c\x63\x10\x50"
    "\x30\xf8\x0f\xc2\x0c\x0e\x01\x09\xff\x41\x18\x00\x31\x54\x06\x9d\x55\x45\xe6\x88\x00\x00\x00"
    "\x00\x49\x45\x4e\x44\xae\x42\x60\x82";

} // namespace

TEST_CASE("plugin diagnostics: a third-party writer that changes the texels: the report's PSNR is of the file read "
          "back through its container, not of what was handed to the writer",
          "[diagnostics]") {
    PluginPath path(AF_HOSTILE_PLUGIN_DIR);
    TempDir t;
    // The hostile writer keeps one byte of the texture: its file reads back as a 2x2 of that byte, every channel.
    t.write("pipeline.yaml", "assetforge: 1\njobs:\n  lossy:\n    inputs: \"src/*.png\"\n"
                             "    steps: [ encode: { format: rgba8 } ]\n    output: \"out/{stem}.hostile\"\n");
    t.write("src/a.png", std::string(kTwoColourPng, sizeof kTwoColourPng - 1));
    Run r = run_in(t.path(), "build --report report.json");
    INFO(r.out);
    REQUIRE(r.code == 0);
    REQUIRE(slurp(t / "out/a.hostile") == "HSTLo\x10");
    const auto json = nlohmann::json::parse(slurp(t / "report.json"));
    std::optional<double> psnr;
    for (const auto& a : json["actions"])
        if (a.contains("metrics") && a["metrics"].contains("psnr_rgb")) psnr = a["metrics"]["psnr_rgb"].get<double>();
    INFO(json.dump());
    REQUIRE(psnr);
    // RGB (16,32,48) and (64,80,96) read back as (16,16,16): about 14.4 dB, not the 99 (identical) of the RGBA8
    // the writer was handed.
    CHECK(*psnr < 20);
    // The format the file holds (the hostile reader knows no sRGB tag), and that its writer stored it.
    const auto& metrics = json["actions"][0]["metrics"];
    CHECK(metrics["format"] == "R8G8B8A8_UNORM");
    CHECK_THAT(metrics["format_reason"].get<std::string>(), Catch::Contains("the writer stored R8G8B8A8_UNORM"));
}

TEST_CASE("plugin diagnostics: a writer that stores an encoding the format table has no name for: the build's report "
          "and convert's summary name what its reader says the file holds",
          "[diagnostics]") {
    PluginPath path(AF_HOSTILE_PLUGIN_DIR);
    TempDir t;
    // A texture whose red is 'Q' is written as a 'q' file, which the reader decodes and names "HSTL-Q1".
    t.write("pipeline.yaml", "assetforge: 1\njobs:\n  stored:\n    inputs: \"src/*.hostile\"\n"
                             "    steps: [ decode ]\n    output: \"out/{stem}.hostile\"\n");
    t.write("src/a.hostile", "HSTLoQ");
    Run r = run_in(t.path(), "build --report report.json");
    INFO(r.out);
    REQUIRE(r.code == 0);
    REQUIRE(slurp(t / "out/a.hostile") == "HSTLqQ");
    const auto json = nlohmann::json::parse(slurp(t / "report.json"));
    INFO(json.dump());
    const auto& metrics = json["actions"][0]["metrics"];
    CHECK(metrics["format"] == "HSTL-Q1");
    CHECK(metrics["format_reason"] == "the container's writer stored it");

    Run c = run_in(t.path(), "convert src/a.hostile b.hostile");
    INFO(c.out);
    CHECK(c.code == 0);
    CHECK_THAT(c.out,
               Catch::Contains("→ b.hostile: HSTL-Q1, read back as R8G8B8A8_UNORM (the hostile writer stored it"));
}
