// What `replace --from` and `build` read: a file too large for a file entry
// is refused from its size, before a byte of it is read, and anything but a
// regular file or a folder at an entry's name (a FIFO, a device) is refused
// by name, never skipped.
#include "fixture.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace evr_test;
namespace fs = std::filesystem;

TEST_CASE("replace --from refuses an 8 GiB sparse file from its size, without reading it", "[replace][input]") {
    const std::string set = "s1";
    const std::string name = manifest_json<nlohmann::json>(set)["name"];
    TempDir t;
    const std::string rel = manifest_json<nlohmann::json>(set)["files"][0]["extract_path"];
    const fs::path big = t.path / "from" / rel;
    fs::create_directories(big.parent_path());
    const int fd = ::open(big.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    REQUIRE(fd >= 0);
    REQUIRE(::ftruncate(fd, off_t(8) << 30) == 0); // sparse: no disk, no memory
    ::close(fd);
    const auto start = std::chrono::steady_clock::now();
    auto r = run_evr({"replace", set_dir(set).string(), name, "--from", (t.path / "from").string(), "--out",
                      (t.path / "out").string()});
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(r.rc == 1);
    CHECK_THAT(r.err, Catch::Contains(big.string()) && Catch::Contains("8589934592 bytes"));
    CHECK(s < 2.0);
    CHECK_FALSE(fs::exists(t.path / "out"));
}

TEST_CASE("replace --from and build refuse a FIFO at an entry's name", "[replace][build][input]") {
    const std::string set = "s1";
    const auto j = manifest_json<nlohmann::json>(set);
    const std::string name = j["name"];
    TempDir t;
    REQUIRE(run_evr({"extract", set_dir(set).string(), name, "--out", (t.path / "x").string()}).rc == 0);
    const std::string rel = j["files"][1]["extract_path"];
    const fs::path fifo = t.path / "from" / rel;
    fs::create_directories(fifo.parent_path());
    REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
    auto r = run_evr({"replace", set_dir(set).string(), name, "--from", (t.path / "from").string(), "--out",
                      (t.path / "out").string()});
    CHECK(r.rc == 1);
    CHECK_THAT(r.err, Catch::Contains(fifo.string()) && Catch::Contains("not a regular file"));
    CHECK_FALSE(fs::exists(t.path / "out"));

    fs::remove(t.path / "x" / rel);
    REQUIRE(::mkfifo((t.path / "x" / rel).c_str(), 0644) == 0);
    r = run_evr({"build", (t.path / "x").string(), "--out", (t.path / "new").string(), "--name", name});
    CHECK(r.rc == 1);
    CHECK_THAT(r.err, Catch::Contains((t.path / "x" / rel).string()) && Catch::Contains("not a regular file"));
}
