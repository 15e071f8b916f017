// `evr replace` with a --from tree holding only some files: the modder's
// normal case. Every file of sets whose texture metadata sits in other frames
// than its texture (one file per frame) and of sets with quirks is replaced
// alone, unchanged and edited; the result holds exactly the edit.
#include "fixture.hpp"

#include "assetforge/testing/fake_host.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace evr_test;
namespace fs = std::filesystem;

namespace {

// A legal edit of a file's extraction: a byte inside the data (DDS and
// raw BC: the last mip's last block; texture metadata: a reserved byte, its
// layout is kept) or, for opaque files, a few bytes more.
std::vector<uint8_t> edited(std::vector<uint8_t> b, const std::string& kind) {
    if (kind == "tmeta") {
        b.at(0x80) ^= 0x21;
    } else if (kind == "opaque" || b.empty()) {
        b.insert(b.end(), {7, 6, 5});
    } else {
        b.back() ^= 0x5a;
    }
    return b;
}

} // namespace

TEST_CASE("replace with a --from holding one file works for every file of sets with metadata in other frames "
          "and with quirks",
          "[replace][partial]") {
    af::sdk::testing::FakeHost host;
    host.set_threads(2);
    for (const std::string set : {"f1", "f1q", "s2q", "s7q"}) {
        const auto j = manifest_json<nlohmann::json>(set);
        const std::string name = j["name"];
        TempDir t;
        REQUIRE(run_evr({"extract", set_dir(set).string(), name, "--out", (t.path / "x").string()}, host).rc == 0);
        const auto original = tree_sha256(t.path / "x");
        for (const auto& f : j["files"]) {
            const std::string rel = f["extract_path"], kind = f["kind"];
            for (const bool edit : {false, true}) {
                INFO(set << " " << rel << " (" << kind << ")" << (edit ? " edited" : " unchanged"));
                const fs::path from = t.path / "from", out = t.path / "out", back = t.path / "back";
                for (const auto& d : {from, out, back}) fs::remove_all(d);
                auto bytes = read_bytes(t.path / "x" / rel);
                if (edit) bytes = edited(std::move(bytes), kind);
                write_bytes(from / rel, bytes);
                auto r = run_evr(
                    {"replace", set_dir(set).string(), name, "--from", from.string(), "--out", out.string()}, host);
                INFO(r.err);
                REQUIRE(r.rc == 0);
                CHECK_THAT(r.out, Catch::Contains(edit ? "replaced 1 file(s), 0 unchanged"
                                                       : "replaced 0 file(s), 1 unchanged"));
                CHECK(run_evr({"verify", out.string(), name}, host).rc == 0);
                REQUIRE(run_evr({"extract", out.string(), name, "--out", back.string()}, host).rc == 0);
                auto want = original;
                want[rel] = sha256_hex(bytes);
                CHECK(tree_sha256(back) == want);
            }
        }
    }
}
