// One file name that is not UTF-8 (byte 0xff) in a build: every
// machine-readable output stays valid (JSON parses, JUnit XML is well formed)
// and still names the file (U+FFFD for the bad byte, the raw bytes in base64).
#include "cli_run.hpp"
#include "support/project.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace fs = std::filesystem;
using namespace af::test;

namespace {

const std::string kBadName = "b\xff";              // not UTF-8: a lone 0xff byte
const std::string kBadBase64 = "c3JjL2L/LnBuZw=="; // "src/b\xff.png"

nlohmann::json parse(const std::string& text) {
    try {
        return nlohmann::json::parse(text);
    } catch (const std::exception& e) {
        FAIL("not valid JSON: " << e.what() << "\n" << text.substr(0, 2000));
    }
    return {};
}

// Well-formed XML, by the Python standard library's parser (expat).
bool xml_well_formed(const fs::path& file) {
    return run_shell("/usr/bin/python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' '" +
                     file.string() + "'")
               .code == 0;
}

void project(const TempDir& t) {
    t.copy(kRockImage, "src/a.png");
    t.copy(kRockImage, "src/" + kBadName + ".png");
    t.write("src/c" + kBadName + ".png", "not a png"); // fails: the name is in the failure's text too
    t.write("pipeline.yaml", std::string(kMipsPipeline) + R"(  package:
    from: textures
    gather:
      zip: { manifest: manifest.json }
    output: "out/mod.zip"
)");
}

} // namespace

TEST_CASE("a non-UTF-8 file name: status --json stays valid JSON", "[names][utf8]") {
    TempDir t("af-utf8-names");
    project(t);
    auto r = run_cli("status --json", t.path());
    INFO(r.out);
    auto doc = parse(r.out.substr(r.out.find('{')));
    bool seen = false;
    for (const auto& a : doc.at("actions"))
        if (a.contains("input_base64")) {
            seen = seen || a.at("input_base64") == kBadBase64;
            CHECK_THAT(a.at("input").get<std::string>(), Catch::Contains("\xEF\xBF\xBD"));
        }
    CHECK(seen);
}

TEST_CASE("a non-UTF-8 file name: --report JSON, JUnit XML and --trace stay valid", "[names][utf8]") {
    TempDir t("af-utf8-names");
    project(t);
    auto r = run_cli("build --report r.json --trace t.json", t.path());
    INFO(r.out);
    CHECK(r.code == 1); // src/c\xff.png fails; the rest builds
    CHECK(r.out.find("json.exception") == std::string::npos);
    auto report = parse(slurp(t / "r.json"));
    bool seen = false;
    for (const auto& a : report.at("actions"))
        if (a.value("input_base64", "") == kBadBase64) {
            seen = true;
            CHECK(a.at("status") == "built");
            CHECK(a.contains("outputs_base64"));
        }
    CHECK(seen);
    auto trace = parse(slurp(t / "t.json"));
    bool traced = false;
    for (const auto& e : trace.at("traceEvents"))
        if (e.contains("args") && e.at("args").value("input_base64", "") == kBadBase64) traced = true;
    CHECK(traced);

    auto x = run_cli("build --report r.xml", t.path());
    INFO(x.out);
    CHECK(x.code == 1);
    REQUIRE(fs::exists(t / "r.xml"));
    CHECK(xml_well_formed(t / "r.xml"));
    CHECK_THAT(slurp(t / "r.xml"), Catch::Contains("src/cb\xEF\xBF\xBD.png"));
}

TEST_CASE("a non-UTF-8 file name: the zip manifest names the file", "[names][utf8]") {
    TempDir t("af-utf8-names");
    project(t);
    fs::remove(t / ("src/c" + kBadName + ".png"));
    auto r = run_cli("build", t.path());
    INFO(r.out);
    REQUIRE(r.code == 0);
    t.write("manifest.py", "import sys, zipfile, json\n"
                           "print(json.dumps(json.loads(zipfile.ZipFile(sys.argv[1]).read('manifest.json'))))\n");
    auto list =
        run_shell("/usr/bin/python3 '" + (t / "manifest.py").string() + "' '" + (t / "out/mod.zip").string() + "'");
    INFO(list.out);
    REQUIRE(list.code == 0);
    auto manifest = parse(list.out);
    bool seen = false;
    for (const auto& f : manifest.at("files"))
        if (f.value("name_base64", "") == "Yv8uZGRz") { // "b\xff.dds"
            seen = true;
            CHECK(f.at("name") == "b\xEF\xBF\xBD.dds");
        }
    CHECK(seen);
}
