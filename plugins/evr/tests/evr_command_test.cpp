#include "fixture.hpp"

#include "assetforge/plugin.hpp"
#include "assetforge/testing/fake_host.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace evr_test;
namespace fs = std::filesystem;

extern "C" const af_plugin* assetforge_plugin_entry(const af_host*);

TEST_CASE("verify: clean sets pass, quirks are warnings that fail only --strict", "[verify]") {
    af::sdk::testing::FakeHost host;
    host.set_threads(2);
    auto r = run_evr({"verify", set_dir("s1").string(), "91b7584a2265b1f5"}, host);
    CHECK(r.rc == 0);
    CHECK(r.err.empty());
    CHECK_THAT(r.out,
               Catch::StartsWith("ok: ") && Catch::Contains("24 files, 4 data frames, 6 frame records, 1 part(s)"));
    CHECK(run_evr({"verify", manifest_path("mp").string(), "--strict"}, host).rc == 0);

    // --quirks: header-length 24, a frame no file points at, a non-zero final record (accepted silently).
    auto q = run_evr({"verify", manifest_path("s2q").string()}, host);
    CHECK(q.rc == 0);
    CHECK_THAT(q.err, Catch::Contains("warning: ") && Catch::Contains("header-length field is 24") &&
                          Catch::Contains("holds no file"));
    CHECK_THAT(q.err, !Catch::Contains("empty record"));
    auto s = run_evr({"verify", manifest_path("s2q").string(), "--strict"}, host);
    CHECK(s.rc == 1);
    CHECK_THAT(s.err, Catch::Contains("--strict"));
}

TEST_CASE("verify warns when raw BC metadata does not fit (the file will be written as .bc)", "[verify][texture]") {
    auto r = run_evr({"verify", manifest_path("mp").string(), "--strict"});
    CHECK(r.rc == 0); // a clean set may hold such textures: not a structural warning
    CHECK_THAT(r.err, Catch::Contains("warning: file ") && Catch::Contains("written as .bc"));
    CHECK_THAT(r.out, Catch::Contains("0 warning(s)"));
}

TEST_CASE("usage errors exit 2, missing sets exit 1", "[command]") {
    CHECK(run_evr({}).rc == 2);
    CHECK(run_evr({"bogus"}).rc == 2);
    CHECK(run_evr({"list"}).rc == 2);
    CHECK(run_evr({"list", "a", "b", "c"}).rc == 2);
    CHECK(run_evr({"extract", set_dir("s1").string(), "91b7584a2265b1f5"}).rc == 2); // no --out
    CHECK(run_evr({"verify", manifest_path("s1").string(), "--bogus"}).rc == 2);
    CHECK(run_evr({"--help"}).rc == 0);
    TempDir t;
    auto r = run_evr({"list", t.path.string(), "0123456789abcdef"});
    CHECK(r.rc == 1);
    CHECK_THAT(r.err, Catch::Contains("manifests/0123456789abcdef") && Catch::Contains("cannot read the manifest"));
}

TEST_CASE("a part numbered past the package count is a warning", "[verify]") {
    TempDir t;
    fs::copy(set_dir("s1"), t.path / "s1", fs::copy_options::recursive);
    write_bytes(t.path / "s1/packages/91b7584a2265b1f5_1", {1, 2, 3});
    auto r = run_evr({"verify", (t.path / "s1").string(), "91b7584a2265b1f5"});
    CHECK(r.rc == 0);
    CHECK_THAT(r.err, Catch::Contains("91b7584a2265b1f5_1: exists but the manifest names only 1 part(s)"));
}

TEST_CASE("info on a manifest through the container route", "[info]") {
    af::sdk::testing::FakeHost host;
    const af_container* c = assetforge_plugin_entry(host)->containers[0]; // plugin.cpp is built in
    const auto bytes = read_bytes(manifest_path("s2q"));
    REQUIRE(c->probe(bytes.data(), bytes.size(), "x") == AF_PROBE_MAGIC);
    const uint8_t dds[8] = {'D', 'D', 'S', ' ', 124, 0, 0, 0};
    CHECK(c->probe(dds, 8, "x.dds") == AF_PROBE_NO);
    af_input in{};
    af::sdk::init_header(in);
    in.path = "s2q/manifests/dcf4bb99f4bea973";
    in.data = bytes.data();
    in.size = bytes.size();
    af_info_text out{};
    af_error err{};
    REQUIRE(c->info(host, &in, nullptr, &out, &err) == AF_OK);
    const auto j = nlohmann::json::parse(out.json);
    CHECK(j["files"] == 24);
    CHECK(j["package_count"] == 1);
    CHECK(j["archive_header_length"] == 24);
    CHECK(j["types"]["7f5bc1cf8ce51ffd"] == 6);
    CHECK_THAT(std::string(out.text), Catch::Contains("texture_bc_raw") && Catch::Contains("warning: "));
    host.get()->free(out.json);
    host.get()->free(out.text);

    const auto bad = read_bytes(manifest_path("c-count-mismatch"));
    in.data = bad.data();
    in.size = bad.size();
    CHECK(c->info(host, &in, nullptr, &out, &err) == AF_ERR_INVALID_DATA);
    CHECK_THAT(std::string(err.message), Catch::Contains("section"));
    CHECK(host.live_allocations() == 0);
}

TEST_CASE("the refusal limits are options", "[command][hostile]") {
    // s1's body is 2016 bytes and its largest frame 8192 or less.
    auto m = run_evr({"verify", manifest_path("s1").string(), "--max-manifest-bytes", "2000"});
    CHECK(m.rc == 1);
    CHECK_THAT(m.err, Catch::Contains("needs 192 .. 2000"));
    auto f = run_evr({"list", manifest_path("s1").string(), "--max-frame-bytes", "100"});
    CHECK(f.rc == 1);
    CHECK_THAT(f.err, Catch::Contains("over this reader's 100-byte limit"));
    CHECK(run_evr({"verify", manifest_path("s1").string(), "--max-frame-bytes", "-5"}).rc == 2);
    CHECK(run_evr({"verify", manifest_path("s1").string(), "--max-frame-bytes", "1048576"}).rc == 0);
}
