#include "fixture.hpp"
#include "pages_census.hpp"
#include "pages_reader.hpp"

#include "assetforge/plugin.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>

using namespace af::vtpages;
using namespace vtpages_test;

namespace {

struct Walked {
    uint64_t offset, reserved, used;
    int level, x, y, flags;
    std::vector<int> sizes;
};

std::vector<Walked> walk_sorted(const PagesFile& f) {
    std::vector<Walked> out;
    walk_tree(f, [&](const WalkStep& s) {
        const PageInfo& p = s.page;
        out.push_back({p.offset,
                       p.reserved,
                       p.used(),
                       p.node.level,
                       p.node.x,
                       p.node.y,
                       p.sub.flags,
                       {p.sub.sizes.begin(), p.sub.sizes.end()}});
    });
    std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.offset < b.offset; });
    return out;
}

// The error a census of `bytes` throws; fails the test when none is thrown.
std::string census_error(const std::vector<uint8_t>& bytes, bool check_header = true) {
    try {
        PagesFile f({bytes.data(), bytes.size()});
        take_census(f, check_header);
    } catch (const af::sdk::Error& e) {
        CHECK(e.status() == AF_ERR_INVALID_DATA);
        return e.what();
    }
    FAIL("no error");
    return {};
}

} // namespace

TEST_CASE("fixtures exist", "[reader]") { REQUIRE(fixture_names().size() >= 8); }

TEST_CASE("selftest reports exactly the manifest's counts", "[reader]") {
    for (const auto& name : fixture_names()) {
        INFO(name);
        auto m = manifest<nlohmann::json>(name);
        auto f = PagesFile::open(data_dir() / name);
        CHECK(f.header_problems().empty());
        CHECK(f.levels() == m["levels"].get<int>());
        CHECK(f.scale() == m["scale"].get<uint32_t>());
        CHECK(f.across() == m["across"].get<uint32_t>());
        Census c = take_census(f);
        CHECK(c.pages == m["pages"].get<uint64_t>());
        CHECK(c.edges == m["edges"].get<uint64_t>());
        CHECK(c.slack == m["slack_bytes"].get<uint64_t>());
        CHECK(c.cover_masks == m["cover_masks"].get<uint64_t>());
        CHECK(c.file_size == m["bytes"].get<uint64_t>());
        CHECK(c.used + c.slack == c.file_size);
        for (int l = 0; l < kMaxLevels; ++l) {
            auto key = std::to_string(l);
            uint64_t want = m["per_level"].contains(key) ? m["per_level"][key].get<uint64_t>() : 0;
            CHECK(c.per_level[l] == want);
        }
        CHECK(selftest_line(name, c) == af::sdk::format("selftest ok: %s, %llu sentences, %llu edges, %llu B + %llu B "
                                                        "slack = %llu B",
                                                        name.c_str(), (unsigned long long)c.pages,
                                                        (unsigned long long)c.pages - 1, (unsigned long long)c.used,
                                                        (unsigned long long)c.slack, (unsigned long long)c.file_size));
    }
}

TEST_CASE("walk lists exactly the manifest's pages and offsets", "[reader]") {
    for (const auto& name : fixture_names()) {
        INFO(name);
        auto m = manifest<nlohmann::json>(name);
        auto f = PagesFile::open(data_dir() / name);
        auto walked = walk_sorted(f);
        auto& list = m["page_list"];
        REQUIRE(walked.size() == list.size());
        for (size_t i = 0; i < walked.size(); ++i) {
            const auto& w = walked[i];
            const auto& p = list[i];
            INFO("page " << i);
            CHECK(w.offset == p["offset"].get<uint64_t>());
            CHECK(w.level == p["level"].get<int>());
            CHECK(w.x == p["x"].get<int>());
            CHECK(w.y == p["y"].get<int>());
            CHECK(w.reserved == p["reserved"].get<uint64_t>());
            CHECK(w.used == p["node_len"].get<uint64_t>());
            CHECK(w.flags == p["flags"].get<int>());
            CHECK(w.sizes == p["sizes"].get<std::vector<int>>());
            // Direct lookup agrees with the walk.
            auto found = f.find({uint16_t(w.level), uint16_t(w.x), uint16_t(w.y)});
            REQUIRE(found);
            CHECK(found->offset == w.offset);
        }
    }
}

TEST_CASE("find returns nothing for absent or out-of-grid pages", "[reader]") {
    auto f = PagesFile::open(data_dir() / "l8_s1_bfs.pages");
    CHECK_FALSE(f.find({7, 1, 0}));   // outside the 1×1 top level
    CHECK_FALSE(f.find({20, 0, 0}));  // no such level
    CHECK_FALSE(f.find({0, 128, 0})); // outside the grid
    int absent = 0;
    for (uint16_t y = 0; y < 128 && !absent; ++y)
        for (uint16_t x = 0; x < 128; ++x)
            if (!f.find({0, x, y})) {
                ++absent;
                break;
            }
    CHECK(absent == 1);
}

TEST_CASE("corruptions give specific errors", "[reader][corrupt]") {
    const auto name = std::string("l5_s2_bfs_slack_jxr.pages");
    const auto good = read_bytes(data_dir() / name);
    auto m = manifest<nlohmann::json>(name);
    const uint32_t scale = m["scale"].get<uint32_t>();
    const uint64_t top = 72;
    // First child link of the top page, and the node it points to.
    int slot = 0;
    while (get_u16(good, top + 24 + 2 * slot) == 0) ++slot;
    const uint64_t child = uint64_t(get_u32(good, top + 8 + 4 * slot)) * scale;

    SECTION("bad file magic") {
        auto b = good;
        b[0] = 0;
        CHECK_THAT(census_error(b), Catch::Contains("bad magic"));
    }
    SECTION("bad node magic") {
        auto b = good;
        b[child] ^= 0xFF;
        CHECK_THAT(census_error(b), Catch::Contains("bad node magic") && Catch::Contains(std::to_string(child)));
    }
    SECTION("child with wrong level") {
        auto b = good;
        put_u16(b, child + 36, uint16_t(get_u16(b, child + 36) - 1));
        CHECK_THAT(census_error(b), Catch::Contains("its parent implies level"));
    }
    SECTION("child with wrong coordinates") {
        auto b = good;
        put_u16(b, child + 32, uint16_t(get_u16(b, child + 32) ^ 1));
        CHECK_THAT(census_error(b), Catch::Contains("its parent implies"));
    }
    SECTION("offset past end of file") {
        auto b = good;
        put_u32(b, top + 8 + 4 * slot, uint32_t(b.size() / scale + 10));
        CHECK_THAT(census_error(b), Catch::Contains("past the end of the file"));
    }
    SECTION("overlapping nodes") {
        auto b = good;
        put_u16(b, 32 + 24, uint16_t(get_u16(b, 32 + 24) + 1)); // the top page claims the next node's first bytes
        CHECK_THAT(census_error(b), Catch::Contains("overlapping nodes"));
    }
    SECTION("cycle via a link pointing back to an ancestor") {
        auto b = good;
        uint64_t at = child;
        int s = 0;
        while (s < 4 && get_u16(b, at + 24 + 2 * s) == 0) ++s;
        REQUIRE(s < 4);
        put_u32(b, at + 8 + 4 * s, uint32_t(top / scale));
        CHECK_THAT(census_error(b), Catch::Contains("cycle"));
    }
    SECTION("link into the header") {
        auto b = good;
        put_u32(b, top + 8 + 4 * slot, 0);
        CHECK_THAT(census_error(b), Catch::Contains("inside the file header"));
    }
    SECTION("invalid compression") {
        auto b = good;
        put_u32(b, child + 4, 7);
        CHECK_THAT(census_error(b), Catch::Contains("compression 7"));
    }
    SECTION("payload larger than its reservation") {
        auto b = good;
        b[child + 40 + 6] = 0x7F; // diffuse size high byte
        CHECK_THAT(census_error(b), Catch::Contains("payload needs"));
    }
    SECTION("unreferenced bytes") {
        auto b = good;
        put_u16(b, top + 24 + 2 * slot, 0); // drop a whole subtree: its bytes become unreferenced
        CHECK_THAT(census_error(b), Catch::Contains("unreferenced"));
    }
    SECTION("header invariants") {
        auto b = good;
        put_u32(b, 16, 5);
        CHECK_THAT(census_error(b), Catch::Contains("totalPages"));
        b = good;
        put_u32(b, 4, 64);
        CHECK_THAT(census_error(b), Catch::Contains("pagesWide"));
    }
    SECTION("root pointer with a payload compression") {
        auto b = good;
        put_u32(b, 36, 5);
        CHECK_THAT(census_error(b), Catch::Contains("root pointer"));
    }
}

TEST_CASE("truncated files fail cleanly at every cut", "[reader][corrupt]") {
    const auto good = read_bytes(data_dir() / "l4_s4_dfs_slack.pages");
    std::vector<size_t> cuts;
    for (size_t n = 0; n < 200; ++n) cuts.push_back(n);
    for (size_t n = 200; n < good.size(); n += 97) cuts.push_back(n);
    cuts.push_back(good.size() - 1);
    for (size_t n : cuts) {
        INFO("cut at " << n);
        std::vector<uint8_t> b(good.begin(), good.begin() + n); // exact-size heap copy: ASan sees any overread
        census_error(b, true);
        census_error(b, false);
    }
}

TEST_CASE("random corruption of node headers never crashes or hangs", "[reader][corrupt]") {
    const auto good = read_bytes(data_dir() / "l7_s3_dfs_slack.pages");
    auto m = manifest<nlohmann::json>("l7_s3_dfs_slack.pages");
    std::vector<uint64_t> headers;
    for (auto& p : m["page_list"]) headers.push_back(p["offset"].get<uint64_t>());
    uint32_t state = 12345;
    auto next = [&] { return state = state * 1664525u + 1013904223u; };
    int failures = 0;
    for (int round = 0; round < 3000; ++round) {
        auto b = good;
        for (int k = 0; k < 1 + int(next() % 4); ++k) {
            // Mostly the 40-byte node headers and 16-byte sub-headers, sometimes the file header.
            const uint64_t base = next() % 8 == 0 ? 0 : headers[next() % headers.size()];
            b[base + next() % 56] = uint8_t(next() >> 24);
        }
        try {
            PagesFile f({b.data(), b.size()});
            take_census(f);
        } catch (const af::sdk::Error& e) {
            ++failures;
            CHECK(e.status() == AF_ERR_INVALID_DATA);
        }
    }
    CHECK(failures > 2000); // almost every flip breaks a rule the selftest checks
}
