#include "fixture.hpp"
#include "page_images.hpp"
#include "pages_command.hpp"
#include "pages_reader.hpp"

#include "assetforge/plugin.hpp"
#include "core/png_io.hpp"
#include "host/host_services.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

using namespace af::vtpages;
using namespace vtpages_test;
namespace fs = std::filesystem;

namespace {

struct Run {
    int rc;
    std::string out, err;
};

Run run(std::vector<std::string> argv) {
    std::ostringstream out, err;
    // The real host services: PNG output goes through its PNG writer.
    int rc = run_pages_command({af::host::services(), out, err}, argv);
    return {rc, out.str(), err.str()};
}

std::string fixture(const char* name) { return (data_dir() / name).string(); }

size_t count_lines(const std::string& s) { return size_t(std::count(s.begin(), s.end(), '\n')); }

} // namespace

TEST_CASE("pages selftest prints the spec sheet's summary line", "[command]") {
    auto r = run({"selftest", fixture("l7_s3_dfs_slack.pages"), fixture("l3_s2_bfs.pages")});
    CHECK(r.rc == 0);
    CHECK(r.out == "selftest ok: l7_s3_dfs_slack.pages, 59 sentences, 58 edges, 410560 B + 28672 B slack = 439232 B\n"
                   "selftest ok: l3_s2_bfs.pages, 3 sentences, 2 edges, 24572 B + 0 B slack = 24572 B\n");
    auto j = run({"selftest", fixture("l8_s2_dfs_slack_x4.pages"), "--json"});
    auto parsed = nlohmann::json::parse(j.out);
    CHECK(parsed[0]["sentences"] == 47);
    CHECK(parsed[0]["slack"] == manifest<nlohmann::json>("l8_s2_dfs_slack_x4.pages")["slack_bytes"]);
}

TEST_CASE("exit codes: 1 for a broken file, 2 for usage", "[command]") {
    TempDir t;
    auto bytes = read_bytes(data_dir() / "l4_s4_dfs_slack.pages");
    bytes.resize(bytes.size() - 10);
    const fs::path cut = t.path / "cut.pages";
    std::ofstream(cut, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    auto r = run({"selftest", fixture("l3_s2_bfs.pages"), cut.string()});
    CHECK(r.rc == 1);
    CHECK_THAT(r.err, Catch::Contains("selftest FAILED") && Catch::Contains("cut.pages") && Catch::Contains("offset"));
    CHECK(run({}).rc == 2);
    CHECK(run({"nonsense"}).rc == 2);
    CHECK(run({"page", fixture("l3_s2_bfs.pages"), "0"}).rc == 2);
    CHECK(run({"walk", fixture("l3_s2_bfs.pages"), "--bogus"}).rc == 2);
    CHECK(run({"map", fixture("l3_s2_bfs.pages"), "0"}).rc == 2); // --out missing
    CHECK(run({"header", (t.path / "missing.pages").string()}).rc == 1);
}

TEST_CASE("pages list, header and walk", "[command]") {
    auto l = run({"list", data_dir().string()});
    CHECK(l.rc == 0);
    CHECK(count_lines(l.out) == fixture_names().size() + 1);
    CHECK_THAT(l.out, Catch::Contains("l8_s1_bfs.pages") && Catch::Contains("21845"));
    auto lj = nlohmann::json::parse(run({"list", data_dir().string(), "--json"}).out);
    CHECK(lj.size() == fixture_names().size());

    auto h = nlohmann::json::parse(run({"header", fixture("l6_s3_bfs_x4.pages"), "--json"}).out);
    CHECK(h["scale"] == 4);
    CHECK(h["num_levels"] == 6);
    CHECK(h["header_ok"] == true);

    auto m = manifest<nlohmann::json>("l7_s3_dfs_slack.pages");
    auto w = run({"walk", fixture("l7_s3_dfs_slack.pages")});
    CHECK(count_lines(w.out) == m["pages"].get<size_t>() + 1);
    auto wj = nlohmann::json::parse(run({"walk", fixture("l7_s3_dfs_slack.pages"), "--json"}).out);
    REQUIRE(wj.size() == m["page_list"].size());
    for (size_t i = 0; i < wj.size(); ++i) {
        CHECK(wj[i]["offset"] == m["page_list"][i]["offset"]);
        CHECK(wj[i]["compression"]["name"] == "HDP");
        CHECK(wj[i]["compression"]["number"] == 5);
    }
    auto tree = run({"walk", fixture("l7_s3_dfs_slack.pages"), "--tree"});
    CHECK(count_lines(tree.out) == count_lines(w.out));
}

TEST_CASE("pages page, blocks, stats and region", "[command]") {
    const auto F = fixture("l5_s2_bfs_slack_jxr.pages");
    auto p = run({"page", F, "4", "0", "0"});
    CHECK(p.rc == 0);
    CHECK_THAT(p.out, Catch::Contains("compression 6 (JXR)") && Catch::Contains("YUV444") &&
                          Catch::Contains("HDP pixel decoding not supported"));
    CHECK(run({"page", F, "0", "15", "15"}).rc == (PagesFile::open(F).find({0, 15, 15}) ? 0 : 1));

    TempDir t;
    auto b = run({"blocks", F, "4", "0", "0", "--out", t.path.string(), "--json"});
    REQUIRE(b.rc == 0);
    auto bj = nlohmann::json::parse(b.out);
    CHECK(bj["blocks"][0]["plane_header"]["dc_qp"] == nlohmann::json({30, 48}));
    auto f = PagesFile::open(F);
    auto top = *f.find({4, 0, 0});
    for (const auto& w : bj["written"]) {
        auto got = read_bytes(t.path / w["file"].get<std::string>());
        auto want = f.bytes(w["offset"].get<uint64_t>(), w["size"].get<uint64_t>());
        CHECK(got == std::vector<uint8_t>(want.begin(), want.end()));
    }
    CHECK(fs::file_size(t.path / "4_0_0.payload.bin") == top.payload);

    auto s = nlohmann::json::parse(run({"stats", F, "--json"}).out)[0];
    auto m = manifest<nlohmann::json>("l5_s2_bfs_slack_jxr.pages");
    CHECK(s["pages"] == m["pages"]);
    CHECK(s["bytes"]["slack"] == m["slack_bytes"]);
    CHECK(s["cover_masks"] == m["cover_masks"]);
    uint64_t blocks = 0, flags = 0;
    for (auto& [k, v] : s["bytes"]["blocks"].items()) blocks += v.get<uint64_t>();
    for (auto& [k, v] : s["flags"].items()) flags += v.get<uint64_t>();
    uint64_t want_blocks = 0;
    for (auto& pg : m["page_list"])
        for (auto& sz : pg["sizes"]) want_blocks += sz.get<uint64_t>();
    CHECK(blocks == want_blocks);
    CHECK(flags == m["pages"].get<uint64_t>());

    // The whole texture at level 1: every level-1 page; extracted payloads are repack-ready names.
    auto r = nlohmann::json::parse(
        run({"region", F, "--mapping", "1,1,0,0", "--level", "1", "--out", (t.path / "r").string(), "--json"}).out);
    CHECK(r["present"] == m["per_level"]["1"]);
    CHECK(r["area"] == 64);
    for (auto& pg : r["pages"])
        CHECK(fs::exists(t.path / "r" / af::sdk::format("1_%d_%d.bin", pg["x"].get<int>(), pg["y"].get<int>())));
    // A quarter in the middle: x and y in [2, 6) at level 1 (8 pages wide).
    auto q = nlohmann::json::parse(run({"region", F, "--mapping", "0.5,0.5,0.25,0.25", "--level", "1", "--json"}).out);
    CHECK(q["x"] == nlohmann::json({2, 6}));
    CHECK(q["y"] == nlohmann::json({2, 6}));
}

TEST_CASE("pages map and cover write PNGs that decode to what the file holds", "[command]") {
    TempDir t;
    const auto F = fixture("l8_s1_bfs.pages");
    auto f = PagesFile::open(F);
    auto mj = nlohmann::json::parse(run({"map", F, "1", "--out", (t.path / "m.png").string(), "--json"}).out);
    CHECK(mj["present"] == manifest<nlohmann::json>("l8_s1_bfs.pages")["per_level"]["1"]);
    af::Texture img = af::read_png_file(t.path / "m.png");
    const uint32_t cell = mj["cell_pixels"].get<uint32_t>(), grid = mj["grid"].get<uint32_t>();
    CHECK(img.desc.width == grid * cell);
    uint64_t lit = 0;
    for (uint32_t y = 0; y < grid; ++y)
        for (uint32_t x = 0; x < grid; ++x) {
            const uint8_t* px = &img.data[(size_t(y * cell) * img.desc.width + x * cell) * 4];
            const bool present = bool(f.find({1, uint16_t(x), uint16_t(y)}));
            CHECK(((px[0] | px[1] | px[2]) != 0) == present);
            lit += present;
        }
    CHECK(lit == mj["present"].get<uint64_t>());

    // A page with a cover mask: the PNG is 1-bit and matches the bits (LSB-first by default).
    PageInfo with_cover;
    walk_tree(f, [&](const WalkStep& s) {
        if (s.page.has_sub && s.page.sub.has_cover()) with_cover = s.page;
    });
    REQUIRE(with_cover.has_sub);
    const auto k = with_cover.key();
    const auto png = (t.path / "c.png").string();
    auto c = run({"cover", F, std::to_string(k.level), std::to_string(k.x), std::to_string(k.y), "--out", png});
    REQUIRE(c.rc == 0);
    auto raw = read_bytes(png);
    REQUIRE(raw.size() > 25);
    CHECK(raw[24] == 1); // IHDR bit depth
    CHECK(raw[25] == 0); // greyscale
    af::Texture cm = af::read_png_file(png);
    REQUIRE(cm.desc.width == 128);
    const PayloadLayout l = payload_layout(with_cover.sub);
    auto mask = f.bytes(with_cover.payload_offset() + l.cover_offset, l.cover_size);
    for (uint32_t y = 0; y < 128; ++y)
        for (uint32_t x = 0; x < 128; ++x) {
            const bool bit = (mask[y * 16 + x / 8] >> (x & 7)) & 1;
            REQUIRE((cm.data[(y * 128 + x) * 4] == 255) == bit);
        }
    // A page without a mask is an error, not an empty image.
    walk_tree(f, [&](const WalkStep& s) {
        if (s.page.has_sub && !s.page.sub.has_cover()) with_cover = s.page;
    });
    CHECK(run({"cover", F, std::to_string(with_cover.node.level), std::to_string(with_cover.node.x),
               std::to_string(with_cover.node.y), "--out", png})
              .rc == 1);
}

TEST_CASE("asking for HDP pixels is an honest unsupported error", "[command]") {
    TempDir t;
    auto r = run({"pixels", fixture("l3_s2_bfs.pages"), "2", "0", "0", "--out", t.path.string()});
    CHECK(r.rc == 1);
    CHECK_THAT(r.err, Catch::Contains("unsupported: HDP pixel decoding"));
}

TEST_CASE("writer commands: build, repack, compact", "[command]") {
    TempDir t;
    const auto F = fixture("l4_s4_dfs_slack.pages");
    // No-op repack is byte-identical.
    auto same = (t.path / "same.pages").string();
    auto r = run({"repack", F, "--out", same});
    CHECK(r.rc == 0);
    CHECK(read_bytes(same) == read_bytes(F));
    // Compact drops exactly the slack.
    auto small = (t.path / "small.pages").string();
    auto c = nlohmann::json::parse(run({"compact", F, "--out", small, "--json"}).out);
    CHECK(c["saved"] == manifest<nlohmann::json>("l4_s4_dfs_slack.pages")["slack_bytes"]);
    CHECK(c["slack"] == 0);
    // Region → edit → repack: replace the top page with itself under compression 6.
    fs::create_directories(t.path / "rep");
    auto f = PagesFile::open(F);
    auto top = *f.find({3, 0, 0});
    auto payload = f.bytes(top.payload_offset(), top.payload);
    std::ofstream(t.path / "rep" / "3_0_0.c6.bin", std::ios::binary)
        .write(reinterpret_cast<const char*>(payload.data()), std::streamsize(payload.size()));
    auto out = (t.path / "rep.pages").string();
    auto rj =
        nlohmann::json::parse(run({"repack", F, "--replace", (t.path / "rep").string(), "--out", out, "--json"}).out);
    CHECK(rj["replaced_in_place"] == 1);
    CHECK(PagesFile::open(out).find({3, 0, 0})->node.compression == 6);
    // Build from a manifest of extracted payloads.
    nlohmann::json m = {{"levels", 4}, {"scale", 2}, {"order", "dfs"}, {"pages", nlohmann::json::array()}};
    walk_tree(f, [&](const WalkStep& s) {
        const auto k = s.page.key();
        const std::string name = af::sdk::format("%u_%u_%u.bin", k.level, k.x, k.y);
        auto b = f.bytes(s.page.payload_offset(), s.page.payload);
        std::ofstream(t.path / name, std::ios::binary)
            .write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
        m["pages"].push_back({{"level", k.level}, {"x", k.x}, {"y", k.y}, {"payload", name}});
    });
    std::ofstream(t.path / "m.json") << m.dump();
    auto built = (t.path / "built.pages").string();
    auto bj = run({"build", (t.path / "m.json").string(), "--out", built});
    CHECK(bj.rc == 0);
    CHECK_THAT(bj.out, Catch::Contains("selftest ok: built.pages, 5 sentences"));
    CHECK(read_bytes(built) == read_bytes(small)); // same pages, same DFS order, no slack
}

TEST_CASE("repack and compact never write over their input, nor over an existing file without -y", "[command]") {
    TempDir t;
    const fs::path in = t.path / "in.pages";
    fs::copy_file(fixture("l4_s4_dfs_slack.pages"), in);
    const auto original = read_bytes(in);
    fs::create_symlink(in, t.path / "link.pages");
    fs::create_hard_link(in, t.path / "hard.pages");
    for (const char* cmd : {"repack", "compact"}) {
        INFO(cmd);
        // The input itself, a link to it, a hard link to it: refused even with -y.
        for (const char* name : {"in.pages", "link.pages", "hard.pages"})
            for (const char* y : {"", "-y", "--overwrite"}) {
                INFO(name << " " << y);
                std::vector<std::string> argv = {cmd, in.string(), "--out", (t.path / name).string()};
                if (*y) argv.push_back(y);
                auto r = run(argv);
                CHECK(r.rc == 2);
                CHECK_THAT(r.err, Catch::Contains(name) && Catch::Contains("input"));
                CHECK(read_bytes(in) == original);
                CHECK(fs::is_symlink(t.path / "link.pages"));
            }
        // Another existing file: kept unless -y / --overwrite.
        const fs::path other = t.path / "other.pages";
        std::ofstream(other) << "a modder's file\n";
        auto r = run({cmd, in.string(), "--out", other.string()});
        CHECK(r.rc == 2);
        CHECK_THAT(r.err, Catch::Contains("other.pages") && Catch::Contains("exists") && Catch::Contains("-y"));
        CHECK(read_bytes(other).size() == 16);
        // A link planted at the output's name counts as existing too.
        fs::create_symlink(t.path / "elsewhere.txt", t.path / "dangling.pages");
        CHECK(run({cmd, in.string(), "--out", (t.path / "dangling.pages").string()}).rc == 2);
        CHECK_FALSE(fs::exists(t.path / "elsewhere.txt"));
        fs::remove(t.path / "dangling.pages");
        CHECK(run({cmd, in.string(), "--out", other.string(), "-y"}).rc == 0);
        CHECK(PagesFile::open(other).size() > 16);
        fs::remove(other);
        std::ofstream(other) << "again\n";
        CHECK(run({cmd, in.string(), "--out", other.string(), "--overwrite"}).rc == 0);
        fs::remove(other);
    }
}
