// `evr replace`: the repack rules a game-loadable result depends on, checked
// against the generator's sets (file order and identities, Metadata and the
// header's unknown fields kept; untouched frames byte-identical; only
// frames holding a changed file rebuilt; DDS replacements of raw BC textures
// checked against their texture metadata).
#include "fixture.hpp"

#include "package_set.hpp"
#include "zstd_frame.hpp"

#include "assetforge/testing/fake_host.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <map>
#include <set>

using namespace evr_test;
namespace fs = std::filesystem;
using af::evr::PackageSet;

namespace {

PackageSet open_set(const fs::path& data, const std::string& name) {
    return PackageSet(af::evr::locate_set(data, name), {}, nullptr);
}

std::vector<uint8_t> body_of(const fs::path& manifest) {
    const auto file = read_bytes(manifest);
    uint64_t length = 0;
    for (int i = 0; i < 8; ++i) length |= uint64_t(file[8 + i]) << (8 * i);
    auto fb = af::evr::decompress_frame(std::span(file).subspan(24), length, "test", "test");
    return {fb.data.get(), fb.data.get() + fb.size};
}

// sha256 of each data frame's compressed bytes, in table order.
std::vector<std::string> frame_hashes(const PackageSet& s) {
    std::vector<std::string> out;
    for (uint32_t i = 0; i < s.manifest().frames.size(); ++i) {
        if (!s.manifest().frames[i].is_data()) continue;
        auto c = s.compressed(i);
        out.push_back(sha256_hex({c.begin(), c.end()}));
    }
    return out;
}

// extraction path -> sha256 of what `evr extract` writes.
std::map<std::string, std::string> extracted(const fs::path& data, const std::string& name) {
    TempDir t;
    auto r = run_evr({"extract", data.string(), name, "--out", t.path.string()});
    REQUIRE(r.rc == 0);
    std::map<std::string, std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(t.path))
        if (e.is_regular_file())
            out[fs::relative(e.path(), t.path).generic_string()] = sha256_hex(read_bytes(e.path()));
    return out;
}

const nlohmann::json& file_of_kind(const nlohmann::json& j, const std::string& kind, int nth = 0) {
    for (const auto& f : j["files"])
        if (f["kind"] == kind && nth-- == 0) return f;
    FAIL("no file of kind " << kind);
    static nlohmann::json none;
    return none;
}

} // namespace

TEST_CASE("replace with an unedited extraction rebuilds nothing: parts and body are the original's", "[replace]") {
    af::sdk::testing::FakeHost host;
    host.set_threads(2);
    for (const std::string& set : valid_sets()) {
        INFO(set);
        const auto j = manifest_json<nlohmann::json>(set);
        const std::string name = j["name"];
        TempDir t;
        REQUIRE(run_evr({"extract", set_dir(set).string(), name, "--out", (t.path / "x").string()}, host).rc == 0);
        auto r = run_evr({"replace", set_dir(set).string(), name, "--from", (t.path / "x").string(), "--out",
                          (t.path / "out").string()},
                         host);
        REQUIRE(r.rc == 0);
        CHECK_THAT(r.out, Catch::Contains("replaced 0 file(s)") && Catch::Contains("0 frame(s) rebuilt"));
        const PackageSet a = open_set(set_dir(set), name), b = open_set(t.path / "out", name);
        CHECK(frame_hashes(a) == frame_hashes(b));
        // The game's layout is kept by default: the same parts, byte for byte, and the same manifest body. A set
        // of several parts must not become one (installing it would remove the game's other parts).
        REQUIRE(b.part_count() == a.part_count());
        for (uint32_t i = 0; i < a.part_count(); ++i)
            CHECK(read_bytes(t.path / "out/packages" / (name + "_" + std::to_string(i))) ==
                  read_bytes(set_dir(set) / "packages" / (name + "_" + std::to_string(i))));
        CHECK(body_of(t.path / "out/manifests" / name) == body_of(manifest_path(set)));
        // Strict about what the repack introduced; the quirk sets' own oddities are inherited.
        CHECK(run_evr({"verify", (t.path / "out").string(), name, "--strict", "--against", set_dir(set).string()}, host)
                  .rc == 0);
    }
}

TEST_CASE("replace keeps the parts of a set: an edit rebuilds its frame in its own part, --part-size lays out afresh",
          "[replace]") {
    af::sdk::testing::FakeHost host;
    host.set_threads(2);
    const std::string set = "mp";
    const auto j = manifest_json<nlohmann::json>(set);
    const std::string name = j["name"];
    TempDir t;
    REQUIRE(run_evr({"extract", set_dir(set).string(), name, "--out", (t.path / "x").string()}).rc == 0);
    const PackageSet a = open_set(set_dir(set), name);
    REQUIRE(a.part_count() > 1);
    // An opaque file in the last part grows: its frame is rebuilt, and stays in that part.
    const auto& ma = a.manifest();
    uint64_t edited = ma.files.size();
    for (uint64_t i = 0; i < ma.files.size(); ++i)
        if (j["files"][i]["kind"] == "opaque" && ma.frames[ma.files[i].frame].package == a.part_count() - 1) edited = i;
    REQUIRE(edited < ma.files.size());
    const std::string rel = j["files"][edited]["extract_path"];
    auto bytes = read_bytes(t.path / "x" / rel);
    bytes.insert(bytes.end(), 300, 0x42);
    write_bytes(t.path / "edit" / rel, bytes);
    auto r = run_evr({"replace", set_dir(set).string(), name, "--from", (t.path / "edit").string(), "--out",
                      (t.path / "out").string()},
                     host);
    REQUIRE(r.rc == 0);
    const PackageSet b = open_set(t.path / "out", name);
    REQUIRE(b.part_count() == a.part_count());
    for (uint32_t i = 0; i + 1 < a.part_count(); ++i)
        CHECK(read_bytes(t.path / "out/packages" / (name + "_" + std::to_string(i))) ==
              read_bytes(set_dir(set) / "packages" / (name + "_" + std::to_string(i))));
    CHECK(b.manifest().frames[b.manifest().files[edited].frame].package == a.part_count() - 1);
    CHECK(run_evr({"verify", (t.path / "out").string(), name, "--strict"}, host).rc == 0);
    // Asked for a part size, the frames are laid out afresh: everything fits one part of 2^31 - 1 bytes.
    auto sized = run_evr({"replace", set_dir(set).string(), name, "--from", (t.path / "edit").string(), "--out",
                          (t.path / "sized").string(), "--part-size", "2147483647"},
                         host);
    REQUIRE(sized.rc == 0);
    CHECK(open_set(t.path / "sized", name).part_count() == 1);
}

TEST_CASE("replace keeps order, identities, Metadata and unknown fields, rebuilds only frames with a change",
          "[replace]") {
    af::sdk::testing::FakeHost host;
    host.set_threads(2);
    const std::string set = "s2q"; // header-length 24, an unreferenced frame, a non-zero final record, random Metadata
    const auto j = manifest_json<nlohmann::json>(set);
    const std::string name = j["name"];
    TempDir t;
    REQUIRE(run_evr({"extract", set_dir(set).string(), name, "--out", (t.path / "x").string()}).rc == 0);
    // One file of each kind changed; an opaque one grows.
    std::map<std::string, std::vector<uint8_t>> edits;
    for (const std::string kind : {"rawbc-dds", "dds", "opaque"}) {
        const std::string rel = file_of_kind(j, kind)["extract_path"];
        auto b = read_bytes(t.path / "x" / rel);
        if (kind == "opaque") {
            b.insert(b.end(), {1, 2, 3, 4, 5, 6, 7});
        } else {
            b.back() ^= 0x5a; // inside the last mip's blocks
        }
        edits[rel] = b;
        write_bytes(t.path / "edit" / rel, b);
    }
    auto r = run_evr({"replace", set_dir(set).string(), name, "--from", (t.path / "edit").string(), "--out",
                      (t.path / "out").string()},
                     host);
    REQUIRE(r.rc == 0);
    CHECK_THAT(r.out, Catch::Contains("replaced 3 file(s)"));

    const PackageSet a = open_set(set_dir(set), name), b = open_set(t.path / "out", name);
    const auto &ma = a.manifest(), &mb = b.manifest();
    REQUIRE(ma.files.size() == mb.files.size());
    std::set<uint32_t> touched; // original frames holding an edited file
    for (size_t i = 0; i < ma.files.size(); ++i) {
        CHECK(ma.files[i].type == mb.files[i].type);
        CHECK(ma.files[i].file == mb.files[i].file);
        CHECK(ma.files[i].alignment == mb.files[i].alignment);
        CHECK(mb.files[i].offset % std::max(1u, mb.files[i].alignment) == 0);
        const std::string rel = j["files"][i]["extract_path"];
        if (edits.count(rel)) touched.insert(ma.files[i].frame);
    }
    CHECK(body_of(manifest_path(set)).size() == body_of(t.path / "out/manifests" / name).size());
    CHECK(ma.unknown_a == mb.unknown_a);
    CHECK(ma.unknown_b == mb.unknown_b);
    CHECK(ma.paddings == mb.paddings);
    for (int s = 0; s < 3; ++s) {
        CHECK(ma.sections[s].unknown_c == mb.sections[s].unknown_c);
        CHECK(ma.sections[s].unknown_d == mb.sections[s].unknown_d);
    }
    REQUIRE(ma.metadata.size() == mb.metadata.size());
    for (size_t i = 0; i < ma.metadata.size(); ++i) {
        CHECK(ma.metadata[i].unknown_e == mb.metadata[i].unknown_e);
        CHECK(ma.metadata[i].unknown_f == mb.metadata[i].unknown_f);
        CHECK(ma.metadata[i].asset_type == mb.metadata[i].asset_type);
    }
    CHECK(ma.frames.back().csize == mb.frames.back().csize); // the final record's unexplained value, copied
    // Untouched frames: the same compressed bytes in the same order; touched ones differ.
    const auto ha = frame_hashes(a), hb = frame_hashes(b);
    REQUIRE(ha.size() == hb.size());
    uint32_t data_index = 0;
    for (uint32_t i = 0; i < ma.frames.size(); ++i) {
        if (!ma.frames[i].is_data()) continue;
        INFO("frame " << i);
        CHECK((ha[data_index] == hb[data_index]) == !touched.count(i));
        ++data_index;
    }
    // Every file extracts to its original bytes, or to the edit.
    const auto before = extracted(set_dir(set), name), after = extracted(t.path / "out", name);
    CHECK(before.size() == after.size());
    for (const auto& [rel, sha] : after) {
        INFO(rel);
        CHECK(sha == (edits.count(rel) ? sha256_hex(edits[rel]) : before.at(rel)));
    }
}

TEST_CASE("a DDS replacing a raw BC texture must match its texture metadata", "[replace][texture]") {
    const auto j = manifest_json<nlohmann::json>("s1");
    const std::string name = j["name"];
    const std::string rel = file_of_kind(j, "rawbc-dds")["extract_path"];
    TempDir t;
    REQUIRE(run_evr({"extract", set_dir("s1").string(), name, "--out", (t.path / "x").string()}).rc == 0);
    const auto good = read_bytes(t.path / "x" / rel);
    auto replace_with = [&](const std::vector<uint8_t>& dds) {
        fs::remove_all(t.path / "edit");
        fs::remove_all(t.path / "out");
        write_bytes(t.path / "edit" / rel, dds);
        return run_evr({"replace", set_dir("s1").string(), name, "--from", (t.path / "edit").string(), "--out",
                        (t.path / "out").string()});
    };
    auto put32 = [](std::vector<uint8_t>& b, size_t at, uint32_t v) {
        for (int i = 0; i < 4; ++i) b[at + i] = uint8_t(v >> (8 * i));
    };
    auto get32 = [](const std::vector<uint8_t>& b, size_t at) {
        return uint32_t(b[at] | b[at + 1] << 8 | b[at + 2] << 16 | uint32_t(b[at + 3]) << 24);
    };
    CHECK(replace_with(good).rc == 0);

    auto wrong_mips = good; // one mip fewer, data cut to match: a valid DDS the game does not expect
    const uint32_t mips = get32(good, 28);
    REQUIRE(mips >= 1);
    {
        auto r = replace_with([&] {
            auto b = good;
            put32(b, 16, get32(b, 16) * 2); // twice as wide: the data no longer fits the header
            return b;
        }());
        CHECK(r.rc == 1);
        CHECK_THAT(r.err, Catch::Contains(rel) && Catch::Contains("needs"));
        CHECK(!fs::exists(t.path / "out/manifests" / name));
    }
    {
        auto b = good;
        put32(b, 128, 98); // BC7 where the metadata says another family (same block size for BC2/3/5/6/7)
        const uint32_t meta_format = get32(good, 128);
        auto r = replace_with(b);
        if (meta_format >= 97 && meta_format <= 99) {
            CHECK(r.rc == 0);
        } else if (get32(good, 128) == 71 || get32(good, 128) == 72 || get32(good, 128) == 70 ||
                   (meta_format >= 79 && meta_format <= 81)) {
            CHECK(r.rc == 1); // 8-byte blocks: the data size no longer fits
        } else {
            CHECK(r.rc == 1);
            CHECK_THAT(r.err, Catch::Contains("the game expects") && Catch::Contains("re-encode"));
        }
    }
    {
        auto b = good;
        put32(b, 112, 0x200); // a cubemap
        auto r = replace_with(b);
        CHECK(r.rc == 1);
        CHECK_THAT(r.err, Catch::Contains("cubemap"));
    }
    {
        auto b = std::vector<uint8_t>(good.begin(), good.begin() + 100);
        auto r = replace_with(b);
        CHECK(r.rc == 1);
        CHECK_THAT(r.err, Catch::Contains("too short for a DDS header"));
    }
    (void)wrong_mips;
}

TEST_CASE("a legacy DXT header replaces a BC1 raw texture, metadata must stay 256 bytes", "[replace][texture]") {
    // Find a raw BC1 texture in the generator's sets (texconv writes DXT1 headers for BC1 by default).
    TempDir t;
    bool found = false;
    for (const auto& set : valid_sets()) {
        const auto j = manifest_json<nlohmann::json>(set);
        const std::string name = j["name"];
        fs::remove_all(t.path / "x");
        REQUIRE(run_evr({"extract", set_dir(set).string(), name, "--out", (t.path / "x").string()}).rc == 0);
        for (const auto& f : j["files"]) {
            if (f["kind"] != "rawbc-dds") continue;
            const std::string rel = f["extract_path"];
            const auto dds = read_bytes(t.path / "x" / rel);
            const uint32_t fmt = dds[128] | dds[129] << 8;
            if (fmt != 71 && fmt != 70) continue;
            // DX10 header (148 bytes) -> legacy DXT1 (128 bytes), same data.
            auto legacy = dds;
            legacy.erase(legacy.begin() + 128, legacy.begin() + 148);
            legacy[84] = 'D', legacy[85] = 'X', legacy[86] = 'T', legacy[87] = '1';
            fs::remove_all(t.path / "edit");
            write_bytes(t.path / "edit" / rel, legacy);
            auto r = run_evr({"replace", set_dir(set).string(), name, "--from", (t.path / "edit").string(), "--out",
                              (t.path / "out").string()});
            CHECK(r.rc == 0);
            CHECK_THAT(r.out, Catch::Contains("replaced 0 file(s), 1 unchanged")); // same raw blocks: no change
            found = true;
            break;
        }
        if (found) {
            const std::string tmeta = file_of_kind(j, "tmeta")["extract_path"];
            fs::remove_all(t.path / "edit");
            write_bytes(t.path / "edit" / tmeta, std::vector<uint8_t>(255, 0));
            auto r = run_evr({"replace", set_dir(set).string(), name, "--from", (t.path / "edit").string(), "--out",
                              (t.path / "out2").string()});
            CHECK(r.rc == 1);
            CHECK_THAT(r.err, Catch::Contains("256 bytes"));
            break;
        }
    }
    CHECK(found);
}

TEST_CASE("replace refuses unknown files unless --add-new, and appends them with new Metadata", "[replace]") {
    af::sdk::testing::FakeHost host;
    host.set_threads(2);
    const std::string name = manifest_json<nlohmann::json>("s1")["name"];
    TempDir t;
    const std::vector<uint8_t> fresh(700000, 7); // larger than the 512000-byte frame cap: a frame of its own
    write_bytes(t.path / "edit/00000000000000aa/00000000000000bb.bin", fresh);
    write_bytes(t.path / "edit/00000000000000aa/00000000000000bc.bin", {1, 2, 3});
    auto r = run_evr({"replace", set_dir("s1").string(), name, "--from", (t.path / "edit").string(), "--out",
                      (t.path / "o").string()});
    CHECK(r.rc == 1);
    CHECK_THAT(r.err, Catch::Contains("00000000000000aa/00000000000000bb") && Catch::Contains("--add-new"));
    r = run_evr({"replace", set_dir("s1").string(), name, "--from", (t.path / "edit").string(), "--out",
                 (t.path / "o").string(), "--add-new"},
                host);
    REQUIRE(r.rc == 0);
    CHECK_THAT(r.out, Catch::Contains("2 added") && Catch::Contains("4 copied"));
    const PackageSet a = open_set(set_dir("s1"), name), b = open_set(t.path / "o", name);
    REQUIRE(b.manifest().files.size() == a.manifest().files.size() + 2);
    const auto& added = b.manifest().files[a.manifest().files.size()];
    CHECK(added.type == 0xaa);
    CHECK(added.file == 0xbb);
    CHECK(added.frame >= 4); // after the original data frames
    CHECK(b.manifest().metadata.back().file == 0xbc);
    CHECK(b.manifest().metadata.back().unknown_e == 0);
    CHECK(b.manifest().metadata.back().asset_type == 0);
    const auto x = extracted(t.path / "o", name);
    CHECK(x.at("00000000000000aa/00000000000000bb.bin") == sha256_hex(fresh));
    CHECK(run_evr({"verify", (t.path / "o").string(), name, "--strict"}).rc == 0);
}

TEST_CASE("replace never writes over its input, nor over an existing set without --overwrite", "[replace][trust]") {
    const std::string name = manifest_json<nlohmann::json>("mp")["name"];
    TempDir t;
    fs::copy(set_dir("mp"), t.path / "in", fs::copy_options::recursive);
    const auto before = read_bytes(t.path / "in/manifests" / name);
    fs::create_directories(t.path / "empty");
    auto r = run_evr({"replace", (t.path / "in").string(), name, "--from", (t.path / "empty").string(), "--out",
                      (t.path / "in/.").string(), "--overwrite"});
    CHECK(r.rc == 1);
    CHECK_THAT(r.err, Catch::Contains("holds the input set"));
    CHECK(read_bytes(t.path / "in/manifests" / name) == before);

    // A two-part set written first, then a one-part set over it: the stale part goes.
    r = run_evr({"replace", (t.path / "in").string(), name, "--from", (t.path / "empty").string(), "--out",
                 (t.path / "o").string(), "--part-size", "4096"});
    REQUIRE(r.rc == 0);
    CHECK(fs::exists(t.path / "o/packages" / (name + "_1")));
    r = run_evr({"replace", (t.path / "in").string(), name, "--from", (t.path / "empty").string(), "--out",
                 (t.path / "o").string()});
    CHECK(r.rc == 1);
    CHECK_THAT(r.err, Catch::Contains("exists") && Catch::Contains("--overwrite"));
    r = run_evr({"replace", (t.path / "in").string(), name, "--from", (t.path / "empty").string(), "--out",
                 (t.path / "o").string(), "--overwrite", "--part-size", "2147483647"});
    REQUIRE(r.rc == 0);
    CHECK(!fs::exists(t.path / "o/packages" / (name + "_1")));
    auto v = run_evr({"verify", (t.path / "o").string(), name, "--strict"});
    CHECK(v.rc == 0);
    CHECK(v.err.find("exists but") == std::string::npos);
}

TEST_CASE("replace refuses every corrupted set before writing anything", "[replace][corrupt]") {
    TempDir t;
    fs::create_directories(t.path / "empty");
    for (const auto& k : corrupt_kinds()) {
        const std::string kind = "c-" + k;
        INFO(kind);
        const std::string name = manifest_json<nlohmann::json>(kind)["name"];
        // No edit at all: a frame copied as it is must be checked all the same.
        fs::create_directories(t.path / "edit");
        auto r = run_evr({"replace", set_dir(kind).string(), name, "--from", (t.path / "edit").string(), "--out",
                          (t.path / ("o-" + kind)).string()});
        CHECK(r.rc == 1);
        CHECK_THAT(r.err, Catch::StartsWith("error: "));
        CHECK(!fs::exists(t.path / ("o-" + kind) / "manifests" / name));
    }
}
