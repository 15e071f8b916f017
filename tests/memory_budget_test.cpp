// `assetforge build --memory-budget M`: hostile sizes fail by name, legitimate
// large images build, and the build's peak RSS (wait4) stays under M plus the
// fixed overhead stated in docs/memory.md.
#include "cli_run.hpp"
#include "support/project.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

namespace fs = std::filesystem;
using af::test::run_cli;
using af::test::run_cli_measured;
using af::test::TempDir;

namespace {

// The process's own memory beyond the budget: code, plugins, TBB workers,
// the state database (docs/memory.md).
#if defined(AF_ASAN)
// AddressSanitizer keeps freed memory in quarantine and adds shadow memory and
// red zones: RSS then says nothing about the engine's budget.
constexpr long kOverheadMiB = 1 << 20;
#else
constexpr long kOverheadMiB = 64;
#endif

const fs::path kData = AF_TEST_DATA;
const char* kGood[] = {"a_palm_b.png", "d_dark-wall-wood_crop256.png", "g_caustics.png",
                       "n_stk_generic_rock_crop128.png"};

const char* kBudgetPipeline = R"(assetforge: 1
jobs:
  textures:
    inputs: "src/*.png"
    steps: [ mips, { encode: { format: bc1 } } ]
    output: "out/{stem}.dds"
)";

// Large images: mips alone (kMipsPipeline), whose estimate is closest to what it holds.
using af::test::kMipsPipeline;

// A legitimate large PNG, made by the CLI itself from a test image with real
// alpha (mips then filter premultiplied: the larger working set).
void make_large(const TempDir& t, const std::string& rel, const std::string& size) {
    t.copy(kData / "images" / "a_palm_b.png", "seed.png");
    auto r = run_cli("convert seed.png " + rel + " --resize " + size, t.path());
    INFO(r.out);
    REQUIRE(r.code == 0);
    fs::remove(t / "seed.png");
}

} // namespace

TEST_CASE("build: PNGs declaring 20000x20000 fail by name, the good ones build, the budget holds", "[build][memory]") {
    TempDir t("af-memory-test");
    for (int i = 1; i <= 4; ++i)
        t.copy(kData / "hostile" / "png_20000x20000_rgba16.png", "src/bad" + std::to_string(i) + ".png");
    for (const char* g : kGood) t.copy(kData / "images" / g, std::string("src/") + g);
    t.write("pipeline.yaml", kBudgetPipeline);

    auto r = run_cli_measured({"build", "-j2", "--memory-budget", "512"}, t.path());
    INFO(r.out);
    INFO("peak RSS " << r.peak_rss_kib / 1024 << " MiB");
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("4 built, 0 up to date, 4 failed"));
    for (int i = 1; i <= 4; ++i) {
        // The failure itself names the file, what it declares and the budget.
        const std::string bad = "src/bad" + std::to_string(i) + ".png (20000x20000 16-bit RGBA PNG)";
        CHECK_THAT(r.out, Catch::Contains(bad));
    }
    CHECK_THAT(r.out, Catch::Contains("more than the whole memory budget of 512 MiB; raise --memory-budget"));
    for (const char* g : kGood) CHECK(fs::exists(t / ("out/" + fs::path(g).stem().string() + ".dds")));
    CHECK(r.peak_rss_kib < (512 + kOverheadMiB) * 1024);
}

TEST_CASE("build: large legitimate images within the budget build, one at a time, under the budget",
          "[build][memory]") {
    TempDir t("af-memory-test");
    make_large(t, "src/big1.png", "4300x4300");
    fs::copy_file(t / "src/big1.png", t / "src/big2.png");
    t.write("pipeline.yaml", kMipsPipeline);

    // Each needs more than half of 512 MiB (about 330 MiB measured, 460 estimated):
    // -j2 must not run them together, or the peak would pass 512.
    auto r = run_cli_measured({"build", "-j2", "--memory-budget", "512"}, t.path());
    INFO(r.out);
    INFO("peak RSS " << r.peak_rss_kib / 1024 << " MiB");
    CHECK(r.code == 0);
    CHECK(fs::exists(t / "out/big1.dds"));
    CHECK(fs::exists(t / "out/big2.dds"));
    CHECK(r.peak_rss_kib < (512 + kOverheadMiB) * 1024);
    CHECK(r.peak_rss_kib > 256 * 1024); // it did hold a large image: the bound above means something
}

TEST_CASE("build: an image whose estimate exceeds the whole budget fails instead of running", "[build][memory]") {
    TempDir t("af-memory-test");
    make_large(t, "src/big.png", "2048x2048");
    t.write("pipeline.yaml", kBudgetPipeline);

    auto r = run_cli_measured({"build", "-j2", "--memory-budget", "64"}, t.path());
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("src/big.png (2048x2048 8-bit RGBA PNG): this action needs an estimated"));
    CHECK_THAT(r.out, Catch::Contains("more than the whole memory budget of 64 MiB; raise --memory-budget"));
    CHECK_FALSE(fs::exists(t / "out/big.dds"));
    CHECK(r.peak_rss_kib < (64 + kOverheadMiB) * 1024);

    // No budget at all is a usage error, not a build where everything fails.
    auto zero = run_cli("build --memory-budget 0", t.path());
    CHECK(zero.code == 2);
    CHECK_THAT(zero.out, Catch::Contains("--memory-budget expects a positive number of MiB"));

    // With room, the same build succeeds.
    auto ok = run_cli_measured({"build", "-j2", "--memory-budget", "1024"}, t.path());
    INFO(ok.out);
    CHECK(ok.code == 0);
    CHECK(fs::exists(t / "out/big.dds"));
}

TEST_CASE("convert: --memory-budget refuses an input whose estimate is larger, up front and by name",
          "[convert][memory]") {
    TempDir t("af-memory-test");
    t.copy(kData / "hostile" / "png_20000x20000_rgba16.png", "huge.png");
    auto r = run_cli_measured({"convert", "huge.png", "out.dds", "--memory-budget", "512"}, t.path());
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("huge.png (20000x20000 16-bit RGBA PNG)"));
    CHECK_THAT(r.out, Catch::Contains("more than the whole memory budget of 512 MiB; raise --memory-budget"));
    CHECK(r.out.find("bad_alloc") == std::string::npos);
    CHECK_FALSE(fs::exists(t / "out.dds"));
    CHECK(r.peak_rss_kib < kOverheadMiB * 1024); // refused before anything large was read
    // A legitimate image within the budget converts, and one over a small budget is refused.
    make_large(t, "big.png", "2048x2048");
    CHECK(run_cli("convert big.png big.dds --format bc1 --quality fast", t.path()).code == 0);
    auto small = run_cli("convert big.png big2.dds --format bc1 --memory-budget 64", t.path());
    CHECK(small.code == 1);
    CHECK_THAT(small.out, Catch::Contains("raise --memory-budget"));
    CHECK(run_cli("convert big.png big3.png --memory-budget 0", t.path()).code == 2);
}
