#include "steps/zip_writer.hpp"
#include "test_project.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>

using namespace af::steps;

namespace {
std::span<const uint8_t> bytes(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }
} // namespace

TEST_CASE("zip output is reproducible and readable by unzip", "[zip]") {
    std::string a(5000, 'a'), b = "second file", c = "ünïcode";
    auto z1 = make_zip({{"b/second.txt", bytes(b)}, {"a.txt", bytes(a)}, {"ü/c.txt", bytes(c)}}, ZipMethod::Deflate, 6);
    auto z2 = make_zip({{"ü/c.txt", bytes(c)}, {"a.txt", bytes(a)}, {"b/second.txt", bytes(b)}}, ZipMethod::Deflate, 6);
    CHECK(z1 == z2);
    CHECK(z1.size() < a.size()); // deflated
    auto stored = make_zip({{"a.txt", bytes(a)}}, ZipMethod::Store, 0);
    CHECK(stored.size() > a.size());
    // Sorted entries: the local header of a.txt comes first.
    std::string s(z1.begin(), z1.end());
    CHECK(s.find("a.txt") < s.find("b/second.txt"));
    CHECK_THROWS_WITH(make_zip({{"../x", bytes(a)}}, ZipMethod::Store, 0), Catch::Contains(".."));
    CHECK_THROWS_WITH(make_zip({{"x", bytes(a)}, {"x", bytes(b)}}, ZipMethod::Store, 0), Catch::Contains("two inputs"));

    // An independent reader: Python's zipfile.
    af::engine::test::TestProject t;
    std::ofstream(t.path("t.zip"), std::ios::binary).write(reinterpret_cast<const char*>(z1.data()), z1.size());
    std::string cmd = "/usr/bin/python3 -c \"import zipfile,sys; z=zipfile.ZipFile(sys.argv[1]); "
                      "assert z.testzip() is None; n=z.namelist(); assert n==['a.txt','b/second.txt','ü/c.txt'], n; "
                      "assert z.read('a.txt')==b'a'*5000; "
                      "assert all(i.date_time==(1980,1,1,0,0,0) for i in z.infolist())\" " +
                      t.path("t.zip").string();
    if (std::system("/usr/bin/python3 -c 'import zipfile' 2>/dev/null") != 0) {
        WARN("python3 not found: skipping the independent zip reader check");
        return;
    }
    CHECK(std::system(cmd.c_str()) == 0);
}

TEST_CASE("a zip of no entries is an empty archive, not an error", "[zip]") {
    auto bytes = make_zip({}, ZipMethod::Deflate, 6);
    REQUIRE(bytes.size() == 22);
    CHECK(bytes[0] == 'P');
    CHECK(bytes[1] == 'K');
    CHECK(bytes[2] == 5);
    CHECK(bytes[3] == 6);
}
