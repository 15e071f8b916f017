// Sets whose manifests claim sizes their bytes cannot back: refused from the
// claims alone, with the process's peak memory staying small.
#include "fixture.hpp"

#include "assetforge/bytes.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sys/resource.h>
#include <zstd.h>

using namespace evr_test;
namespace fs = std::filesystem;

namespace {

long peak_rss_mb() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss / 1024;
}

// A copy of s1 whose manifest body went through `edit` (body offsets).
template <class F> fs::path edited_s1(const TempDir& t, F&& edit) {
    fs::copy(set_dir("s1"), t.path / "s1", fs::copy_options::recursive);
    const fs::path mpath = t.path / "s1/manifests/91b7584a2265b1f5";
    const auto file = read_bytes(mpath);
    std::vector<uint8_t> body(2016);
    REQUIRE(ZSTD_decompress(body.data(), body.size(), file.data() + 24, file.size() - 24) == body.size());
    edit(body);
    std::vector<uint8_t> z(ZSTD_compressBound(body.size()));
    z.resize(ZSTD_compress(z.data(), z.size(), body.data(), body.size(), 3));
    af::sdk::ByteWriter w;
    w.append("ZSTD", 4);
    w.u32(16);
    w.u64(body.size());
    w.u64(z.size());
    w.append(z);
    write_bytes(mpath, std::move(w).bytes());
    return mpath;
}

void put_u32(std::vector<uint8_t>& b, size_t off, uint32_t v) {
    for (int i = 0; i < 4; ++i) b[off + i] = uint8_t(v >> (8 * i));
}

// s1: FrameContents at 192 (24 x 32), Metadata at 960 (24 x 40), Frames at 1920 (6 x 16).
constexpr size_t kFramesAt = 1920;

} // namespace

TEST_CASE("a frame claiming nearly 1 GiB from a few hundred bytes is refused without allocating it", "[hostile]") {
    TempDir t;
    const long before = peak_rss_mb();
    for (uint32_t frame = 0; frame < 4; ++frame) {
        const auto m =
            edited_s1(t, [&](std::vector<uint8_t>& b) { put_u32(b, kFramesAt + 16 * frame + 12, 0x3FFFFFFF); });
        INFO("frame " << frame);
        for (const char* cmd : {"verify", "extract"}) {
            std::vector<std::string> argv = {cmd, m.string()};
            if (std::string(cmd) == "extract") argv.insert(argv.end(), {"--out", (t.path / "out").string()});
            const auto r = run_evr(argv);
            CHECK(r.rc == 1);
            CHECK_THAT(r.err, Catch::Contains("frame " + std::to_string(frame) + " (") &&
                                  (Catch::Contains("can produce at most") || Catch::Contains("declares")));
        }
        fs::remove_all(t.path / "s1");
    }
    CHECK(peak_rss_mb() - before < 64);
}

TEST_CASE("a package count far beyond the frame records is refused before looking for parts", "[hostile]") {
    TempDir t;
    const auto m = edited_s1(t, [](std::vector<uint8_t>& b) { put_u32(b, 0, 0xFFFFFFFF); });
    const auto r = run_evr({"verify", m.string()});
    CHECK(r.rc == 1);
    CHECK_THAT(r.err, Catch::Contains("package count 4294967295 exceeds the 6 frame records"));
}

TEST_CASE("a file offset near 2^32 does not wrap around its frame", "[hostile]") {
    TempDir t;
    // File 0: offset 0xFFFFFFF0 and size 0x20 sum past 2^32 in 32 bits.
    const auto m = edited_s1(t, [](std::vector<uint8_t>& b) {
        put_u32(b, 192 + 20, 0xFFFFFFF0);
        put_u32(b, 192 + 24, 0x20);
    });
    const auto r = run_evr({"verify", m.string()});
    CHECK(r.rc == 1);
    CHECK_THAT(r.err,
               Catch::Contains("file 0 (") && Catch::Contains("4294967280..4294967312 run past the end of frame"));
}

TEST_CASE("duplicate (type, file) pairs are refused", "[hostile]") {
    TempDir t;
    const auto m =
        edited_s1(t, [](std::vector<uint8_t>& b) { std::copy_n(b.begin() + 192, 16, b.begin() + 192 + 32); });
    const auto r = run_evr({"verify", m.string()});
    CHECK(r.rc == 1);
    CHECK_THAT(r.err, Catch::Contains("file 1 (") && Catch::Contains("same type and file symbol as file 0"));
    // Several repeated pairs: the first file in manifest order that repeats an
    // earlier one is named (3, a copy of 2), not the first pair in sort order.
    TempDir t2;
    const auto m2 = edited_s1(t2, [](std::vector<uint8_t>& b) {
        for (int j : {5, 6}) std::copy_n(b.begin() + 192, 16, b.begin() + 192 + 32 * j);
        std::copy_n(b.begin() + 192 + 32 * 2, 16, b.begin() + 192 + 32 * 3);
    });
    const auto r2 = run_evr({"verify", m2.string()});
    CHECK(r2.rc == 1);
    CHECK_THAT(r2.err, Catch::Contains("file 3 (") && Catch::Contains("same type and file symbol as file 2"));
}

TEST_CASE("a frame failing after others were extracted leaves no file and no temporary", "[hostile][extract]") {
    TempDir t;
    // Frame 2 holds no texture metadata, so it is decoded in the main pass,
    // after frames 0 and 1 (serially, without a host) have written their files.
    const auto m = edited_s1(t, [](std::vector<uint8_t>& b) { put_u32(b, kFramesAt + 16 * 2 + 12, 8701); });
    const auto r = run_evr({"extract", m.string(), "--out", (t.path / "out").string()});
    CHECK(r.rc == 1);
    CHECK_THAT(r.err, Catch::Contains("frame 2 (") && Catch::Contains("8701"));
    REQUIRE(fs::exists(t.path / "out"));
    for (const auto& e : fs::recursive_directory_iterator(t.path / "out")) CHECK(!e.is_regular_file());
}

TEST_CASE("a hostile alignment cannot make a rebuilt frame huge: counted and refused before it is built",
          "[hostile][replace][limits]") {
    TempDir t;
    // File 1 (frame 0, after file 0's 256 bytes) asks for 2^31 alignment: a
    // rebuild of frame 0 would pad it to 2 GiB (never checked by a reader).
    const auto m = edited_s1(t, [](std::vector<uint8_t>& b) { put_u32(b, 192 + 32 + 28, 0x80000000); });
    REQUIRE(run_evr({"verify", m.string()}).rc == 0);
    const auto j = manifest_json<nlohmann::json>("s1");
    const std::string rel = j["files"][2]["extract_path"]; // 10 bytes in frame 0 too
    write_bytes(t.path / "from" / rel, std::vector<uint8_t>(10, 0xAB));
    const auto r = run_evr_capped(
        {"replace", m.string(), "--from", (t.path / "from").string(), "--out", (t.path / "out").string()}, 256u << 20);
    INFO(r.err);
    CHECK(r.rc == 1);
    CHECK_THAT(r.err, Catch::Contains(m.string() + ": frame 0 (") && Catch::Contains("rebuilt with " + rel) &&
                          Catch::Contains("more than one Echo VR frame may hold (1073741824 bytes"));
    CHECK_FALSE(fs::exists(t.path / "out"));
}
