// Each data frame is decompressed once per extraction or verification: the
// counts come from PackageSet::decompress_counts(), the expectations from the
// generator's manifest.json alone (not from the reader's own tables).
#include "fixture.hpp"
#include "set_extract.hpp"

#include "assetforge/testing/fake_host.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <optional>
#include <set>

using namespace evr_test;
namespace evr = af::evr;

namespace {

const std::string kRaw = "7f5bc1cf8ce51ffd", kMeta = "2f6e61706a2c8f35", kDds = "beac1969cb7b8861";

evr::PackageSet open_set(const std::string& set) {
    return evr::PackageSet(evr::locate_set(set_dir(set), manifest_json<nlohmann::json>(set)["name"]), evr::Limits{},
                           nullptr);
}

// The rule extract_set follows: a data frame is decoded exactly once when it
// holds a chosen file, or when it holds texture metadata (chosen or not) and
// a raw BC texture is chosen, since the DDS header is rebuilt from that
// metadata; every other frame (filtered out, unreferenced, empty) never.
std::vector<uint32_t> expected_extract_counts(const nlohmann::json& j,
                                              const std::optional<std::set<std::string>>& types) {
    bool any_raw = false;
    for (const auto& f : j["files"]) any_raw |= f["type"] == kRaw && (!types || types->count(f["type"]));
    std::vector<uint32_t> want(j["frames"].size());
    for (const auto& f : j["files"]) {
        const size_t fi = f["frame"];
        const bool chosen = !types || types->count(f["type"]);
        if (j["frames"][fi]["length"].get<uint64_t>() > 0 && (chosen || (any_raw && f["type"] == kMeta))) want[fi] = 1;
    }
    return want;
}

std::set<uint64_t> symbols(const std::set<std::string>& hex) {
    std::set<uint64_t> s;
    for (const auto& h : hex) s.insert(std::stoull(h, nullptr, 16));
    return s;
}

} // namespace

TEST_CASE("extract decompresses each needed data frame exactly once, and no other", "[extract][decode-once]") {
    af::sdk::testing::FakeHost host;
    host.set_threads(2);
    // All types; raw BC alone (its metadata frames are decoded, nothing in them
    // written); DDS and metadata without raw BC (no metadata pass); two opaque
    // types only (frames holding just textures and metadata must stay untouched).
    const std::vector<std::optional<std::set<std::string>>> filters = {
        std::nullopt, std::set<std::string>{kRaw}, std::set<std::string>{kDds, kMeta},
        std::set<std::string>{"ca6cd085401cbc87", "38ee951a26fb816a"}};
    int metadata_only = 0, skipped = 0; // frames decoded only for metadata; data frames never decoded
    for (const auto& set : valid_sets()) {
        const auto j = manifest_json<nlohmann::json>(set);
        for (const auto& types : filters) {
            for (const bool groups : {false, true}) {
                INFO(set << (groups ? " --groups" : "") << (types ? " --type " + *types->begin() + "…" : ""));
                const auto want = expected_extract_counts(j, types);
                TempDir t;
                const evr::PackageSet ps = open_set(set);
                evr::ExtractOptions o;
                o.out = t.path;
                o.groups = groups;
                if (types) o.types = symbols(*types);
                const auto s = evr::extract_set(ps, o, host, nullptr);
                CHECK(ps.decompress_counts() == want);
                CHECK(s.files > 0);
                for (size_t fi = 0; fi < want.size(); ++fi) {
                    const bool data = j["frames"][fi]["length"].get<uint64_t>() > 0;
                    skipped += data && !want[fi];
                    bool holds_chosen = false;
                    for (const auto& f : j["files"])
                        holds_chosen |= f["frame"] == fi && (!types || types->count(f["type"]));
                    metadata_only += want[fi] && !holds_chosen;
                }
            }
        }
    }
    // The sets must exercise both sides of the rule, or the check above proves little.
    CHECK(metadata_only > 0);
    CHECK(skipped > 0);
}

TEST_CASE("verify decompresses every data frame exactly once, referenced or not", "[verify][decode-once]") {
    af::sdk::testing::FakeHost host;
    host.set_threads(2);
    for (const auto& set : valid_sets()) {
        INFO(set);
        const auto j = manifest_json<nlohmann::json>(set);
        std::vector<uint32_t> want;
        for (const auto& r : j["frames"]) want.push_back(r["length"].get<uint64_t>() > 0 ? 1 : 0);
        const evr::PackageSet ps = open_set(set);
        evr::verify_set(ps, host, nullptr, nullptr);
        CHECK(ps.decompress_counts() == want);
    }
}
