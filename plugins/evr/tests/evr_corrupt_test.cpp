#include "fixture.hpp"

#include "assetforge/testing/fake_host.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace evr_test;
namespace fs = std::filesystem;

namespace {

// The words each kind's message must contain (besides naming what it targets).
std::vector<std::string> expected_words(const std::string& kind) {
    static const std::map<std::string, std::vector<std::string>> words = {
        {"truncated-part", {"run past the end of", "packages/"}},
        {"truncated-manifest", {"archive header says", "truncated manifest"}},
        {"frame-offset", {"run past the end of", "packages/"}},
        {"frame-length", {"the manifest says", "packages/"}},
        {"file-bounds", {"run past the end of frame"}},
        {"bad-magic", {"archive magic", "expected 'ZSTD'"}},
        {"count-mismatch", {"section"}},
        {"zstd-garbage", {"packages/"}},
        {"package-index", {"package index"}},
        {"missing-part", {"is missing"}},
        {"frame-index", {"frame index"}},
        {"archive-length", {"the archive header says"}},
        {"archive-csize", {"compressed bytes", "follow the header"}},
        {"element-size", {"element size", "unsupported manifest layout"}},
        {"trailing-bytes", {"follow the end of the zstd frame"}},
        {"sections-overflow", {"Frames section", "runs past the end"}},
    };
    return words.at(kind);
}

// "frame 3" / "file 2" / "section 1" / "part 0" from the generator's target.
std::string target_words(const nlohmann::json& corrupt) {
    const std::string t = corrupt["target"];
    static const char* const kSections[] = {"FrameContents section", "Metadata section", "Frames section"};
    if (t.rfind("section ", 0) == 0) return kSections[std::stoi(t.substr(8))];
    // Built by append: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string here.
    std::string words;
    if (t.rfind("part ", 0) == 0) return words.append("_").append(t, 5);
    if (t.rfind("archive", 0) == 0) return "manifests/";
    return words.append(t).append(" ");
}

} // namespace

TEST_CASE("all sixteen corruption kinds of the generator are present", "[corrupt]") {
    CHECK(corrupt_kinds().size() == 16);
}

TEST_CASE("every corruption kind is refused by verify and extract with a clear message", "[corrupt]") {
    af::sdk::testing::FakeHost host;
    host.set_threads(2);
    for (const auto& kind : corrupt_kinds()) {
        INFO(kind);
        const std::string set = "c-" + kind;
        const auto j = manifest_json<nlohmann::json>(set);
        REQUIRE(j["corrupt"]["kind"] == kind);
        for (const char* cmd : {"verify", "extract"}) {
            INFO(cmd);
            TempDir t;
            std::vector<std::string> argv = {cmd, set_dir(set).string(), j["name"]};
            if (std::string(cmd) == "extract") argv.insert(argv.end(), {"--out", (t.path / "out").string()});
            const auto r = run_evr(argv, host);
            CHECK(r.rc == 1);
            CHECK(r.out.empty());
            CHECK_THAT(r.err, Catch::StartsWith("error: "));
            for (const auto& w : expected_words(kind)) CHECK_THAT(r.err, Catch::Contains(w));
            CHECK_THAT(r.err, Catch::Contains(target_words(j["corrupt"])));
            // Damage found from the manifest and part sizes alone stops extraction
            // before it writes anything; damage inside a frame (check 12) is found
            // while decoding, and the outputs are renamed into place only when every
            // frame decoded, so no file (and no temporary) is left either way.
            const bool content = kind == "zstd-garbage" || kind == "trailing-bytes" || kind == "frame-length";
            if (!content) CHECK(!fs::exists(t.path / "out"));
            if (fs::exists(t.path / "out"))
                for (const auto& e : fs::recursive_directory_iterator(t.path / "out")) CHECK(!e.is_regular_file());
        }
    }
}

TEST_CASE("the documented seed-1 frame-length message", "[corrupt]") {
    const auto j = manifest_json<nlohmann::json>("c-frame-length");
    const auto r = run_evr({"verify", manifest_path("c-frame-length").string()});
    CHECK(r.rc == 1);
    // The set's frame 3 has no content size, so the length is found while decoding.
    CHECK_THAT(r.err,
               Catch::Contains("frame 3 (") && Catch::Contains("packages/91b7584a2265b1f5_0 @ 3733, 274 bytes)"));
}
