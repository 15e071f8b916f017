#include "fixture.hpp"
#include "pages_census.hpp"
#include "pages_edits.hpp"
#include "pages_reader.hpp"
#include "pages_writer.hpp"

#include "assetforge/plugin.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>

using namespace af::vtpages;
using namespace vtpages_test;
namespace fs = std::filesystem;

namespace {

using PageSet = std::map<uint64_t, std::vector<uint8_t>>; // packed key → payload

PageSet pages_of(std::span<const uint8_t> bytes) {
    PagesFile f(bytes);
    PageSet out;
    walk_tree(f, [&](const WalkStep& s) {
        auto b = f.bytes(s.page.payload_offset(), s.page.payload);
        out[s.page.key().packed()] = {b.begin(), b.end()};
    });
    return out;
}

Census census_of(const std::vector<uint8_t>& b) { return take_census(PagesFile({b.data(), b.size()})); }

void write_file(const fs::path& p, std::span<const uint8_t> b) {
    std::ofstream o(p, std::ios::binary);
    o.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

// A valid sub-headed payload derived from `src` with the diffuse block grown
// (delta > 0, random-looking bytes appended) or shrunk (delta < 0).
std::vector<uint8_t> resized_payload(const std::vector<uint8_t>& src, int delta) {
    SubHeader s = decode_sub_header(src.data());
    PayloadLayout l = payload_layout(s);
    const uint64_t d_end = l.block_offset[kDiffuse] + l.block_size[kDiffuse];
    std::vector<uint8_t> out(src.begin(), src.begin() + int64_t(l.total - l.pad));
    if (delta < 0) {
        out.erase(out.begin() + int64_t(d_end) + delta, out.begin() + int64_t(d_end));
    } else {
        std::vector<uint8_t> extra(static_cast<size_t>(delta));
        for (int i = 0; i < delta; ++i) extra[size_t(i)] = uint8_t(i * 37 + 11);
        out.insert(out.begin() + int64_t(d_end), extra.begin(), extra.end());
    }
    s.sizes[kDiffuse] = uint16_t(int(s.sizes[kDiffuse]) + delta);
    encode_sub_header(s, out.data());
    if (out.size() & 1) out.push_back(0);
    REQUIRE(out.size() == s.payload_size());
    return out;
}

// Writes every page's payload of a fixture plus a build manifest reproducing its order and reservations.
fs::path manifest_for(const std::string& name, const fs::path& dir, bool exact_reservations) {
    auto m = manifest<nlohmann::json>(name);
    auto bytes = read_bytes(data_dir() / name);
    PagesFile f({bytes.data(), bytes.size()});
    nlohmann::json out = {{"levels", m["levels"]}, {"scale", m["scale"]}, {"order", m["order"]}};
    nlohmann::json pages = nlohmann::json::array();
    for (const auto& p : m["page_list"]) {
        PageKey k{p["level"].get<uint16_t>(), p["x"].get<uint16_t>(), p["y"].get<uint16_t>()};
        auto info = f.find(k);
        REQUIRE(info);
        const std::string file = af::sdk::format("pl/%u_%u_%u.bin", k.level, k.x, k.y);
        fs::create_directories(dir / "pl");
        write_file(dir / file, f.bytes(info->payload_offset(), info->payload));
        nlohmann::json e = {{"level", k.level}, {"x", k.x}, {"y", k.y}, {"payload", file}};
        if (exact_reservations) e["reserved"] = p["reserved"];
        pages.push_back(e);
    }
    // List them in reverse so the writer's own ordering is what reproduces the file.
    std::reverse(pages.begin(), pages.end());
    out["pages"] = pages;
    if (name.find("jxr") != std::string::npos) out["compression"] = 6;
    std::ofstream(dir / "manifest.json") << out.dump(1);
    return dir / "manifest.json";
}

std::vector<uint8_t> build(const fs::path& manifest_path) {
    const auto text = read_bytes(manifest_path);
    Layout l = layout_from_manifest(std::string(text.begin(), text.end()), manifest_path.parent_path());
    return emit_to_memory(l);
}

} // namespace

TEST_CASE("building a fixture's own pages in its order reproduces make_pages.py's file byte for byte", "[writer]") {
    for (const auto& name : fixture_names()) {
        INFO(name);
        TempDir t;
        auto out = build(manifest_for(name, t.path, true));
        CHECK(out == read_bytes(data_dir() / name));
    }
}

TEST_CASE("build -> selftest -> walk equals the input pages (other order, growth reserve)", "[writer]") {
    for (const auto& name : fixture_names()) {
        INFO(name);
        TempDir t;
        auto mpath = manifest_for(name, t.path, false);
        std::ifstream in(mpath);
        auto m = nlohmann::json::parse(in);
        m["order"] = m["order"] == "bfs" ? "dfs" : "bfs";
        m["reserve"] = 1000;
        std::ofstream(mpath) << m.dump();
        auto out = build(mpath);
        Census c = census_of(out);
        auto want = pages_of(read_bytes(data_dir() / name));
        CHECK(c.pages == want.size());
        CHECK(c.slack >= 1000 * want.size());
        CHECK(pages_of(out) == want);
    }
}

TEST_CASE("an unmodified file rewritten through the layout is byte-identical", "[writer]") {
    for (const auto& name : fixture_names()) {
        INFO(name);
        auto bytes = read_bytes(data_dir() / name);
        PagesFile f({bytes.data(), bytes.size()});
        CHECK(emit_to_memory(layout_of(f)) == bytes);
    }
}

TEST_CASE("compaction shrinks a file by exactly its slack", "[writer]") {
    for (const auto& name : fixture_names()) {
        INFO(name);
        auto m = manifest<nlohmann::json>(name);
        auto bytes = read_bytes(data_dir() / name);
        PagesFile f({bytes.data(), bytes.size()});
        Layout l = layout_of(f);
        compact(l);
        auto out = emit_to_memory(l);
        Census c = census_of(out);
        CHECK(pages_of(out) == pages_of(bytes));
        if (m["scale"].get<int>() == 2) { // pages are even-sized, so no rounding slack remains
            CHECK(bytes.size() - out.size() == m["slack_bytes"].get<uint64_t>());
            CHECK(c.slack == 0);
        } else {
            CHECK(c.slack < uint64_t(m["pages"].get<int>()) * m["scale"].get<uint64_t>());
        }
    }
}

TEST_CASE("repack replaces a page in place when it fits", "[writer][repack]") {
    const auto bytes = read_bytes(data_dir() / "l7_s3_dfs_slack.pages");
    PagesFile f({bytes.data(), bytes.size()});
    auto m = manifest<nlohmann::json>("l7_s3_dfs_slack.pages");
    auto& p = m["page_list"][5];
    PageKey k{p["level"].get<uint16_t>(), p["x"].get<uint16_t>(), p["y"].get<uint16_t>()};
    auto info = *f.find(k);
    auto old = f.bytes(info.payload_offset(), info.payload);
    auto smaller = resized_payload({old.begin(), old.end()}, -101);
    Layout l = layout_of(f);
    RepackReport r;
    replace_page(l, k, smaller, kCompHdp, 0, r);
    auto out = emit_to_memory(l);
    CHECK(r.replaced_in_place == 1);
    CHECK(r.relocated == 0);
    REQUIRE(out.size() == bytes.size());
    // Only the bytes of that page's reservation changed.
    for (size_t i = 0; i < bytes.size(); ++i)
        if (i < info.offset || i >= info.offset + info.reserved) REQUIRE(out[i] == bytes[i]);
    Census c = census_of(out);
    CHECK(c.pages == m["pages"].get<uint64_t>());
    CHECK(c.slack == m["slack_bytes"].get<uint64_t>() + (info.payload - smaller.size())); // 100 or 102: even padding
    CHECK(info.payload - smaller.size() >= 100);
    auto after = pages_of(out);
    CHECK(after[k.packed()] == smaller);
}

TEST_CASE("repack relocates a grown page and rewrites its parent link", "[writer][repack]") {
    const auto bytes = read_bytes(data_dir() / "l8_s1_bfs.pages");
    PagesFile f({bytes.data(), bytes.size()});
    auto before = pages_of(bytes);
    auto m = manifest<nlohmann::json>("l8_s1_bfs.pages");
    SECTION("the freed bytes become the previous page's slack") {
        auto& p = m["page_list"][10];
        PageKey k{p["level"].get<uint16_t>(), p["x"].get<uint16_t>(), p["y"].get<uint16_t>()};
        auto info = *f.find(k);
        auto old = f.bytes(info.payload_offset(), info.payload);
        auto bigger = resized_payload({old.begin(), old.end()}, 3000);
        Layout l = layout_of(f);
        RepackReport r;
        replace_page(l, k, bigger, kCompHdp, 512, r);
        auto out = emit_to_memory(l);
        CHECK(r.relocated == 1);
        CHECK(r.absorbed == info.reserved);
        Census c = census_of(out);
        CHECK(c.pages == before.size());
        PagesFile g({out.data(), out.size()});
        auto moved = *g.find(k);
        CHECK(moved.offset == bytes.size()); // appended after the old end
        CHECK(moved.slack() == 512);
        CHECK(out.size() == bytes.size() + moved.reserved);
        // Everything before the old page is untouched except link fields; every other page's payload is the same.
        auto after = pages_of(out);
        CHECK(after[k.packed()] == bigger);
        after[k.packed()] = before[k.packed()];
        CHECK(after == before);
        // No node magic survives in the freed bytes (now slack).
        for (uint64_t i = info.offset; i + 4 <= info.offset + info.reserved; ++i)
            CHECK_FALSE((out[i] == 0x04 && out[i + 1] == 0xed && out[i + 2] == 0xbf && out[i + 3] == 0xca));
    }
    SECTION("the top page has no page before it: later pages move up") {
        PageKey top{7, 0, 0};
        auto info = *f.find(top);
        auto old = f.bytes(info.payload_offset(), info.payload);
        auto bigger = resized_payload({old.begin(), old.end()}, 2000);
        Layout l = layout_of(f);
        RepackReport r;
        replace_page(l, top, bigger, kCompHdp, 0, r);
        auto out = emit_to_memory(l);
        CHECK(r.relocated == 1);
        CHECK(r.absorbed == 0);
        census_of(out);
        PagesFile g({out.data(), out.size()});
        CHECK(g.find(top)->offset == out.size() - g.find(top)->reserved);
        auto after = pages_of(out);
        CHECK(after[top.packed()] == bigger);
    }
}

TEST_CASE("repack removes and adds subtrees", "[writer][repack]") {
    const auto bytes = read_bytes(data_dir() / "l6_s3_bfs_x4.pages");
    PagesFile f({bytes.data(), bytes.size()});
    auto before = pages_of(bytes);
    // A level-2 page with descendants.
    PageKey victim{};
    walk_tree(f, [&](const WalkStep& s) {
        if (s.page.node.level == 2 && victim.level == 0) victim = s.page.key();
    });
    REQUIRE(victim.level == 2);
    auto under = [&](uint64_t packed) {
        PageKey k{uint16_t(packed >> 32), uint16_t(packed & 0xFFFF), uint16_t((packed >> 16) & 0xFFFF)};
        const int s = victim.level - k.level;
        return k.level <= victim.level && (k.x >> s) == victim.x && (k.y >> s) == victim.y;
    };
    size_t subtree = 0;
    for (auto& [k, v] : before) subtree += under(k);
    Layout l = layout_of(f);
    RepackReport r;
    remove_subtree(l, victim, r);
    CHECK(r.removed == subtree);
    auto out = emit_to_memory(l);
    auto after = pages_of(out);
    CHECK(census_of(out).pages == before.size() - subtree);
    for (auto& [k, v] : before) CHECK(after.count(k) == (under(k) ? 0u : 1u));

    // Put them back, parents first, from the original payloads.
    PagesFile g({out.data(), out.size()});
    Layout l2 = layout_of(g);
    for (int lvl = victim.level; lvl >= 0; --lvl)
        for (auto& [k, v] : before)
            if (under(k) && int(k >> 32) == lvl)
                add_page(l2, {uint16_t(k >> 32), uint16_t(k & 0xFFFF), uint16_t((k >> 16) & 0xFFFF)}, v, kCompHdp, 0,
                         r);
    auto back = emit_to_memory(l2);
    census_of(back);
    CHECK(pages_of(back) == before);
}

TEST_CASE("replacement directories drive repack", "[writer][repack]") {
    const auto bytes = read_bytes(data_dir() / "l5_s2_bfs_slack_jxr.pages");
    PagesFile f({bytes.data(), bytes.size()});
    auto before = pages_of(bytes);
    TempDir t;
    // Grow one leaf, shrink another, remove a third; payloads keep compression 6 (JXR) unless named .cN.
    std::vector<PageKey> leaves;
    walk_tree(f, [&](const WalkStep& s) {
        if (s.page.node.level == 0) leaves.push_back(s.page.key());
    });
    REQUIRE(leaves.size() >= 3);
    auto payload = [&](PageKey k) { return before[k.packed()]; };
    auto grown = resized_payload(payload(leaves[0]), 2500);
    auto shrunk = resized_payload(payload(leaves[1]), -40);
    write_file(t.path / af::sdk::format("0_%u_%u.bin", leaves[0].x, leaves[0].y), grown);
    write_file(t.path / af::sdk::format("0_%u_%u.c5.bin", leaves[1].x, leaves[1].y), shrunk);
    write_file(t.path / af::sdk::format("0_%u_%u.remove", leaves[2].x, leaves[2].y), {});
    Layout l = layout_of(f);
    RepackReport r = apply_edits(l, read_replacement_dir(t.path), 0, kCompHdp);
    CHECK(r.relocated == 1);
    CHECK(r.replaced_in_place == 1);
    CHECK(r.removed == 1);
    auto out = emit_to_memory(l);
    census_of(out);
    PagesFile g({out.data(), out.size()});
    CHECK(g.find(leaves[0])->node.compression == kCompJxr);
    CHECK(g.find(leaves[1])->node.compression == kCompHdp);
    CHECK_FALSE(g.find(leaves[2]));
    auto after = pages_of(out);
    CHECK(after[leaves[0].packed()] == grown);
    CHECK(after[leaves[1].packed()] == shrunk);

    write_file(t.path / "junk.txt", std::vector<uint8_t>{1});
    CHECK_THROWS_WITH(read_replacement_dir(t.path), Catch::Contains("junk.txt"));
}

TEST_CASE("the writer refuses inconsistent page sets", "[writer]") {
    TempDir t;
    auto mpath = manifest_for("l4_s4_dfs_slack.pages", t.path, false);
    std::ifstream in(mpath);
    auto m = nlohmann::json::parse(in);
    SECTION("orphan page") {
        auto orphan = m["pages"][0];
        orphan["x"] = 7;
        orphan["y"] = 7;
        orphan["level"] = 0;
        m["pages"].push_back(orphan);
        // Its parent (1, 3, 3) may exist by chance; pick coordinates whose parent is absent.
        Layout l = layout_from_manifest(m.dump(), t.path);
        bool parent_present = false;
        for (auto& n : l.nodes) parent_present |= (n.key == PageKey{1, 3, 3});
        if (!parent_present) CHECK_THROWS_WITH(emit_to_memory(l), Catch::Contains("has no parent"));
    }
    SECTION("duplicate page") {
        m["pages"].push_back(m["pages"][0]);
        CHECK_THROWS_WITH(emit_to_memory(layout_from_manifest(m.dump(), t.path)), Catch::Contains("twice"));
    }
    SECTION("payload whose length disagrees with its sub-header") {
        write_file(t.path / "bad.bin", std::vector<uint8_t>(100, 0x11));
        m["pages"][0]["payload"] = "bad.bin";
        CHECK_THROWS_WITH(layout_from_manifest(m.dump(), t.path), Catch::Contains("sub-header describes"));
    }
    SECTION("no top page") {
        nlohmann::json pages = nlohmann::json::array();
        for (auto& p : m["pages"])
            if (p["level"].get<int>() != 3) pages.push_back(p);
        m["pages"] = pages;
        CHECK_THROWS_WITH(emit_to_memory(layout_from_manifest(m.dump(), t.path)), Catch::Contains("top page"));
    }
    SECTION("scale that cannot address offset 72") {
        m["scale"] = 64;
        CHECK_THROWS_WITH(layout_from_manifest(m.dump(), t.path), Catch::Contains("unsupported"));
    }
}
