#include "assetforge/atomic_file.hpp"

#include "assetforge/plugin.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <vector>

using namespace af;
namespace fs = std::filesystem;

TEST_CASE("atomic file appears only on commit") {
    fs::path dir = fs::temp_directory_path() / ("af-atomic-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::path target = dir / "sub" / "out.bin";
    {
        sdk::AtomicFile f(target);
        f.write("abc", 3);
        CHECK_FALSE(fs::exists(target));
    } // destroyed without commit
    CHECK_FALSE(fs::exists(target));
    CHECK(fs::is_empty(dir / "sub"));
    sdk::write_file_atomic(target, std::string("hello"));
    std::ifstream in(target);
    std::string s;
    in >> s;
    CHECK(s == "hello");
    CHECK(std::distance(fs::directory_iterator(dir / "sub"), fs::directory_iterator()) == 1);
    fs::remove_all(dir);
}

TEST_CASE("an output name of 255 bytes commits: the temporary's name does not grow with it") {
    fs::path dir = fs::temp_directory_path() / ("af-atomic-long-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    const std::string name = std::string(251, 'n') + ".bin";
    REQUIRE(name.size() == 255);
    {
        sdk::AtomicFile f(dir / name);
        f.write("abc", 3);
        // The temporary sits beside the target, recognisable by its prefix.
        std::vector<std::string> names;
        for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
        REQUIRE(names.size() == 1);
        CHECK(names[0].rfind(sdk::kTempPrefix, 0) == 0);
        CHECK(names[0].size() == 24);
        f.commit();
    }
    CHECK(fs::file_size(dir / name) == 3);
    CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
    fs::remove_all(dir);
}

TEST_CASE("an atomic file never writes through a link: not at its temporary's name, not in a folder leading out") {
    fs::path base = fs::temp_directory_path() / ("af-atomic-links-" + std::to_string(::getpid()));
    fs::remove_all(base);
    fs::create_directories(base / "root");
    fs::create_directories(base / "elsewhere");
    { std::ofstream(base / "elsewhere/victim.txt") << "precious"; }
    // A folder inside the root that is a link out of it.
    fs::create_symlink(base / "elsewhere", base / "root/linked");
    try {
        sdk::AtomicFile f(base / "root/linked/out.bin", {.within = base / "root"});
        FAIL("written through the link");
    } catch (const std::exception& e) {
        CHECK_THAT(e.what(), Catch::Contains("outside") && Catch::Contains("root/linked"));
    }
    CHECK(std::distance(fs::directory_iterator(base / "elsewhere"), fs::directory_iterator()) == 1);
    // Inside the root, and a link at the target's name: replaced, its target untouched.
    fs::create_symlink(base / "elsewhere/victim.txt", base / "root/out.bin");
    {
        sdk::AtomicFile f(base / "root/out.bin", {.within = base / "root"});
        f.write("new", 3);
        f.commit();
    }
    CHECK_FALSE(fs::is_symlink(base / "root/out.bin"));
    std::ifstream in(base / "elsewhere/victim.txt");
    std::string s;
    in >> s;
    CHECK(s == "precious");
    fs::remove_all(base);
}
