#include "steps/zip_writer.hpp"
#include "test_project.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <iterator>

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

namespace {
std::string file_text(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}
} // namespace

TEST_CASE("a zip update copies the members it shares with the archive it replaces, into a fresh archive's bytes",
          "[zip]") {
    af::engine::test::TestProject t;
    // Compressible, different members: a copy kept as stored is told from one compressed again only by the counts.
    std::string a, b, c, d;
    for (int i = 0; i < 4000; ++i) a += std::to_string(i * 7) + ",", c += std::to_string(i % 97) + ";";
    b = std::string(30000, 'b') + "tail", d = "new member";
    t.write("b_on_disk.bin", b);
    const auto level = GENERATE(0, 1, 6, 9);
    const ZipMethod method = level == 0 ? ZipMethod::Store : ZipMethod::Deflate;
    CAPTURE(level);
    auto from_file = [&](const std::string& name, const std::string& text, const std::string& file) {
        ZipEntry e{name, {}};
        e.file = t.path(file), e.size = text.size(), e.hash = af::hash_bytes(bytes(text));
        return e;
    };
    const auto first = write_zip({{"a.txt", bytes(a)}, from_file("sub/b.bin", b, "b_on_disk.bin"), {"c.txt", bytes(c)}},
                                 {method, level, {}}, t.path("first.zip"));
    CHECK(first.reused == 0);
    CHECK(first.compressed == 3);
    // The same archive from bytes in memory.
    const auto in_memory = make_zip({{"c.txt", bytes(c)}, {"a.txt", bytes(a)}, {"sub/b.bin", bytes(b)}}, method, level);
    CHECK(file_text(t.path("first.zip")) == std::string(in_memory.begin(), in_memory.end()));
    // b edited, c gone, d new: a is copied as it is stored.
    const std::string b2 = b + "edited";
    const std::vector<ZipEntry> second = {{"a.txt", bytes(a)}, {"sub/b.bin", bytes(b2)}, {"d.txt", bytes(d)}};
    const auto updated = write_zip(second, {method, level, t.path("first.zip")}, t.path("updated.zip"));
    CHECK(updated.reused == 1);
    CHECK(updated.compressed == 2);
    write_zip(second, {method, level, {}}, t.path("fresh.zip"));
    CHECK(file_text(t.path("updated.zip")) == file_text(t.path("fresh.zip")));
    // An unchanged set copies every member, and the level is part of what a member is.
    CHECK(write_zip(second, {method, level, t.path("updated.zip")}, t.path("again.zip")).reused == 3);
    if (method == ZipMethod::Deflate)
        CHECK(write_zip(second, {method, level == 9 ? 1 : 9, t.path("updated.zip")}, t.path("other.zip")).reused == 0);
    // What is not an archive (or not one written here) only means nothing is reused.
    t.write("junk.zip", "PK\x03\x04 not really");
    CHECK(write_zip(second, {method, level, t.path("junk.zip")}, t.path("from_junk.zip")).reused == 0);
    CHECK(file_text(t.path("from_junk.zip")) == file_text(t.path("fresh.zip")));

    if (std::system("/usr/bin/python3 -c 'import zipfile' 2>/dev/null") != 0) return;
    const std::string cmd = "/usr/bin/python3 -c \"import zipfile,sys; z=zipfile.ZipFile(sys.argv[1]); "
                            "assert z.testzip() is None; assert z.namelist()==['a.txt','d.txt','sub/b.bin']; "
                            "assert z.read('sub/b.bin').endswith(b'tailedited')\" " +
                            t.path("updated.zip").string();
    CHECK(std::system(cmd.c_str()) == 0);
}
