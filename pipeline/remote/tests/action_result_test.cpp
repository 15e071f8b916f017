#include "remote/action_result.hpp"

#include "remote/sha256.hpp"
#include "remote_test_support.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <fstream>

using namespace af::remote;
using namespace af::remote::test;

namespace {

// A protobuf wire-format writer of its own, with upstream REAPI field numbers written out by hand, so these tests
// check our .proto and its generated code against the specification rather than against themselves.
std::string varint(uint64_t v) {
    std::string out;
    for (; v >= 0x80; v >>= 7) out += static_cast<char>((v & 0x7f) | 0x80);
    return out + static_cast<char>(v);
}
std::string field_bytes(int field, const std::string& payload) {
    return varint(uint64_t(field) << 3 | 2) + varint(payload.size()) + payload;
}
std::string field_varint(int field, uint64_t v) { return varint(uint64_t(field) << 3) + varint(v); }

std::string digest(const std::string& hash, int64_t size) {
    return field_bytes(1, hash) + field_varint(2, uint64_t(size)); // Digest.hash = 1, Digest.size_bytes = 2
}

const std::string kHashA = sha256_hex(span_of(bytes_of("hello")));
const std::string kHashB = sha256_hex(span_of(bytes_of("world!")));

} // namespace

TEST_CASE("encode then decode gives the same entry") {
    CacheEntry entry{
        {{"textures/a.dds", {kHashA, 5}}, {"b/c/d.png", {kHashB, 6}}, {"empty", {std::string(64, '0'), 0}}}};
    std::string why;
    const auto back = decode_action_result(encode_action_result(entry), &why);
    REQUIRE(back);
    CHECK(*back == entry);
}

TEST_CASE("an ActionResult encoded independently decodes, unknown upstream fields ignored") {
    // ActionResult.output_files = 2 { OutputFile.path = 1, .digest = 2, .is_executable = 4 },
    // ActionResult.stdout_digest = 6 (not declared by us), ActionResult.execution_metadata = 9 { worker = 1 }.
    const std::string bytes =
        field_bytes(2, field_bytes(1, "out/a.dds") + field_bytes(2, digest(kHashA, 5)) + field_varint(4, 1)) +
        field_bytes(2, field_bytes(1, "out/b.dds") + field_bytes(2, digest(kHashB, 6))) +
        field_bytes(6, digest(kHashB, 6)) + field_bytes(9, field_bytes(1, "other-client"));
    std::string why;
    const auto entry = decode_action_result(bytes, &why);
    REQUIRE(entry);
    REQUIRE(entry->files.size() == 2);
    CHECK(entry->files[0] == CachedFile{"out/a.dds", {kHashA, 5}});
    CHECK(entry->files[1] == CachedFile{"out/b.dds", {kHashB, 6}});
}

TEST_CASE("protoc --decode_raw reads our encoding with the upstream field numbers") {
    const std::string bytes = encode_action_result({{{"a/b.dds", {kHashA, 5}}}});
    af::test::TempDir dir("af-proto");
    std::ofstream(dir / "entry.bin", std::ios::binary) << bytes;
    const auto text =
        run_capture(std::string("'") + AF_PROTOC + "' --decode_raw < '" + (dir / "entry.bin").string() + "'");
    REQUIRE(text);
    std::string expected = R"(2 {
  1: "a/b.dds"
  2 {
    1: "HASH"
    2: 5
  }
}
9 {
  1: "assetforge"
}
)";
    expected.replace(expected.find("HASH"), 4, kHashA);
    CHECK(*text == expected);
}

TEST_CASE("bytes that are not an ActionResult, failed actions and directory outputs are refused") {
    std::string why;
    CHECK_FALSE(decode_action_result("this is not a protobuf", &why));
    CHECK(why == "is not an ActionResult protobuf");
    CHECK_FALSE(decode_action_result(std::string("\x12\x7f\x0a", 3), &why)); // a length running past the end
    CHECK_FALSE(decode_action_result(field_bytes(2, field_bytes(1, "a")) + field_varint(4, 1), &why)); // exit_code 1
    CHECK(why.find("exit code 1") != std::string::npos);
    CHECK_FALSE(decode_action_result(field_bytes(3, field_bytes(1, "dir")), &why)); // output_directories
    CHECK_FALSE(decode_action_result(field_bytes(12, field_bytes(1, "link") + field_bytes(2, "target")), &why));
}

TEST_CASE("an entry's warnings travel in stderr_raw, and entries without them stay valid") {
    CacheEntry entry{{{"out/a.dds", {kHashA, 5}}}, {"alpha dropped (BC1 keeps none)", "blue dropped"}};
    std::string why;
    const auto back = decode_action_result(encode_action_result(entry), &why);
    REQUIRE(back);
    CHECK(*back == entry);
    // ActionResult.stderr_raw = 7, one warning a line, as another client's tools would read it.
    const std::string bytes = field_bytes(2, field_bytes(1, "out/a.dds") + field_bytes(2, digest(kHashA, 5))) +
                              field_bytes(7, "alpha dropped\nblue dropped\n");
    const auto independent = decode_action_result(bytes, &why);
    REQUIRE(independent);
    CHECK(independent->warnings == std::vector<std::string>{"alpha dropped", "blue dropped"});
    const auto none =
        decode_action_result(field_bytes(2, field_bytes(1, "out/a.dds") + field_bytes(2, digest(kHashA, 5))), &why);
    REQUIRE(none);
    CHECK(none->warnings.empty());
    // A hostile entry's stderr cannot flood the build's output.
    std::string flood;
    for (int i = 0; i < 1000; ++i) flood += std::string(5000, 'x') + "\n";
    const auto capped = decode_action_result(field_bytes(7, flood), &why);
    REQUIRE(capped);
    REQUIRE(capped->warnings.size() == 64);
    CHECK(capped->warnings[0].size() == 1024);
    CHECK(capped->warnings.back() == "937 more line(s) of warnings in the cache entry");
}

// Found by fuzz_remote_entry (fuzz/seeds/remote_entry/warning_carriage_return.bin): what a build decodes, stores
// and re-uploads must decode to itself, or one client's entry changes on its way through another.
TEST_CASE("an entry decoded from another client's bytes comes back unchanged after encoding") {
    const std::string file = field_bytes(2, field_bytes(1, "out/a.dds") + field_bytes(2, digest(kHashA, 5)));
    std::string why;
    auto round_trip = [&](const std::string& stderr_raw) {
        const auto first = decode_action_result(file + field_bytes(7, stderr_raw), &why);
        REQUIRE(first);
        const auto again = decode_action_result(encode_action_result(*first), &why);
        REQUIRE(again);
        CHECK(again->warnings == first->warnings);
        return first->warnings;
    };
    // A carriage return would also let a line overwrite what the terminal showed before it.
    CHECK(round_trip("otu\rU/sub/a.dds\nnext\r\n") == std::vector<std::string>{"otu U/sub/a.dds", "next "});
    std::string lines;
    for (int i = 0; i < 64; ++i) lines += "line " + std::to_string(i) + "\n";
    CHECK(round_trip(lines).size() == 64); // at the cap: every line, no summary
    const auto over = round_trip(lines + "one more\n");
    REQUIRE(over.size() == 64);
    CHECK(over[62] == "line 62");
    CHECK(over.back() == "2 more line(s) of warnings in the cache entry");
}
