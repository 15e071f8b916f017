// The JUnit and HTML reports as functions of a summary, no build around them: what CI systems and a browser read.
#include "report/html_report.hpp"
#include "report/junit_report.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>

using namespace af::engine;

namespace {

ActionResult action(const std::string& job, const std::string& input, ActionStatus status) {
    ActionResult r;
    r.job = job;
    r.input = input;
    r.inputs = {input};
    r.status = status;
    return r;
}

BuildSummary summary() {
    BuildSummary s;
    auto ok = action("textures", "src/a.png", ActionStatus::Built);
    ok.outputs = {"out/a.dds"};
    ok.metrics = {{"format", "BC7_UNORM_SRGB"}, {"format_reason", "alpha"}, {"psnr_rgb", 41.5}};
    auto bad = action("textures", "src/<b>&.png", ActionStatus::Failed);
    bad.failed_step = "encode";
    bad.error = "src/<b>&.png: truncated at offset 33";
    auto skipped = action("previews", "out/b.dds", ActionStatus::NotRun);
    auto gone = action("textures", "src/old.png", ActionStatus::Removed);
    s.actions = {ok, bad, skipped, gone};
    s.built = 1, s.failed = 1, s.not_run = 1, s.removed = 1;
    return s;
}

size_t count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t p = 0; (p = text.find(what, p)) != std::string::npos; p += what.size()) ++n;
    return n;
}

} // namespace

TEST_CASE("junit: a suite per job, a case per action, failures and skips as CI tools read them", "[report]") {
    const std::string x = junit_xml(summary(), 2.5);
    INFO(x);
    CHECK(x.rfind("<?xml", 0) == 0);
    CHECK(count(x, "<testsuite ") == 2);
    CHECK(count(x, "<testcase ") == 3); // the removed output is not a test case
    CHECK(count(x, "<failure") == 1);
    CHECK(count(x, "<skipped") == 1);
    // Markup in names and messages is escaped, never passed through.
    CHECK(x.find("src/<b>") == std::string::npos);
    CHECK(x.find("src/&lt;b&gt;&amp;.png") != std::string::npos);
    CHECK(x.find("truncated at offset 33") != std::string::npos);
}

TEST_CASE("html: one self-contained page, failures first, names escaped, figures shown", "[report]") {
    const auto root = std::filesystem::temp_directory_path();
    const std::string page = html_report(summary(), "/proj/pipeline.yaml", 2.5, root);
    INFO(page.substr(0, 2000));
    CHECK(page.rfind("<!DOCTYPE html>", 0) == 0);
    // Self-contained: no external script, style sheet or font.
    CHECK(page.find("<script src") == std::string::npos);
    CHECK(page.find("<link ") == std::string::npos);
    CHECK(page.find("http://") == std::string::npos);
    CHECK(page.find("https://") == std::string::npos);
    // The failure's row comes before the built one's.
    const size_t failed = page.find("src/&lt;b&gt;&amp;.png"), built = page.find("src/a.png");
    REQUIRE(failed != std::string::npos);
    REQUIRE(built != std::string::npos);
    CHECK(failed < built);
    CHECK(page.find("src/<b>") == std::string::npos);
    CHECK(page.find("BC7_UNORM_SRGB") != std::string::npos);
    CHECK(page.find("41.50") != std::string::npos);
    CHECK(is_html_report("r.html"));
    CHECK(is_html_report("r.htm"));
    CHECK_FALSE(is_html_report("r.json"));
}
