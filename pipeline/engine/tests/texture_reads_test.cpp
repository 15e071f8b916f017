// What a texture action reads of its input: the top level is turned into
// pixels once and analysed once, however many steps ask about it (`mips`
// hands what it learned to `encode` and to the writer with its output).
// Counted by texture::ReadCount over the real steps, plugins and reader.
#include "base/output_template.hpp"
#include "core/png_io.hpp"
#include "engine/action_runner.hpp"
#include "host/host_services.hpp"
#include "host/plugin_registry.hpp"
#include "load/config.hpp"
#include "steps/pipeline_steps.hpp"
#include "test_project.hpp"
#include "texture/texture_ops.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

using namespace af::base;
using namespace af::steps;
using namespace af::load;
using namespace af::report;
using namespace af::engine;
using af::encode_png;
using af::Texture;
namespace fs = std::filesystem;
namespace tx = af::texture;

namespace {

constexpr const char* kRoot = "/assetforge-texture-reads";

struct Action {
    af::host::PluginRegistry reg;
    StepTable steps;
    Pipeline p;
    ProjectPaths paths{kRoot};
    TraceLog trace;

    explicit Action(const std::string& job_yaml) {
        for (const char* plugin : {"af_bc", "af_dds", "af_xtf"})
            REQUIRE(reg.load_file(fs::path(ENGINE_PLUGIN_DIR) / (std::string(plugin) + ".so")));
        steps = pipeline_steps(reg);
        af::host::set_registry(&reg); // the codecs a plugin's writer asks the host for

        p = parse_pipeline("assetforge: 1\njobs:\n" + job_yaml, std::string(kRoot) + "/pipeline.yaml", {}, steps);
    }
    ~Action() { af::host::set_registry(nullptr); }
    std::vector<ActionOutput> run(const std::string& name, std::vector<uint8_t> bytes, ActionTrail& trail) {
        const Job& job = p.jobs.at(0);
        const OutputTemplate tpl = OutputTemplate::parse(job.output);
        ActionRun r{job, tpl, steps, fs::path(kRoot), paths, trace, {}};
        std::vector<Item> items;
        items.push_back(bytes_item(name, std::move(bytes)));
        return run_action(r, std::move(items), name, name, trail);
    }
};

std::vector<uint8_t> png_of(uint32_t w, uint32_t h) {
    Texture img = af::rgba8_picture(w, h, true);
    for (size_t i = 0; i < img.data.size(); ++i) img.data[i] = uint8_t((i * 37 + i / 7) & 0xff);
    for (size_t i = 3; i < img.data.size(); i += 4) img.data[i] = 255;
    return encode_png(img);
}

std::vector<uint8_t> file_bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

} // namespace

TEST_CASE("a [mips, encode] action turns its input's top level into pixels once and analyses it once") {
    Action a(R"(  dds:
    inputs: "src/*.png"
    steps: [ mips, { encode: { format: auto } } ]
    output: "out/{stem}.dds"
)");
    ActionTrail trail;
    tx::ReadCount reads;
    const auto outs = a.run("wall.png", png_of(64, 64), trail);
    REQUIRE(outs.size() == 1);
    REQUIRE(!trail.results.format.empty());
    const uint32_t result = af::format_by_name(trail.results.format)->id;
    // mips reads the top level (and analyses it for the normal-map rule); encode takes both from mips and only
    // decodes its own result, for the PSNR it reports.
    CHECK(reads.decodes() - reads.decodes(result) == 1);
    CHECK(reads.decodes(result) == 1);
    CHECK(reads.analyses() == 1);
    CHECK(trail.results.psnr_rgb.has_value());
}

TEST_CASE("a block-compressed input is decoded once through [mips, encode], and a writer that picks its own format "
          "reuses the analysis") {
    Action dds(R"(  dds:
    inputs: "src/*.dds"
    steps: [ mips, { encode: { format: bc3 } } ]
    output: "out/{stem}.dds"
)");
    ActionTrail trail;
    tx::ReadCount reads;
    // A real DXT1 texture of 32x32 with its mips (FlightGear, the dds plugin's test data).
    dds.run("stone.dds", file_bytes(fs::path(AF_SOURCE_DIR) / "plugins/dds/tests/data/Terrain__transition1.dds"),
            trail);
    CHECK(reads.decodes(af::FMT_BC1_UNORM) + reads.decodes(af::FMT_BC1_UNORM_SRGB) == 1);
    CHECK(reads.decodes(af::FMT_BC3_UNORM) + reads.decodes(af::FMT_BC3_UNORM_SRGB) == 1); // the result, measured
    CHECK(reads.analyses() == 1);

    Action xtf(R"(  xbox:
    inputs: "src/*.png"
    steps: [ mips ]
    output: "out/{stem}.xtf"
)");
    tx::ReadCount xtf_reads;
    ActionTrail xtf_trail;
    xtf.run("wall.png", png_of(64, 64), xtf_trail);
    CHECK(xtf_reads.analyses() == 1); // the XTF writer's loss check takes mips' analysis
}

TEST_CASE("a step that replaces the texture drops what mips learned of the old one") {
    Action a(R"(  dds:
    inputs: "src/*.png"
    steps: [ mips, { channels: { map: bgra } }, { encode: { format: auto } } ]
    output: "out/{stem}.dds"
)");
    ActionTrail trail;
    tx::ReadCount reads;
    a.run("wall.png", png_of(64, 64), trail);
    CHECK(reads.analyses() == 2); // the swapped channels are analysed afresh, not taken for the old ones
}
