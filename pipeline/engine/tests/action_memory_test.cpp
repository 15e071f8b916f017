// The action memory estimate: from what headers declare, not file sizes.
#include "engine/action_memory.hpp"
#include "engine/memory_budget.hpp"
#include "host/plugin_registry.hpp"
#include "steps/texture_steps.hpp"
#include "test_project.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace af::base;
using namespace af::steps;
using namespace af::load;
using namespace af::engine;
using af::engine::test::TestProject;

namespace {

constexpr double kMiB = 1 << 20;

// The built-in steps as a pipeline gets them (each declares its own cost), and
// a plugin's byte stage, which declares none.
struct Steps {
    af::host::PluginRegistry no_plugins;
    StepTable table;
    StepDef plugin_stage{.provider = "pages"};

    Steps() {
        add_engine_steps(table);
        add_texture_steps(table, no_plugins);
    }
    Job job(std::vector<std::pair<std::string, Params>> steps, std::string output = "out/{stem}.dds") {
        Job j;
        j.name = "j";
        j.output = std::move(output);
        for (auto& [name, params] : steps) {
            const StepDef* def = table.find(name);
            j.steps.push_back({name, params, {}, def ? def : &plugin_stage});
        }
        return j;
    }
};

std::string le32(uint32_t v) { return {char(v), char(v >> 8), char(v >> 16), char(v >> 24)}; }
std::string be32(uint32_t v) { return {char(v >> 24), char(v >> 16), char(v >> 8), char(v)}; }

// A PNG signature and IHDR declaring 20000x20000 16-bit RGBA, nothing after:
// the estimate reads no further.
std::string hostile_png() {
    return std::string("\x89PNG\r\n\x1a\n", 8) + be32(13) + "IHDR" + be32(20000) + be32(20000) +
           std::string("\x10\x06\0\0\0", 5) + be32(0);
}

// A legacy DDS header (BC1, full mip chain) declaring w x h; no pixel data follows.
std::string dds_header(uint32_t w, uint32_t h) {
    std::string s = "DDS " + le32(124) + le32(0x1 | 0x2 | 0x4 | 0x1000 | 0x20000) + le32(h) + le32(w) + le32(0) +
                    le32(0) + le32(12);
    s.resize(76, '\0');
    s += le32(32) + le32(0x4) + "DXT1";
    s.resize(128, '\0');
    return s;
}

double estimate(const Job& job, const TestProject& t, std::vector<std::string> names) {
    std::vector<ActionFile> files;
    for (auto& n : names) files.push_back({n, t.path(n).string()});
    return double(estimate_action_memory(job, files).bytes);
}

} // namespace

TEST_CASE("a PNG's estimate comes from its IHDR, not its size") {
    TestProject t;
    t.write("bad.png", hostile_png());
    Steps s;
    const Job mips = s.job({{"mips", {}}});
    // 20000x20000 16-bit: over 100 bytes a texel of working set, from 69 bytes of file.
    CHECK(estimate(mips, t, {"bad.png"}) > 20000.0 * 20000 * 100);
    try {
        action_memory_within(mips, {{"src/bad.png", t.path("bad.png").string()}}, 512ull << 20);
        FAIL("no error");
    } catch (const std::runtime_error& e) {
        CHECK_THAT(e.what(), Catch::StartsWith("src/bad.png (20000x20000 16-bit RGBA PNG): this action needs an "
                                               "estimated "));
        CHECK_THAT(e.what(), Catch::EndsWith("more than the whole memory budget of 512 MiB; raise --memory-budget"));
    }
    // Copying the bytes never decodes them: the file's size is what it costs.
    const Job copy = s.job({{"copy", {}}});
    CHECK(estimate(copy, t, {"bad.png"}) < 5 * kMiB);
}

TEST_CASE("the estimate follows the steps: 8 vs 16 bits, mips, resize") {
    TestProject t;
    t.write_png("a.png", 256, 256, 1);
    Steps s;
    const double read = estimate(s.job({{"read", {}}}), t, {"a.png"});
    const double mips = estimate(s.job({{"mips", {}}}), t, {"a.png"});
    const double up = estimate(s.job({{"resize", {{"scale", "4"}}}}), t, {"a.png"});
    const double down = estimate(s.job({{"resize", {{"max_size", "64"}}}}), t, {"a.png"});
    CHECK(read < mips);
    CHECK(up > 16 * 256 * 256 * 40.0); // the output's texels count
    CHECK(down < up);
    CHECK(down > read); // resizing holds the source and the result
    // A 16-bit file of the same size costs more.
    std::string png = t.read("a.png");
    png[24] = 16;
    t.write("w.png", png);
    CHECK(estimate(s.job({{"mips", {}}}), t, {"w.png"}) > mips);
}

TEST_CASE("resize's estimate asks the step's own sizing: the same target, the same estimate") {
    TestProject t;
    t.write_png("wide.png", 256, 64, 1);
    Steps s;
    auto resized = [&](Params p) { return estimate(s.job({{"resize", std::move(p)}}), t, {"wide.png"}); };
    // 256x64 to width 128: the step keeps the aspect, 128x32.
    CHECK(resized({{"width", "128"}}) == resized({{"width", "128"}, {"height", "32"}}));
    CHECK(resized({{"height", "32"}}) == resized({{"width", "128"}, {"height", "32"}}));
    CHECK(resized({{"scale", "0.5"}}) == resized({{"width", "128"}, {"height", "32"}}));
    CHECK(resized({{"max_size", "128"}}) == resized({{"width", "128"}, {"height", "32"}}));
    CHECK(resized({{"width", "128"}}) < resized({{"width", "128"}, {"height", "128"}}));
}

TEST_CASE("DDS headers and unknown files") {
    TestProject t;
    t.write("big.dds", dds_header(8192, 8192));
    t.write("blob.xtf", std::string(1 << 20, 'x'));
    Steps s;
    const Job mips = s.job({{"mips", {}}});
    const double texels = 8192.0 * 8192 * 4 / 3;
    CHECK(estimate(mips, t, {"big.dds"}) > texels * 16);
    CHECK(estimate(mips, t, {"big.dds"}) < texels * 200);
    // No header read: 2 texels a byte (BC1's density) bound what it can hold.
    CHECK(estimate(mips, t, {"blob.xtf"}) > 2.0 * (1 << 20) * 64);
}

TEST_CASE("a zip of files streams them: its estimate is per member, not their sum, while items steps made are held") {
    TestProject t;
    for (const char* n : {"a.bin", "b.bin", "c.bin"}) t.write(n, std::string(1 << 20, 'x'));
    Steps s;
    Job zip = s.job({}, "out/a.zip");
    zip.gather.name = "zip";
    zip.gather.def = s.table.find("zip");
    CHECK(estimate(zip, t, {"a.bin", "b.bin", "c.bin"}) < 10 * kMiB);
    // 200 files of 1 GiB each (sparse) fit a small budget.
    std::vector<std::string> many;
    for (int i = 0; i < 200; ++i) {
        many.push_back("game/t" + std::to_string(i) + ".dds");
        t.write(many.back(), "");
        std::filesystem::resize_file(t.path(many.back()), 1ull << 30);
    }
    const double tree = estimate(zip, t, many);
    CHECK(tree < 16 * kMiB);
    CHECK(tree > estimate(zip, t, {"a.bin"})); // each entry's name and record
    // Items a job's steps made are held until the archive is written.
    Job copied = zip;
    copied.steps.push_back({"copy", {}, {}, s.table.find("copy")});
    CHECK(estimate(copied, t, {"a.bin", "b.bin", "c.bin"}) >= (3 + 3 * 1.25) * kMiB);
    Job stage = s.job({{"pages.extract", {}}}, "out/{name}");
    CHECK(estimate(stage, t, {"a.bin"}) >= 16 * kMiB); // a plugin's byte stage: 16x the file
}

TEST_CASE("the memory budget refuses a lease larger than itself") {
    MemoryBudget b(100);
    CHECK_THROWS(b.acquire(101));
    BudgetLease l(b, 100);
    CHECK(b.limit() == 100);
}

TEST_CASE("build: an action over the budget fails naming the file, the others build") {
    TestProject t;
    t.write("src/bad.png", hostile_png());
    t.write_png("src/good.png", 8, 8, 2);
    BuildOptions opt;
    opt.memory_budget = 64ull << 20;
    auto s = t.build(R"(assetforge: 1
jobs:
  t:
    inputs: "src/*.png"
    steps: [ invert ]
    output: "out/{stem}.png"
)",
                     opt);
    CHECK(s.failed == 1);
    CHECK(s.built == 1);
    for (const auto& a : s.actions)
        if (a.status == af::base::ActionStatus::Failed)
            CHECK_THAT(a.error, Catch::Contains("src/bad.png (20000x20000 16-bit RGBA PNG)") &&
                                    Catch::Contains("memory budget of 64 MiB; raise --memory-budget"));
}
