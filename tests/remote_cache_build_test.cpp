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

// Shared with slurm/slurm_shard_test.sh, which builds the same project on a cluster.
const std::string kCachedPipeline = slurp(fs::path(AF_SOURCE_DIR) / "tests/support/cached_pipeline.yaml");

// A checkout of the project: sources and pipeline, no outputs, no state.
void checkout(const TempDir& t) {
    for (const char* f : {"a_palm_128.png", "d_rock_128.png", "d_wallpaper_128.png", "n_rock_128.png"})
        t.copy(kImages / f, std::string("src/") + f);
    t.write("pipeline.yaml", kCachedPipeline);
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
    CHECK(r.out.find("remote cache:") == std::string::npos); // no complaint about the cache
    // a_palm's smooth alpha in BC1: the same warning as the build that made the entry, said where it came from.
    CHECK(count(r.out, "alpha reduced to one bit") == count(a.run.out, "alpha reduced to one bit"));
    CHECK(count(r.out, "(from the remote cache)") == count(a.run.out, "warning: "));
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
    a.write("pipeline.yaml", std::string("remote_cache: ") + cache.url() + "\n" + kCachedPipeline);
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
    e.write("pipeline.yaml", "remote_cache: http://user:secret@127.0.0.1:1/\n" + kCachedPipeline);
    auto bad = run_in(e.path(), "build pipeline.yaml");
    CHECK(bad.code == 2);
    CHECK_THAT(bad.out, Catch::Contains("no credentials in the pipeline file"));
    CHECK(bad.out.find("secret") == std::string::npos);
}

TEST_CASE("remote cache: the CI's credentials go only to a URL the CI gave, never to the pipeline file's") {
    af::test::NginxServer cache;
    auto bearer_sent = [&] {
        for (const auto& line : cache.access_log())
            if (line.find("Bearer") != std::string::npos) return true;
        return false;
    };
    TempDir a;
    checkout(a);
    // A contributed change points the pipeline at a server of its own (here: the test's, which logs headers).
    a.write("pipeline.yaml", std::string("remote_cache: ") + cache.url() + "\n" + kCachedPipeline);
    const std::string env = "ASSETFORGE_REMOTE_CACHE_TOKEN=ci-secret-token ";
    auto r = af::test::run_shell("cd '" + a.path().string() + "' && " + env + AF_EXE + " build pipeline.yaml");
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK(count(r.out, "warning: remote cache") == 1);
    CHECK_THAT(r.out, Catch::Contains("credentials in the environment are not sent"));
    CHECK(r.out.find("ci-secret-token") == std::string::npos);
    CHECK(files_in(cache.cache_dir() / "ac").size() == 5); // the cache itself still works, without credentials
    CHECK_FALSE(bearer_sent());
    // The same URL from the CI's own environment, or with its host listed as trusted, gets them.
    TempDir b;
    checkout(b);
    b.write("pipeline.yaml", std::string("remote_cache: ") + cache.url() + "\n" + kCachedPipeline);
    auto t = af::test::run_shell("cd '" + b.path().string() + "' && " + env +
                                 "ASSETFORGE_REMOTE_CACHE_TRUSTED_HOSTS=127.0.0.1 " + AF_EXE + " build pipeline.yaml");
    INFO(t.out);
    CHECK(t.code == 0);
    CHECK(t.out.find("warning: remote cache") == std::string::npos);
    CHECK(bearer_sent());
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

TEST_CASE("remote cache: --remote-cache-required (or the pipeline key) makes a failing cache fail the build") {
    af::test::NginxServer cache;
    for (const std::string& url : {std::string("http://127.0.0.1:1"), cache.url() + "/err500"}) {
        TempDir a;
        checkout(a);
        auto r = run_in(a.path(), "build pipeline.yaml --remote-cache-required --remote-cache " + url);
        INFO(r.out);
        CHECK(r.code == 1);
        CHECK_THAT(r.out, Catch::Contains("5 built, 0 from cache")); // the outputs are still made
        CHECK_THAT(r.out, Catch::Contains("error: remote cache"));
        CHECK_THAT(r.out, Catch::Contains("--remote-cache-required"));
        CHECK(fs::exists(a / "out"));
    }
    TempDir b;
    checkout(b);
    b.write("pipeline.yaml", "remote_cache_required: true\n" + kCachedPipeline);
    auto r = run_in(b.path(), "build pipeline.yaml --remote-cache http://127.0.0.1:1");
    INFO(r.out);
    CHECK(r.code == 1);
    // A working cache passes.
    TempDir c;
    checkout(c);
    CHECK(run_in(c.path(), "build pipeline.yaml --remote-cache-required --remote-cache " + cache.url()).code == 0);
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

namespace {

// Every ac/ entry of the cache, decoded, by file.
std::map<fs::path, af::remote::CacheEntry> entries_of(const af::test::NginxServer& cache) {
    std::map<fs::path, af::remote::CacheEntry> m;
    for (const auto& f : files_in(cache.cache_dir() / "ac")) {
        std::string why;
        auto e = af::remote::decode_action_result(slurp(f), &why);
        REQUIRE(e);
        m[f] = *e;
    }
    return m;
}

// An entry naming `paths`, each with a blob that exists and matches its digest.
af::remote::CacheEntry planted_entry(const af::test::NginxServer& cache, const std::vector<std::string>& paths) {
    const std::string blob = "planted by the cache";
    const std::string digest =
        af::remote::sha256_hex(std::span(reinterpret_cast<const uint8_t*>(blob.data()), blob.size()));
    cache.write_file("cas/" + digest, blob);
    af::remote::CacheEntry e;
    for (const auto& p : paths) e.files.push_back({p, {digest, int64_t(blob.size())}});
    return e;
}

const char* kRunTimeNames = R"(assetforge: 1
jobs:
  mips:
    inputs: "src/*.png"
    steps: [ { mips: { filter: box } }, { extract: { what: mips } }, decode ]
    output: "out/{stem}_{mip}.png"
)";

} // namespace

TEST_CASE("remote cache: an entry naming anything but its action's outputs is a miss, built locally, one warning") {
    af::test::NginxServer cache;
    Reference ref(cache, "--state-dir out/.assetforge");
    const auto expected = outputs(ref.dir);
    const auto saved = entries_of(cache);
    REQUIRE(saved.size() == 5);
    auto plant_everywhere = [&](const af::remote::CacheEntry& e) {
        for (const auto& [f, _] : saved) std::ofstream(f, std::ios::binary) << af::remote::encode_action_result(e);
    };
    auto build = [&](const std::string& what, const std::string& summary) {
        INFO(what);
        TempDir b;
        checkout(b);
        auto r = run_in(b.path(), "build pipeline.yaml --state-dir out/.assetforge --overwrite-edited --remote-cache " +
                                      cache.url() + " --remote-upload=false");
        INFO(r.out);
        CHECK(r.code == 0);
        CHECK_THAT(r.out, Catch::Contains(summary));
        CHECK(count(r.out, "warning: remote cache") == 1);
        CHECK(outputs(b) == expected);
        CHECK_FALSE(fs::exists(b / "out/evil.txt"));
        CHECK_FALSE(fs::exists(b / "out/.af-tmp-0123456789abcdef.dds"));
        CHECK(slurp(b / "out/.assetforge/state.db").find("planted by the cache") == std::string::npos);
    };
    plant_everywhere(planted_entry(cache, {"out/evil.txt"}));
    build("a file below the output folder that no template names", "5 built, 0 from cache");
    plant_everywhere(planted_entry(cache, {"out/.af-tmp-0123456789abcdef.dds"}));
    build("a temporary's name", "5 built, 0 from cache");
    plant_everywhere(planted_entry(cache, {"out/.assetforge/state.db"}));
    build("the build state (with --overwrite-edited)", "5 built, 0 from cache");
    // The real output and one more.
    for (const auto& [f, e] : saved) {
        auto more = e;
        more.files.push_back(planted_entry(cache, {"out/evil.txt"}).files[0]);
        std::ofstream(f, std::ios::binary) << af::remote::encode_action_result(more);
    }
    build("an action's outputs and a file besides", "5 built, 0 from cache");
    // Another action's output, with its true bytes: that action's own entry still hits.
    for (const auto& [f, e] : saved)
        if (e.files.size() == 1 && e.files[0].path == "out/d_rock_128.dds") plant_everywhere(e);
    build("another action's output", "4 built, 1 from cache");
}

TEST_CASE("remote cache: outputs named at run time are taken only where the template puts this action's") {
    af::test::NginxServer cache;
    TempDir a;
    checkout(a);
    a.write("pipeline.yaml", kRunTimeNames);
    REQUIRE(run_in(a.path(), "build pipeline.yaml --remote-cache " + cache.url()).code == 0);
    const auto expected = outputs(a);
    const auto saved = entries_of(cache);
    REQUIRE(saved.size() == 4);
    auto build = [&](const std::string& what, const std::string& summary, size_t warnings) {
        INFO(what);
        TempDir b;
        checkout(b);
        b.write("pipeline.yaml", kRunTimeNames);
        auto r = run_in(b.path(), "build pipeline.yaml --remote-cache " + cache.url() + " --remote-upload=false");
        INFO(r.out);
        CHECK(r.code == 0);
        CHECK_THAT(r.out, Catch::Contains(summary));
        CHECK(count(r.out, "warning: remote cache") == warnings);
        CHECK(outputs(b) == expected);
        CHECK_FALSE(fs::exists(b / "out/evil.txt"));
    };
    build("the entries as uploaded", "0 built, 4 from cache", 0);
    for (const auto& [f, _] : saved)
        std::ofstream(f, std::ios::binary)
            << af::remote::encode_action_result(planted_entry(cache, {"out/a_palm_128_0.png", "out/evil.txt"}));
    build("a path the template cannot produce", "4 built, 0 from cache", 1);
    for (const auto& [f, e] : saved)
        if (std::any_of(e.files.begin(), e.files.end(), [](auto& x) { return x.path == "out/d_rock_128_0.png"; }))
            for (const auto& [g, _] : saved) std::ofstream(g, std::ios::binary) << af::remote::encode_action_result(e);
    build("another action's outputs, with their true bytes", "3 built, 1 from cache", 1);
}

TEST_CASE("remote cache: a blob far over the memory budget streams through a file, one copy at most in memory") {
    af::test::NginxServer cache;
    constexpr size_t kBlob = size_t(256) << 20;
    const char* pipeline = "assetforge: 1\njobs:\n  big:\n    inputs: \"src/*.bin\"\n    steps: [ copy ]\n"
                           "    output: \"out/{name}\"\n";
    auto checkout_big = [&](const TempDir& t) {
        t.write("pipeline.yaml", pipeline);
        fs::create_directories(t / "src");
        std::ofstream f(t / "src/big.bin", std::ios::binary);
        std::vector<uint64_t> chunk(1 << 17);
        uint64_t x = 0x9e3779b97f4a7c15ull;
        for (size_t done = 0; done < kBlob; done += chunk.size() * 8) {
            for (auto& w : chunk) w = (x = x * 6364136223846793005ull + 1442695040888963407ull);
            f.write(reinterpret_cast<const char*>(chunk.data()), std::streamsize(chunk.size() * 8));
        }
    };
    TempDir a;
    checkout_big(a);
    REQUIRE(run_in(a.path(), "build pipeline.yaml --remote-cache " + cache.url()).code == 0);
    TempDir b;
    checkout_big(b);
    auto r = af::test::run_cli_measured(
        {"build", "pipeline.yaml", "--memory-budget", "64", "--remote-cache", cache.url()}, b.path());
    INFO(r.out);
    INFO("peak RSS " << r.peak_rss_kib / 1024 << " MiB for a " << (kBlob >> 20) << " MiB blob");
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("0 built, 1 from cache"));
    CHECK(fs::file_size(b / "out/big.bin") == kBlob);
    CHECK(
        af::test::run_shell("cmp '" + (a / "out/big.bin").string() + "' '" + (b / "out/big.bin").string() + "'").code ==
        0);
    // Buffered whole, the body and its growing copies came on top of the process (316 MiB measured here);
    // streamed to a file, the pages of one mapped copy are all that can be resident (276 MiB measured).
#if !defined(AF_ASAN) // AddressSanitizer's shadow memory and quarantine say nothing about the bound
    CHECK(r.peak_rss_kib < long(kBlob / 1024) * 9 / 8);
#endif
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

TEST_CASE("remote cache: a hit shows the warnings of the build that made the entry, and they fail CI") {
    af::test::NginxServer cache;
    TempDir a;
    fs::create_directories(a / "src");
    // A colour PNG whose alpha holds data (the independent tool tests/tools/make_normal_png.py): BC5 drops it.
    REQUIRE(af::test::run_shell("/usr/bin/python3 '" +
                                (fs::path(AF_SOURCE_DIR) / "tests/tools/make_normal_png.py").string() + "' '" +
                                (a / "src/glass.png").string() + "' --kind colour --alpha data")
                .code == 0);
    const char* lossy = "assetforge: 1\njobs:\n  textures:\n    inputs: \"src/*.png\"\n"
                        "    steps: [ { encode: { format: bc5 } } ]\n    output: \"out/{stem}.dds\"\n";
    a.write("pipeline.yaml", lossy);
    auto r = run_in(a.path(), "build pipeline.yaml --remote-cache " + cache.url());
    INFO(r.out);
    REQUIRE(r.code == 0);
    REQUIRE_THAT(r.out, Catch::Contains("warning: textures: src/glass.png: alpha dropped"));
    TempDir b;
    b.copy(a / "src/glass.png", "src/glass.png");
    b.write("pipeline.yaml", lossy);
    r = run_in(b.path(), "build pipeline.yaml --remote-cache " + cache.url() + " --warnings-as-errors --report r.json");
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("0 built, 1 from cache") && Catch::Contains("2 warning(s)"));
    CHECK_THAT(r.out, Catch::Contains("error: textures: src/glass.png: alpha dropped"));
    CHECK_THAT(r.out, Catch::Contains("(from the remote cache)"));
    CHECK(count(r.out, "alpha dropped") == 1);
    CHECK(fs::exists(b / "out/glass.dds"));
    const std::string report = slurp(b / "r.json");
    CHECK_THAT(report, Catch::Contains("\"warnings_from\": \"the remote cache\""));
    // Then up to date here: the warnings were kept with the action's record.
    r = run_in(b.path(), "build pipeline.yaml --remote-cache " + cache.url() + " --warnings-as-errors");
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("1 up to date") && Catch::Contains("alpha dropped"));
}
