// `assetforge steps`: every step a pipeline can name, built in or a loaded
// plugin's stage, with its parameters and provider; and the step reference
// in docs/steps.md, which is generated from it, never drifts from the binary.
#include "cli_run.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace fs = std::filesystem;
using af::test::Run;
using Catch::Contains;

namespace {

nlohmann::json steps_json() {
    Run r = af::test::run_cli("steps --json");
    INFO(r.out);
    REQUIRE(r.code == 0);
    return nlohmann::json::parse(r.out);
}

const nlohmann::json& step(const nlohmann::json& all, const std::string& name) {
    for (const auto& s : all)
        if (s["name"] == name) return s;
    FAIL("no step " << name);
    throw 0;
}

const nlohmann::json& param(const nlohmann::json& s, const std::string& name) {
    for (const auto& p : s["params"])
        if (p["name"] == name) return p;
    FAIL("step " << s["name"] << " has no parameter " << name);
    throw 0;
}

// The lines of `text` between the line starting with `begin` and the one starting with `end`.
std::string between(const std::string& text, const std::string& begin, const std::string& end) {
    size_t b = text.find("\n" + begin);
    REQUIRE(b != std::string::npos);
    b = text.find('\n', b + 1) + 1;
    size_t e = text.find("\n" + end, b - 1);
    REQUIRE(e != std::string::npos);
    return text.substr(b, e + 1 - b);
}

} // namespace

TEST_CASE("steps --json lists built-in steps and every plugin's stages with their parameters", "[steps][e2e]") {
    unsetenv("ASSETFORGE_PLUGIN_PATH");
    const auto all = steps_json();
    for (const char* name :
         {"copy", "zip", "read", "decode", "encode", "mips", "resize", "channels", "write", "extract"}) {
        INFO(name);
        CHECK(step(all, name)["plugin"].is_null());
    }
    const auto& decode = step(all, "decode");
    CHECK(decode["takes"] == "texture");
    CHECK(param(decode, "to")["type"] == "enum");
    CHECK(param(decode, "to")["default"] == "auto");
    CHECK(param(decode, "to")["choices"] == nlohmann::json({"auto", "rgba8", "rgba32f"}));
    const auto& zip = step(all, "zip");
    CHECK(zip["kind"] == "gather");
    CHECK(param(zip, "level")["min"] == 0);
    CHECK(param(zip, "level")["max"] == 9);
    CHECK(step(all, "resize")["params"][2]["min_exclusive"] == true);
    // encode hands the codecs' options on; they are listed by name.
    CHECK(step(all, "encode")["other_params"].is_array());
    CHECK_FALSE(step(all, "encode")["other_params"].empty());
    // ... and per container or codec, each with its own type and default: dds's `srgb` reads a legacy file.
    const nlohmann::json* dds_read = nullptr;
    for (const auto& o : step(all, "read")["options_by_owner"])
        if (o["owner"] == "dds") dds_read = &o;
    REQUIRE(dds_read);
    bool srgb = false;
    for (const auto& o : (*dds_read)["options"])
        if (o["name"] == "srgb") {
            srgb = true;
            CHECK(o["type"] == "bool");
            CHECK(o["default"] == "false");
            CHECK_THAT(o["doc"].get<std::string>(), Catch::Contains("legacy"));
        }
    CHECK(srgb);
    auto text = af::test::run_cli("steps read");
    REQUIRE(text.code == 0);
    CHECK_THAT(text.out, Catch::Contains("      dds:") && Catch::Contains("permissive"));

    // The Xbox swizzle comes from the xtf plugin, on raw bytes.
    const auto& swizzle = step(all, "swizzle");
    CHECK(swizzle["plugin"] == "xtf");
    CHECK(fs::path(swizzle["plugin_file"].get<std::string>()).filename() == "af_xtf.so");
    CHECK(swizzle["takes"] == "any");
    CHECK(param(swizzle, "width")["required"] == true);
    CHECK(param(swizzle, "width")["type"] == "integer");
    CHECK(param(swizzle, "depth")["default"] == "1");
    CHECK(step(all, "deswizzle")["plugin"] == "xtf");
    CHECK(step(all, "pages.extract")["plugin"] == "vtpages");
    CHECK(step(all, "pages.extract")["meta_keys"].is_array());
    // Built-in steps come first, then each plugin's stages.
    bool plugins_started = false;
    for (const auto& s : all) {
        if (!s["plugin"].is_null()) plugins_started = true;
        CHECK((s["plugin"].is_null() || plugins_started));
        if (plugins_started) CHECK_FALSE(s["plugin"].is_null());
    }
}

TEST_CASE("a stage whose plugin declares no parameters is listed as taking any", "[steps][e2e]") {
    setenv("ASSETFORGE_PLUGIN_PATH", AF_TEST_PLUGIN_DIR, 1);
    const auto all = steps_json();
    unsetenv("ASSETFORGE_PLUGIN_PATH");
    const auto& old = step(all, "old.passthrough");
    CHECK(old["plugin"] == "abi_old");
    CHECK(old["params"].empty());
    CHECK(old["other_params"] == "any");
    CHECK(old["meta_keys"].is_null());
}

TEST_CASE("steps prints a readable listing, one step or all", "[steps][e2e]") {
    unsetenv("ASSETFORGE_PLUGIN_PATH");
    Run r = af::test::run_cli("steps");
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Contains("decode  (built in, map, texture)\n"
                               "  converts a texture to RGBA8, or RGBA32F for formats with more range (signed data "
                               "mapped to 0..1); sets {edit_ext}: exr for float and BC6H textures, png for the "
                               "rest; and {surface}: which surface an item is (docs/edit-formats.md)\n"
                               "    to        enum = auto  target pixel type [auto, rgba8, rgba32f]\n"
                               "    surfaces  enum = all   all: a texture of several layers, faces or depth slices "));
    CHECK_THAT(r.out, Contains("swizzle  (plugin xtf, map)\n"));
    CHECK_THAT(r.out, Contains("    width   integer, required  surface width in texels [1..65536]\n"));

    r = af::test::run_cli("steps zip");
    REQUIRE(r.code == 0);
    CHECK(r.out.rfind("zip  (built in, gather)\n", 0) == 0);
    CHECK(r.out.find("decode") == std::string::npos);

    r = af::test::run_cli("steps decod");
    CHECK(r.code == 2);
    CHECK_THAT(r.out, Contains("'decod' is not a valid step") && Contains("did you mean 'decode'"));
    CHECK(af::test::run_cli("steps --json --markdown").code == 2);
}

TEST_CASE("the step reference in docs/steps.md is what assetforge steps --markdown prints", "[steps][docs][e2e]") {
    unsetenv("ASSETFORGE_PLUGIN_PATH"); // the reference lists the in-tree plugins only
    Run r = af::test::run_cli("steps --markdown");
    REQUIRE(r.code == 0);
    const fs::path reference = fs::path(AF_SOURCE_DIR) / "docs/steps.md";
    const std::string documented =
        between(af::test::slurp(reference), "<!-- BEGIN step reference", "<!-- END step reference");
    INFO("docs/steps.md differs from `assetforge steps --markdown`: run scripts/update-step-docs.sh");
    CHECK(documented == r.out);
}
