// `build --remote-cache` against a real nginx serving Bazel's HTTP cache
// protocol (tests/support/nginx-cache.sh): hits in a fresh clone, misses,
// uploads, read-only consumers, a cache that is down, failing, or hands out
// garbage, truncated or wrong blobs or a hostile entry (never committed: the
// action is built locally), concurrent builds on one cache, and the CI-matrix
// recipe (shards, then a gather build that finds the rest in the cache).
#include "cli_run.hpp"
#include "remote/action_result.hpp"
#include "remote/sha256.hpp"
#include "support/nginx_server.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <future>
#include <map>

namespace fs = std::filesystem;
using af::test::run_in;
using af::test::slurp;
using af::test::TempDir;

namespace {

const fs::path kImages = fs::path(AF_SOURCE_DIR) / "plugins/bc/tests/data";

const char* kPipeline = R"(assetforge: 1
jobs:
  textures:
    inputs: "src/*.png"
    steps:
      - mips
      - encode: { format: bc1, quality: fast }
    output: "out/{stem}.dds"
  pack:
    from: textures
    gather: { zip: { compression: store } }
    output: "out/mod.zip"
)";

// A checkout of the project: sources and pipeline, no outputs, no state.
void checkout(const TempDir& t) {
    for (const char* f : {"a_palm_128.png", "d_rock_128.png", "d_wallpaper_128.png", "n_rock_128.png"})
        t.copy(kImages / f, std::string("src/") + f);
    t.write("pipeline.yaml", kPipeline);
}

std::map<std::string, std::string> outputs(const TempDir& t) {
    std::map<std::string, std::string> m;
    for (const auto& e : fs::recursive_directory_iterator(t / "out"))
        if (e.is_regular_file() && e.path().string().find(".assetforge") == std::string::npos)
            m[e.path().lexically_relative(t.path()).generic_string()] = slurp(e.path());
    return m;
}

std::vector<fs::path> files_in(const fs::path& dir) {
    std::vector<fs::path> v;
    std::error_code ec;
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); ++it) v.push_back(*it);
    return v;
}

size_t count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t p = 0; (p = text.find(what, p)) != std::string::npos; p += what.size()) ++n;
    return n;
}

// One build with the cache, from a fresh checkout, and its outputs.
struct Reference {
    TempDir dir;
    af::test::Run run;
    Reference(const af::test::NginxServer& cache, const std::string& extra = "") {
        checkout(dir);
        run = run_in(dir.path(), "build pipeline.yaml --remote-cache " + cache.url() + " " + extra);
        REQUIRE(run.code == 0);
    }
};

} // namespace

TEST_CASE("remote cache: a fresh clone gets every action from the cache, byte for byte") {
    af::test::NginxServer cache;
    Reference a(cache);
    CHECK_THAT(a.run.out, Catch::Contains("5 built, 0 from cache"));
    CHECK(files_in(cache.cache_dir() / "ac").size() == 5);
    TempDir b;
    checkout(b);
    auto st = run_in(b.path(), "status pipeline.yaml --remote-cache " + cache.url());
    // The zip's key needs its inputs' hashes, which only exist once they are fetched: status cannot tell.
    CHECK_THAT(st.out, Catch::Contains("textures: 4 would run (4 new input), 4 of them from the remote cache"));
    CHECK_THAT(st.out, Catch::Contains("5 action(s) would run (4 from the remote cache)"));
    auto r = run_in(b.path(), "build pipeline.yaml --remote-cache " + cache.url());
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("0 built, 5 from cache"));
    CHECK(r.out.find("warning") == std::string::npos);
    CHECK(outputs(b) == outputs(a.dir));
    // Then it is an ordinary build: up to date, and edits are protected as ever.
    auto again = run_in(b.path(), "build pipeline.yaml --remote-cache " + cache.url());
    CHECK_THAT(again.out, Catch::Contains("0 built, 0 from cache, 5 up to date"));
}

TEST_CASE("remote cache: --remote-upload=false reads but never writes") {
    af::test::NginxServer cache;
    TempDir a;
    checkout(a);
    auto r = run_in(a.path(), "build pipeline.yaml --remote-cache " + cache.url() + " --remote-upload=false");
    REQUIRE(r.code == 0);
    CHECK(files_in(cache.cache_dir() / "ac").empty());
    CHECK(files_in(cache.cache_dir() / "cas").empty());
    for (const auto& line : cache.access_log()) CHECK(line.rfind("PUT", 0) != 0);
    Reference filled(cache);
    TempDir c;
    checkout(c);
    auto hit = run_in(c.path(), "build pipeline.yaml --remote-cache " + cache.url() + " --remote-upload=false");
    CHECK_THAT(hit.out, Catch::Contains("0 built, 5 from cache"));
}

TEST_CASE("remote cache: the URL may come from the environment or the pipeline file, never with credentials") {
    af::test::NginxServer cache;
    TempDir a;
    checkout(a);
    a.write("pipeline.yaml", std::string("remote_cache: ") + cache.url() + "\n" + kPipeline);
    auto r = run_in(a.path(), "build pipeline.yaml");
    REQUIRE(r.code == 0);
    CHECK(files_in(cache.cache_dir() / "ac").size() == 5);
    TempDir d;
    checkout(d);
    const std::string cmd =
        "ASSETFORGE_REMOTE_CACHE=" + cache.url() + " " + std::string(AF_EXE) + " build pipeline.yaml";
    const auto sh = af::test::run_shell("cd '" + d.path().string() + "' && " + cmd);
    CHECK(sh.code == 0);
    const std::string& out = sh.out;
    CHECK_THAT(out, Catch::Contains("0 built, 5 from cache"));
    TempDir e;
    checkout(e);
    e.write("pipeline.yaml", "remote_cache: http://user:secret@127.0.0.1:1/\n" + std::string(kPipeline));
    auto bad = run_in(e.path(), "build pipeline.yaml");
    CHECK(bad.code == 2);
    CHECK_THAT(bad.out, Catch::Contains("no credentials in the pipeline file"));
    CHECK(bad.out.find("secret") == std::string::npos);
}

TEST_CASE("remote cache: a cache that is down or failing is a warning, once, and the build goes on locally") {
    af::test::NginxServer cache;
    for (const std::string& url : {std::string("http://127.0.0.1:1"), cache.url() + "/err500"}) {
        TempDir a;
        checkout(a);
        auto r = run_in(a.path(), "build pipeline.yaml --remote-cache " + url);
        INFO(r.out);
        CHECK(r.code == 0);
        CHECK_THAT(r.out, Catch::Contains("5 built, 0 from cache"));
        CHECK(count(r.out, "warning: remote cache") == 1);
    }
}

TEST_CASE("remote cache: garbage, truncated, wrong or hostile entries are never committed") {
    af::test::NginxServer cache;
    Reference ref(cache);
    const auto expected = outputs(ref.dir);
    auto ac = files_in(cache.cache_dir() / "ac");
    auto cas = files_in(cache.cache_dir() / "cas");
    REQUIRE(ac.size() == 5);
    std::map<fs::path, std::string> saved_ac, saved_cas;
    for (const auto& f : ac) saved_ac[f] = slurp(f);
    for (const auto& f : cas) saved_cas[f] = slurp(f);
    auto restore = [&] {
        for (const auto& [f, bytes] : saved_ac) std::ofstream(f, std::ios::binary) << bytes;
        for (const auto& [f, bytes] : saved_cas) std::ofstream(f, std::ios::binary) << bytes;
    };
    auto try_build = [&](const char* what) {
        INFO(what);
        TempDir b;
        checkout(b);
        auto r = run_in(b.path(), "build pipeline.yaml --remote-cache " + cache.url() + " --remote-upload=false");
        INFO(r.out);
        CHECK(r.code == 0);
        CHECK_THAT(r.out, Catch::Contains("5 built, 0 from cache"));
        CHECK(count(r.out, "warning: remote cache") == 1);
        CHECK(outputs(b) == expected);
        // Sources are untouched whatever an entry named.
        CHECK(slurp(b / "src/a_palm_128.png") == slurp(kImages / "a_palm_128.png"));
        restore();
    };
    for (const auto& f : ac) std::ofstream(f, std::ios::binary) << "\x0a\xff\xff\xff garbage";
    try_build("garbage action-cache entries");
    for (const auto& f : cas) fs::resize_file(f, fs::file_size(f) / 2);
    try_build("truncated blobs");
    for (const auto& f : cas) {
        std::string bytes = saved_cas[f];
        for (auto& c : bytes) c = char(c ^ 0x5a);
        std::ofstream(f, std::ios::binary) << bytes;
    }
    try_build("blobs whose contents do not match their digest");
    // Entries that name a source file and the pipeline, with blobs that exist and match.
    const std::string blob = "not a texture";
    const std::string digest =
        af::remote::sha256_hex(std::span(reinterpret_cast<const uint8_t*>(blob.data()), blob.size()));
    cache.write_file("cas/" + digest, blob);
    af::remote::CacheEntry hostile;
    hostile.files.push_back({"src/a_palm_128.png", {digest, int64_t(blob.size())}});
    hostile.files.push_back({"pipeline.yaml", {digest, int64_t(blob.size())}});
    for (const auto& f : ac) std::ofstream(f, std::ios::binary) << af::remote::encode_action_result(hostile);
    try_build("entries naming files that are not the job's outputs");
}

TEST_CASE("remote cache: builds running at the same time share one cache") {
    af::test::NginxServer cache;
    TempDir a, b, c;
    for (auto* t : {&a, &b, &c}) checkout(*t);
    auto go = [&](const TempDir& t) {
        return std::async(std::launch::async,
                          [&] { return run_in(t.path(), "build pipeline.yaml --remote-cache " + cache.url()); });
    };
    auto fa = go(a), fb = go(b), fc = go(c);
    auto ra = fa.get(), rb = fb.get(), rc = fc.get();
    CHECK(ra.code == 0);
    CHECK(rb.code == 0);
    CHECK(rc.code == 0);
    CHECK(outputs(a) == outputs(b));
    CHECK(outputs(a) == outputs(c));
    TempDir d;
    checkout(d);
    auto rd = run_in(d.path(), "build pipeline.yaml --remote-cache " + cache.url());
    CHECK_THAT(rd.out, Catch::Contains("0 built, 5 from cache"));
    CHECK(outputs(d) == outputs(a));
}

TEST_CASE("remote cache: the CI-matrix recipe — shards upload, a gather build on another checkout finds the rest") {
    af::test::NginxServer cache;
    TempDir one;
    checkout(one);
    REQUIRE(run_in(one.path(), "build pipeline.yaml").code == 0); // the one-machine build, no cache
    TempDir s0, s1, gather;
    for (auto* t : {&s0, &s1, &gather}) checkout(*t);
    auto r0 = run_in(s0.path(), "build pipeline.yaml --shard 0/2 --remote-cache " + cache.url());
    auto r1 = run_in(s1.path(), "build pipeline.yaml --shard 1/2 --remote-cache " + cache.url());
    REQUIRE(r0.code == 0);
    REQUIRE(r1.code == 0);
    CHECK_THAT(r0.out, Catch::Contains("left to other shards (shard 0/2)"));
    CHECK_FALSE(fs::exists(s0 / "out/mod.zip"));
    auto g = run_in(gather.path(), "build pipeline.yaml --remote-cache " + cache.url());
    REQUIRE(g.code == 0);
    CHECK_THAT(g.out, Catch::Contains("1 built, 4 from cache")); // only the zip is built
    CHECK(outputs(gather) == outputs(one));
}
