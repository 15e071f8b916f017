#include "core/atomic_file.hpp"

#include "assetforge/plugin.hpp"

#include <catch2/catch.hpp>
#include <fstream>

using namespace af;
namespace fs = std::filesystem;

TEST_CASE("atomic file appears only on commit") {
    fs::path dir = fs::temp_directory_path() / ("af-atomic-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::path target = dir / "sub" / "out.bin";
    {
        AtomicFile f(target);
        f.write("abc", 3);
        CHECK_FALSE(fs::exists(target));
    } // destroyed without commit
    CHECK_FALSE(fs::exists(target));
    CHECK(fs::is_empty(dir / "sub"));
    write_file_atomic(target, std::string("hello"));
    std::ifstream in(target);
    std::string s;
    in >> s;
    CHECK(s == "hello");
    CHECK(std::distance(fs::directory_iterator(dir / "sub"), fs::directory_iterator()) == 1);
    fs::remove_all(dir);
}
