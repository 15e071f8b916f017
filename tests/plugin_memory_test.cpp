// The memory budget over plugin formats (issue 29, item 2): a container's
// `dims` (API 1.4) lets the estimate see what a file declares, and bounds
// what its read may take from af_host.alloc. The formats are the SDK's TGA
// example and tests/isolation_plugins/hostile.cpp, both loaded from
// $ASSETFORGE_PLUGIN_PATH (third-party: isolated by default).
#include "cli_run.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

namespace fs = std::filesystem;
using namespace af::test;

namespace {

struct ScopedPluginPath {
    explicit ScopedPluginPath(const char* dir) { setenv("ASSETFORGE_PLUGIN_PATH", dir, 1); }
    ~ScopedPluginPath() { unsetenv("ASSETFORGE_PLUGIN_PATH"); }
};

// An 8-bit greyscale RLE TGA of w x h (w a multiple of 128), one run packet of 128 pixels after another: 8192²
// is 1 MiB of file for 64 Mi texels.
std::string rle_grey_tga(uint16_t w, uint16_t h) {
    std::string f = {0, 0,   11, 0, 0, 0, 0, 0, 0, 0, 0, 0, char(w & 0xff), char(w >> 8), char(h & 0xff), char(h >> 8),
                     8, 0x20};
    const uint64_t packets = uint64_t(w) * h / 128;
    f.reserve(f.size() + packets * 2);
    for (uint64_t i = 0; i < packets; ++i) {
        f += char(0xff);
        f += char(i * 7);
    }
    return f;
}

constexpr const char* kTgaPipeline = R"(assetforge: 1
jobs:
  textures:
    inputs: "src/*.tga"
    steps: [ decode ]
    output: "out/{stem}.png"
)";

constexpr const char* kHostilePipeline = R"(assetforge: 1
jobs:
  textures:
    inputs: "src/*.hostile"
    steps: [ decode ]
    output: "out/{stem}.png"
)";

} // namespace

TEST_CASE("plugin memory: an 8192² RLE TGA of 1 MiB is estimated by its header, within the budget", "[memory]") {
    ScopedPluginPath path(AF_TGA_PLUGIN_DIR);
    TempDir t;
    t.write("pipeline.yaml", kTgaPipeline);
    t.write("src/big.tga", rle_grey_tga(8192, 8192));
    REQUIRE(fs::file_size(t / "src/big.tga") < (1u << 20) + 64);
    for (const char* isolate : {"third-party", "none"}) {
        SECTION(std::string("--isolate ") + isolate) {
            MeasuredRun r = run_cli_measured({"build", "--memory-budget", "100", "--isolate", isolate}, t.path());
            INFO(r.out);
            INFO("peak RSS " << r.peak_rss_kib / 1024 << " MiB");
            // Refused up front, from what the header declares, not read into 256 MiB of texels (and twice that
            // in copies) as when the file was estimated from its size.
            CHECK(r.code == 1);
            CHECK_THAT(r.out, Catch::Contains("src/big.tga (8192x8192 tga, as its header declares)") &&
                                  Catch::Contains("more than the whole memory budget of 100 MiB"));
            CHECK(r.peak_rss_kib <= (100 + 64) * 1024);
            CHECK(!fs::exists(t / "out/big.png"));
        }
    }
}

TEST_CASE("plugin memory: an RLE TGA the budget admits is built within budget + 64 MiB", "[memory]") {
    ScopedPluginPath path(AF_TGA_PLUGIN_DIR);
    TempDir t;
    t.write("pipeline.yaml", kTgaPipeline);
    t.write("src/mid.tga", rle_grey_tga(2048, 2048));
    MeasuredRun r = run_cli_measured({"build", "--memory-budget", "200"}, t.path());
    INFO(r.out);
    INFO("peak RSS " << r.peak_rss_kib / 1024 << " MiB");
    CHECK(r.code == 0);
    CHECK(fs::exists(t / "out/mid.png"));
    CHECK(r.peak_rss_kib <= (200 + 64) * 1024);
}

TEST_CASE("plugin memory: a read taking far more from af_host.alloc than its dims declare is refused", "[memory]") {
    ScopedPluginPath path(AF_HOSTILE_PLUGIN_DIR);
    TempDir t;
    t.write("pipeline.yaml", kHostilePipeline);
    t.write("src/ok.hostile", "HSTLo\x10");
    t.write("src/x.hostile", "HSTLd");
    for (const char* isolate : {"third-party", "none"}) {
        SECTION(std::string("--isolate ") + isolate) {
            MeasuredRun r = run_cli_measured({"build", "--isolate", isolate, "--report", "report.json"}, t.path());
            INFO(r.out);
            CHECK(r.code == 1);
            CHECK(fs::exists(t / "out/ok.png"));
            CHECK(!fs::exists(t / "out/x.png"));
            const std::string why = "x.hostile: plugin 'hostile' asked af_host.alloc for 256.0 MiB in read, past "
                                    "what its dims declared for this file (2x2 R8G8B8A8_UNORM: at most 1.0 MiB in "
                                    "all); the read is refused";
            CHECK_THAT(r.out, Catch::Contains(why));
            CHECK_THAT(slurp(t / "report.json"), Catch::Contains("past what its dims declared"));
            // The 256 MiB were never given: the process stayed small.
            CHECK(r.peak_rss_kib <= 200 * 1024);
        }
    }
}
