// Sizes a writer is given are held to what the set's fields and its readers
// take, before anything is read or written: a replacement of 1.2 GiB was once
// read whole (3.7 GB of memory) and written into a set that `verify` refused.
// The readers' frame limit (1 GiB, --max-frame-bytes) is what binds, so these
// tests lower it to a few KiB, or cap the memory a sparse file could take.
#include "fixture.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <unistd.h>

using namespace evr_test;
namespace fs = std::filesystem;

namespace {

// s1's frames hold 8104, 3968, 8700 and 1320 bytes: with this limit the set
// itself reads, and any growth of frame 0 or 2 past it does not.
const std::string kLimit = "8700";

void write_n(const fs::path& p, size_t n, uint8_t fill) { write_bytes(p, std::vector<uint8_t>(n, fill)); }

} // namespace

TEST_CASE("replace refuses a replacement of 1 GiB + 1 byte from its size, without reading it", "[replace][limits]") {
    const std::string set = "s1";
    const auto j = manifest_json<nlohmann::json>(set);
    const std::string name = j["name"];
    TempDir t;
    const fs::path big = t.path / "from" / j["files"][2]["extract_path"].get<std::string>();
    fs::create_directories(big.parent_path());
    const int fd = ::open(big.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    REQUIRE(fd >= 0);
    REQUIRE(::ftruncate(fd, (off_t(1) << 30) + 1) == 0); // sparse: no disk
    ::close(fd);
    // 256 MiB of growth at most: reading the file would fail, not swap.
    auto r = run_evr_capped({"replace", set_dir(set).string(), name, "--from", (t.path / "from").string(), "--out",
                             (t.path / "out").string()},
                            256u << 20);
    INFO(r.err);
    CHECK(r.rc == 1);
    CHECK_THAT(r.err, Catch::Contains(big.string() + ": 1073741825 bytes, more than one Echo VR frame may hold "
                                                     "(1073741824 bytes"));
    CHECK_FALSE(fs::exists(t.path / "out"));
}

TEST_CASE("replace holds files and rebuilt frames to --max-frame-bytes: verify with it accepts what is written",
          "[replace][limits]") {
    const std::string set = "s1";
    const auto j = manifest_json<nlohmann::json>(set);
    const std::string name = j["name"];
    const std::string rel = j["files"][2]["extract_path"]; // 10 bytes in frame 0 (8104 bytes)
    REQUIRE(j["files"][2]["frame"] == 0);
    REQUIRE(run_evr({"verify", set_dir(set).string(), name, "--max-frame-bytes", kLimit}).rc == 0);
    TempDir t;
    const fs::path from = t.path / "from", out = t.path / "out";
    auto replace = [&](std::vector<std::string> extra = {}) {
        std::vector<std::string> argv = {"replace",    set_dir(set).string(), name,  "--from", from.string(), "--out",
                                         out.string(), "--max-frame-bytes",   kLimit};
        argv.insert(argv.end(), extra.begin(), extra.end());
        return run_evr(argv);
    };

    // A file larger than a frame may hold: refused by name, nothing written.
    write_n(from / rel, 8701, 7);
    auto r = replace();
    INFO(r.out << r.err);
    CHECK(r.rc == 1);
    CHECK_THAT(r.err, Catch::Contains((from / rel).string() + ": 8701 bytes, more than one Echo VR frame may hold "
                                                              "(8700 bytes"));
    CHECK_FALSE(fs::exists(out));

    // A file that fits alone, but not beside the other files of its frame.
    write_n(from / rel, 1000, 7);
    r = replace();
    INFO(r.out << r.err);
    CHECK(r.rc == 1);
    CHECK_THAT(r.err, Catch::Contains("frame 0 (") && Catch::Contains("rebuilt with " + rel) &&
                          Catch::Contains("more than one Echo VR frame may hold (8700 bytes"));
    CHECK_FALSE(fs::exists(out));

    // A new file too large for any frame.
    fs::remove_all(from);
    write_n(from / "cd613e30d8f16adf/0000000000000001.bin", 8701, 1);
    r = replace({"--add-new"});
    CHECK(r.rc == 1);
    CHECK_THAT(r.err, Catch::Contains("0000000000000001.bin: 8701 bytes, more than one Echo VR frame may hold"));
    CHECK_FALSE(fs::exists(out));

    // Frame and part sizes no reader or field takes are usage errors.
    write_n(from / "cd613e30d8f16adf/0000000000000001.bin", 100, 1);
    r = replace({"--add-new", "--frame-size", "8701"});
    CHECK(r.rc == 2);
    CHECK_THAT(r.err, Catch::Contains("--frame-size: 8701 bytes, more than one Echo VR frame may hold"));
    r = replace({"--add-new", "--part-size", "2147483648"});
    CHECK(r.rc == 2);
    CHECK_THAT(r.err, Catch::Contains("--part-size: at most 2147483647"));
    CHECK_FALSE(fs::exists(out));

    // Within the limit the set is written, and reads under the same limit.
    fs::remove_all(from);
    write_n(from / rel, 100, 7);
    r = replace();
    INFO(r.out << r.err);
    REQUIRE(r.rc == 0);
    r = run_evr({"verify", out.string(), name, "--strict", "--max-frame-bytes", kLimit});
    INFO(r.err);
    CHECK(r.rc == 0);
}

TEST_CASE("build holds files and frames to --max-frame-bytes", "[build][limits]") {
    const std::string set = "s1";
    const auto j = manifest_json<nlohmann::json>(set);
    const std::string name = j["name"];
    const std::string rel = j["files"][2]["extract_path"];
    TempDir t;
    const fs::path x = t.path / "x", out = t.path / "out";
    REQUIRE(run_evr({"extract", set_dir(set).string(), name, "--out", x.string()}).rc == 0);

    // --frame-size larger than the readers' frame limit (1 GiB by default).
    auto r = run_evr({"build", x.string(), "--out", out.string(), "--name", name, "--frame-size", "1073741825"});
    CHECK(r.rc == 2);
    CHECK_THAT(r.err, Catch::Contains("--frame-size: 1073741825 bytes, more than one Echo VR frame may hold"));
    CHECK_FALSE(fs::exists(out));

    write_n(x / rel, 8701, 3);
    r = run_evr({"build", x.string(), "--out", out.string(), "--name", name, "--max-frame-bytes", kLimit});
    INFO(r.err);
    CHECK(r.rc == 1);
    CHECK_THAT(r.err, Catch::Contains((x / rel).string() + ": 8701 bytes, more than one Echo VR frame may hold "
                                                           "(8700 bytes"));
    CHECK_FALSE(fs::exists(out));

    // At the limit: a frame of its own, and the set reads under the same limit.
    write_n(x / rel, 8700, 3);
    r = run_evr({"build", x.string(), "--out", out.string(), "--name", name, "--max-frame-bytes", kLimit,
                 "--frame-size", "4096"});
    INFO(r.err);
    REQUIRE(r.rc == 0);
    r = run_evr({"verify", out.string(), name, "--strict", "--max-frame-bytes", kLimit});
    INFO(r.err);
    CHECK(r.rc == 0);
}
