// The JUnit and HTML reports as functions of a summary, no build around them: what CI systems and a browser read.
#include "report/figures_record.hpp"
#include "report/html_report.hpp"
#include "report/junit_report.hpp"
#include "report/pictures_option.hpp"
#include "report/report_images.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <unistd.h>

using namespace af::base;
using namespace af::report;

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
    ok.results.format = "BC7_UNORM_SRGB";
    ok.results.format_reason = "alpha";
    ok.results.psnr_rgb = 41.5;
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
    const size_t failed = page.find("src/<wbr>&lt;b&gt;&amp;.png"), built = page.find("src/<wbr>a.png");
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

namespace {

// A built texture action with figures: a BC5 result of an RGBA source (blue and alpha dropped, the step said so).
ActionResult pictured(const std::string& root) {
    auto a = action("textures", root + "/src/leaf.png", ActionStatus::Built);
    a.inputs = {root + "/src/leaf.png"};
    a.outputs = {root + "/out/leaf.dds"};
    a.results.format = "BC5_UNORM";
    a.results.warnings = {
        "alpha dropped: the source's smooth alpha is not all 255 and BC5_UNORM has no alpha channel",
        "blue dropped: BC5_UNORM stores red and green only (not a normal map, whose blue the shader rebuilds)"};
    auto f = std::make_shared<ReportFigures>();
    f->id = "0123456789abcdef";
    f->width = f->height = f->result_width = f->result_height = 2048;
    f->picture_width = f->picture_height = f->result_picture_width = f->result_picture_height = 2048;
    f->compared = f->difference = f->alpha_picture = true;
    f->max_error = {3 / 255.0, 4 / 255.0, 240 / 255.0, 1.0};
    f->psnr = {40.0, 39.0, 5.0, 2.0};
    f->psnr_rgb = 9.5;
    f->colour_scale = 4 / 255.0, f->alpha_scale = 1.0;
    f->kept = 0x3; // R and G
    f->result_format = "BC5_UNORM";
    f->bytes = 3 << 20;
    a.images = f;
    return a;
}

std::vector<std::string> headers(const std::string& page) {
    std::vector<std::string> out;
    static const std::regex th("<th[^>]*>([^<]*)</th>");
    for (auto it = std::sregex_iterator(page.begin(), page.end(), th); it != std::sregex_iterator(); ++it)
        out.push_back((*it)[1]);
    return out;
}

} // namespace

TEST_CASE("html: no absolute path anywhere, and no column that no row fills", "[report]") {
    const std::string root = "/home/modder/projects/palms";
    BuildSummary s;
    auto a = pictured(root);
    a.reason = "input " + root + "/src/leaf.png changed";
    auto b = action("textures", root + "/src/bark.png", ActionStatus::UpToDate);
    b.outputs = {"out/bark.dds"};
    s.actions = {a, b};
    s.built = 1, s.up_to_date = 1;
    const std::string page = html_report(s, root + "/pipeline.yaml", 1.0, root, "build.html.d/");
    INFO(page);
    CHECK(page.find("/home/") == std::string::npos);
    CHECK(page.find("assetforge build: pipeline.yaml") != std::string::npos);
    CHECK(page.find("src/<wbr>leaf.png") != std::string::npos);
    CHECK(page.find("input src/<wbr>leaf.png changed") != std::string::npos); // paths in messages wrap at slashes
    // No failure and no ms-less texture: the error column stays, for the warnings; nothing else is empty.
    const auto h = headers(page);
    CHECK(std::find(h.begin(), h.end(), "error, warnings") != h.end());
    // The pictures and figures come before the long texts, so a laptop shows them.
    const auto pos = [&](const std::string& name) { return std::find(h.begin(), h.end(), name) - h.begin(); };
    CHECK(pos("source, result (mip 0)") < pos("error, warnings"));
    CHECK(pos("PSNR RGB (dB)") < pos("format (why)"));

    // Without warnings or failures the error column goes; without pictures, the picture columns.
    BuildSummary quiet;
    auto c = action("copy", "src/readme.txt", ActionStatus::Built);
    c.outputs = {"out/readme.txt"};
    quiet.actions = {c};
    const auto hq = headers(html_report(quiet, root + "/pipeline.yaml", 1.0, root));
    for (const char* gone : {"error, warnings", "source, result (mip 0)", "PSNR RGB (dB)", "PSNR per channel (dB)",
                             "max error (of 255)", "format (why)"})
        CHECK(std::find(hq.begin(), hq.end(), gone) == hq.end());
    CHECK(std::find(hq.begin(), hq.end(), "outputs") != hq.end());
    // The sorting script's indices follow the columns shown.
    CHECK(html_report(quiet, "pipeline.yaml", 1.0, root).find("srt(" + std::to_string(hq.size()) + ")") ==
          std::string::npos);
}

TEST_CASE("html: the difference of what the format keeps, the dropped channels said, the pictures' bytes", "[report]") {
    BuildSummary s;
    s.actions = {pictured("/p")};
    s.built = 1;
    const std::string page = html_report(s, "/p/pipeline.yaml", 1.0, "/p", "build.html.d/");
    INFO(page);
    // A picture of its own for the colour a player sees and for alpha.
    CHECK(page.find("src=\"build.html.d/0123456789abcdef.diff.png\"") != std::string::npos);
    CHECK(page.find("src=\"build.html.d/0123456789abcdef.alpha.png\"") != std::string::npos);
    // The caption: the kept channels only, the largest error of those (4/255, not 255/255), and why.
    CHECK(page.find("|result − source| of R, G ×64") != std::string::npos);
    CHECK(page.find("(largest 4/255)") != std::string::npos);
    CHECK(page.find("texels with alpha 0 are not counted") != std::string::npos);
    CHECK(page.find("not kept by the result (BC5_UNORM): B") != std::string::npos);
    CHECK(page.find("the result keeps no alpha") != std::string::npos);
    CHECK(page.find("information dropped: alpha dropped") != std::string::npos);
    CHECK(page.find("information dropped: blue dropped") != std::string::npos);
    CHECK(page.find("A 255 <small class=\"warn\">(not kept)</small>") != std::string::npos);
    // 2048²: a figure of its own row, at the page's width.
    CHECK(page.find("<figure class=\"wide\">") != std::string::npos);
    // What the pictures take on disk.
    CHECK(page.find("data-v=\"3145728\">3.0 MiB</span> on disk in build.html.d/") != std::string::npos);
}

TEST_CASE("html: the figures kept for the next build read back as they were written", "[report]") {
    const ReportFigures f = *pictured("/p").images;
    const auto kept = parse_kept_figures(kept_figures_text({{f.id, {"key1", f}}}));
    REQUIRE(kept.count(f.id));
    const KeptFigures& k = kept.at(f.id);
    CHECK(k.key == "key1");
    CHECK(figures_json(k.figures) == figures_json(f));
    CHECK(parse_kept_figures("{\"actions\": [{\"key\": 1}]}").empty()); // malformed: nothing, never a throw
    CHECK(parse_kept_figures("not json").empty());
}

TEST_CASE("html: --report-pictures takes none, thumbs, full and full=MAXPX, anything else names the valid values",
          "[report]") {
    CHECK_FALSE(parse_pictures_option("none").on);
    CHECK_FALSE(parse_pictures_option("false").on);
    CHECK(parse_pictures_option("full").on);
    CHECK(parse_pictures_option("full").max_side == 0);
    CHECK(parse_pictures_option("true").max_side == 0);
    CHECK(parse_pictures_option("thumbs").max_side == kThumbnailSide);
    CHECK(parse_pictures_option("full=1024").max_side == 1024);
    for (const char* bad : {"full=", "full=12", "full=abc", "full=-5", "half", ""})
        CHECK_THROWS_WITH(parse_pictures_option(bad), Catch::Contains("--report-pictures"));
}

// Issue 43, item 9: the report of a real tree, where a handful of textures were rebuilt among thousands.

TEST_CASE("html: rows for what ran, failed or warned, the up-to-date actions counted in one line", "[report]") {
    BuildSummary s;
    auto built = action("textures", "src/edited.png", ActionStatus::Built);
    built.outputs = {"out/edited.dds"};
    auto failed = action("textures", "src/broken.png", ActionStatus::Failed);
    failed.failed_step = "decode";
    failed.error = "src/broken.png: truncated";
    auto warned = action("textures", "src/warned.png", ActionStatus::UpToDate);
    warned.results.keep_warnings({"alpha dropped: BC1_UNORM has no smooth alpha"}, "an earlier build");
    s.actions = {built, failed, warned};
    for (int i = 0; i < 500; ++i)
        s.actions.push_back(action("textures", "src/same" + std::to_string(i) + ".png", ActionStatus::UpToDate));
    auto gone = action("textures", "src/deleted.png", ActionStatus::Removed);
    gone.outputs = {"out/deleted.dds"};
    s.actions.push_back(gone);
    s.built = 1, s.failed = 1, s.up_to_date = 501, s.removed = 1;
    const std::string page = html_report(s, "/p/pipeline.yaml", 1.0, "/p");
    INFO(page.substr(0, 4000));
    CHECK(count(page, "<tr class=\"up-to-date\"") == 1); // the warned one
    CHECK(page.find("src/<wbr>warned.png") != std::string::npos);
    CHECK(page.find("src/<wbr>same1.png") == std::string::npos);
    CHECK(page.find("500 up-to-date actions without warnings are not listed") != std::string::npos);
    for (const char* shown : {"src/<wbr>edited.png", "src/<wbr>broken.png", "out/<wbr>deleted.dds"})
        CHECK(page.find(shown) != std::string::npos);
}

TEST_CASE("html: the original a match copied is named relative to the pipeline, even outside its folder", "[report]") {
    const std::string root = "/home/modder/projects/palms";
    BuildSummary s;
    auto a = pictured(root); // with its pictures' section, which repeats the warnings
    a.results.format_reason = "matches /home/modder/game/original/walls/rock.dds";
    a.results.warnings.push_back("the original /home/modder/game/original/walls/rock.dds holds HDR the input lacks");
    s.actions = {a};
    s.built = 1;
    const std::string page = html_report(s, root + "/pipeline.yaml", 1.0, root, "build.html.d/");
    INFO(page);
    CHECK(page.find("/home/") == std::string::npos);
    // A long original's path wraps at its folders and the cell may break anywhere else, so the table fits a
    // laptop's window (a real tree's names made it 1,838 px wide at 1366).
    CHECK(page.find("<td class=\"fmt\">BC5_UNORM <small>(matches ../<wbr>../<wbr>game/<wbr>original/<wbr>") !=
          std::string::npos);
    CHECK(page.find("td.fmt,td.in{overflow-wrap:anywhere") != std::string::npos);
    std::string text = page; // the table's messages wrap at slashes
    for (size_t at; (at = text.find("<wbr>")) != std::string::npos;) text.erase(at, 5);
    CHECK(text.find("BC5_UNORM <small>(matches ../../game/original/walls/rock.dds)</small>") != std::string::npos);
    CHECK(count(text, "the original ../../game/original/walls/rock.dds holds") == 2); // the table and the section
}

TEST_CASE("html: the header's bytes in and out say how they compare in words that mean something", "[report]") {
    const auto dir = std::filesystem::temp_directory_path() / ("af-report-ratio-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    // Sparse files: the sizes of a gather of a real tree (2044.9 MiB of DDS in, a 1.6 MiB zip out).
    const auto sized = [&](const std::string& name, uint64_t bytes) {
        std::ofstream(dir / name).flush();
        std::filesystem::resize_file(dir / name, bytes);
        return name;
    };
    BuildSummary s;
    auto zip = action("package", "*", ActionStatus::Built);
    zip.inputs = {sized("tree.bin", uint64_t(2044.9 * (1 << 20)))};
    zip.outputs = {sized("mod.zip", uint64_t(1.6 * (1 << 20)))};
    s.actions = {zip};
    s.built = 1;
    const std::string page = html_report(s, (dir / "pipeline.yaml").string(), 1.0, dir);
    std::filesystem::remove_all(dir);
    INFO(page.substr(0, 3000));
    CHECK(page.find("ratio 0.00") == std::string::npos);
    CHECK(page.find("2044.9 MiB → 1.6 MiB (out is 0.078 % of in)") != std::string::npos);

    // Nothing built: no ratio at all, not "0.00".
    BuildSummary none;
    none.actions = {action("package", "*", ActionStatus::UpToDate)};
    none.up_to_date = 1;
    const std::string quiet = html_report(none, "/p/pipeline.yaml", 1.0, "/p");
    CHECK(quiet.find("ratio") == std::string::npos);
    CHECK(quiet.find("% of in") == std::string::npos);
}

TEST_CASE("html: the normal-map verdict only where it decided something", "[report]") {
    BuildSummary s;
    auto diffuse = action("textures", "src/wall.png", ActionStatus::Built);
    diffuse.results.format = "BC1_UNORM";
    diffuse.results.set_normal_map(false, "no name token, texels: 41% point out of the surface");
    auto normal = action("textures", "src/wall_n.png", ActionStatus::Built);
    normal.results.format = "BC5_UNORM";
    normal.results.set_normal_map(true, "file name token 'n'");
    auto xy = action("textures", "src/mask.png", ActionStatus::Built);
    xy.results.format = "BC5_UNORM"; // a normal map's format, for a texture judged not one: the verdict counts
    xy.results.set_normal_map(false, "no name token, texels: 3% point out of the surface");
    s.actions = {diffuse, normal, xy};
    s.built = 3;
    const std::string page = html_report(s, "/p/pipeline.yaml", 1.0, "/p");
    INFO(page);
    CHECK(page.find("41% point out") == std::string::npos);
    CHECK(page.find("normal map: yes: file name token") != std::string::npos);
    CHECK(page.find("normal map: no: no name token, texels: 3%") != std::string::npos);
}
