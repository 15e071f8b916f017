#include "assetforge/atomic_file.hpp"
#include "assetforge/mapped_file.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <random>

namespace fs = std::filesystem;

namespace {
struct TempDir {
    fs::path path = fs::temp_directory_path() / ("sdk_files_" + std::to_string(std::random_device{}()));
    TempDir() { fs::create_directories(path); }
    ~TempDir() { fs::remove_all(path); }
};
size_t entries(const fs::path& dir) { return size_t(std::distance(fs::directory_iterator(dir), {})); }
} // namespace

TEST_CASE("AtomicFile: nothing at the target until commit, no temporary left either way") {
    TempDir t;
    const fs::path target = t.path / "sub" / "out.bin";
    {
        af::sdk::AtomicFile f(target);
        f.write("abc", 3);
        CHECK_FALSE(fs::exists(target));
        REQUIRE(entries(target.parent_path()) == 1);
        CHECK(
            fs::directory_iterator(target.parent_path())->path().filename().string().starts_with(af::sdk::kTempPrefix));
    } // abandoned: no commit
    CHECK_FALSE(fs::exists(target));
    CHECK(entries(target.parent_path()) == 0);
    af::sdk::write_file_atomic(target, std::string("hello"));
    CHECK(fs::file_size(target) == 5);
    CHECK(entries(target.parent_path()) == 1);
}

TEST_CASE("MappedFile maps a file and reports errors as AF_ERR_IO") {
    TempDir t;
    af::sdk::write_file_atomic(t.path / "a", std::string("mapped"));
    af::sdk::MappedFile m(t.path / "a");
    CHECK(std::string(reinterpret_cast<const char*>(m.data()), m.size()) == "mapped");
    af::sdk::MappedFile moved = std::move(m);
    CHECK(moved.size() == 6);
    CHECK(m.size() == 0);
    try {
        af::sdk::MappedFile missing(t.path / "none");
        FAIL("no error");
    } catch (const af::sdk::Error& e) {
        CHECK(e.status() == AF_ERR_IO);
    }
}
