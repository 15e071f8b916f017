// A server that is down, failing, slow or hostile: every case is a miss with one warning, never bad bytes.
#include "remote/remote_cache.hpp"

#include "remote/action_result.hpp"
#include "remote_test_support.hpp"
#include "support/nginx_server.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>

using namespace af::remote;
using namespace af::remote::test;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

size_t count_lines(const af::test::NginxServer& server, const std::string& prefix, size_t expect) {
    size_t n = 0;
    for (int i = 0; i < 100; ++i) {
        n = 0;
        for (const auto& line : server.access_log())
            if (line.rfind(prefix, 0) == 0) ++n;
        if (n >= expect) break;
        usleep(10'000);
    }
    return n;
}

// An entry stored through the cache itself, so a test can then damage one part of it on the server.
struct StoredEntry {
    std::string key = key_for("stored entry");
    std::vector<uint8_t> data = random_bytes(5'000, 11);
    std::string hash = sha256_hex(span_of(data));
};

StoredEntry store(const af::test::NginxServer& server) {
    StoredEntry e;
    Warnings w;
    RemoteCache writer(options_for(server.url(), w));
    REQUIRE(writer.upload(e.key, Files{{"out/tex.dds", span_of(e.data)}}));
    return e;
}

} // namespace

TEST_CASE("a server that is down: one warning, a quick miss, then no more attempts") {
    CleanEnvironment clean_env;
    DeadPort dead;
    Warnings warnings;
    RemoteCache cache(options_for(dead.url(), warnings));
    auto start = Clock::now();
    CHECK_FALSE(cache.lookup(key_for("a")));
    CHECK(seconds_since(start) < 2.0); // two retries with backoff, well under a second
    start = Clock::now();
    const auto data = random_bytes(10, 1);
    CHECK_FALSE(cache.upload(key_for("b"), Files{{"b", span_of(data)}}));
    CHECK_FALSE(cache.lookup(key_for("c")));
    CHECK(seconds_since(start) < 0.1); // paused: not even a connection attempt
    REQUIRE(warnings.seen.size() == 1);
    CHECK(warnings.any_contains("got no answer"));
    CHECK(warnings.any_contains("3 attempts"));
    CHECK(cache.stats().errors == 3);
    CHECK(cache.stats().hits + cache.stats().misses == 0);
}

TEST_CASE("HTTP 500 is retried, then warned once") {
    CleanEnvironment clean_env;
    af::test::NginxServer server;
    Warnings warnings;
    RemoteCache cache(options_for(server.url() + "/err500", warnings));
    const std::string key = key_for("x");
    CHECK_FALSE(cache.lookup(key));
    CHECK(count_lines(server, "GET /err500/ac/" + key + " 500", 3) == 3);
    REQUIRE(warnings.seen.size() == 1);
    CHECK(warnings.any_contains("HTTP 500"));
    CHECK(cache.stats().errors == 1);
}

TEST_CASE("an upload that fails on a blob never stores the entry") {
    CleanEnvironment clean_env;
    af::test::NginxServer server;
    Warnings warnings;
    RemoteCache cache(options_for(server.url() + "/err500", warnings));
    const auto data = random_bytes(1'000, 5);
    CHECK_FALSE(cache.upload(key_for("u"), Files{{"u.bin", span_of(data)}}));
    CHECK(count_lines(server, "PUT /err500/cas/" + sha256_hex(span_of(data)) + " 500", 3) == 3);
    CHECK(count_lines(server, "PUT /err500/ac/", 0) == 0);
    CHECK(warnings.any_contains("HTTP 500"));
    CHECK(cache.stats().uploaded == 0);
}

TEST_CASE("a 404 is not retried") {
    CleanEnvironment clean_env;
    af::test::NginxServer server;
    Warnings warnings;
    RemoteCache cache(options_for(server.url(), warnings));
    CHECK_FALSE(cache.lookup(key_for("y")));
    usleep(50'000);
    CHECK(count_lines(server, "GET /ac/", 1) == 1);
}

TEST_CASE("a garbage action-cache body is a miss with a warning") {
    CleanEnvironment clean_env;
    af::test::NginxServer server;
    Warnings warnings;
    RemoteCache cache(options_for(server.url(), warnings));
    server.write_file("ac/" + key_for("garbage"), "<html>502 Bad Gateway</html>");
    server.write_file("ac/" + key_for("garbage 2"), "\xff\xff\xff\xff");
    CHECK_FALSE(cache.lookup(key_for("garbage")));
    CHECK_FALSE(cache.lookup(key_for("garbage 2")));
    CHECK(warnings.seen.size() == 1); // the same problem, reported once
    CHECK(warnings.any_contains("not an ActionResult"));
    CHECK(cache.stats().errors == 2);
    CHECK(cache.stats().hits == 0);
}

TEST_CASE("entries naming unsafe paths are misses") {
    CleanEnvironment clean_env;
    af::test::NginxServer server;
    Warnings warnings;
    RemoteCache cache(options_for(server.url(), warnings));
    const Digest d{std::string(64, 'a'), 1};
    const std::pair<std::string, std::string> bad[] = {
        {"absolute", "/etc/cron.d/x"}, {"dotdot", "../../.bashrc"}, {"inner", "a/../../b"}, {"empty", ""}};
    for (const auto& [name, path] : bad) {
        server.write_file("ac/" + key_for(name), encode_action_result({{{path, d}}}));
        CHECK_FALSE(cache.lookup(key_for(name)));
    }
    server.write_file("ac/" + key_for("dup"), encode_action_result({{{"a", d}, {"a", d}}}));
    CHECK_FALSE(cache.lookup(key_for("dup")));
    server.write_file("ac/" + key_for("negative"), encode_action_result({{{"a", {d.hash, -5}}}}));
    CHECK_FALSE(cache.lookup(key_for("negative")));
    CHECK(cache.stats().hits == 0);
    CHECK(cache.stats().errors == 6);
    CHECK(warnings.any_contains("unsafe output path"));
    CHECK(warnings.any_contains("twice"));
    CHECK(warnings.any_contains("negative"));
}

TEST_CASE("a truncated blob is never returned") {
    CleanEnvironment clean_env;
    af::test::NginxServer server;
    const StoredEntry e = store(server);
    server.write_file("cas/" + e.hash, std::string(e.data.begin(), e.data.begin() + 4'000));
    Warnings warnings;
    RemoteCache cache(options_for(server.url(), warnings));
    const auto entry = cache.lookup(e.key);
    REQUIRE(entry);
    CHECK_FALSE(cache.fetch(*entry));
    CHECK(warnings.any_contains("4000 bytes"));
}

TEST_CASE("a blob whose contents do not match its hash is never returned") {
    CleanEnvironment clean_env;
    af::test::NginxServer server;
    const StoredEntry e = store(server);
    std::string flipped(e.data.begin(), e.data.end());
    flipped[2'500] ^= 1;
    server.write_file("cas/" + e.hash, flipped);
    Warnings warnings;
    RemoteCache cache(options_for(server.url(), warnings));
    const auto entry = cache.lookup(e.key);
    REQUIRE(entry);
    CHECK_FALSE(cache.fetch(*entry));
    CHECK(warnings.any_contains("does not hash to its name"));
}

TEST_CASE("a blob longer than its digest is cut off, not buffered") {
    CleanEnvironment clean_env;
    af::test::NginxServer server;
    const StoredEntry e = store(server);
    server.write_file("cas/" + e.hash, std::string(e.data.begin(), e.data.end()) + std::string(1 << 20, 'x'));
    Warnings warnings;
    RemoteCache cache(options_for(server.url(), warnings));
    const auto entry = cache.lookup(e.key);
    REQUIRE(entry);
    CHECK_FALSE(cache.fetch(*entry));
    CHECK(warnings.any_contains("longer than its digest"));
    CHECK(cache.stats().bytes_down < 64 * 1024);
}

TEST_CASE("a missing blob makes the entry a miss") {
    CleanEnvironment clean_env;
    af::test::NginxServer server;
    const StoredEntry e = store(server);
    fs::remove(server.cache_dir() / "cas" / e.hash);
    Warnings warnings;
    RemoteCache cache(options_for(server.url(), warnings));
    const auto entry = cache.lookup(e.key);
    REQUIRE(entry);
    CHECK_FALSE(cache.fetch(*entry));
    CHECK(warnings.any_contains("missing"));
}

TEST_CASE("an oversized action-cache body is refused") {
    CleanEnvironment clean_env;
    af::test::NginxServer server;
    server.write_file("ac/" + key_for("huge"), std::string((16 << 20) + 1, '\0'));
    Warnings warnings;
    RemoteCache cache(options_for(server.url(), warnings));
    CHECK_FALSE(cache.lookup(key_for("huge")));
    CHECK(warnings.any_contains("larger than allowed"));
    CHECK(cache.stats().bytes_down <= size_t{16} << 20);
}

TEST_CASE("a server slower than the timeout: a miss after the timeout, not retried") {
    CleanEnvironment clean_env;
    af::test::NginxServer server;
    const StoredEntry e = store(server);
    Warnings warnings;
    auto options = options_for(server.url() + "/slow", warnings);
    options.timeout_ms = 300;
    RemoteCache cache(options);
    const auto start = Clock::now();
    CHECK_FALSE(cache.lookup(e.key));
    const double took = seconds_since(start);
    CHECK(took >= 0.25);
    CHECK(took < 1.5);
    REQUIRE(warnings.seen.size() == 1);
    INFO(warnings.seen[0]);
    CHECK(warnings.any_contains("did not finish within 300 ms"));
}

TEST_CASE("each kind of problem is reported once however often it happens") {
    CleanEnvironment clean_env;
    af::test::NginxServer server;
    Warnings warnings;
    RemoteCache cache(options_for(server.url(), warnings));
    for (int i = 0; i < 20; ++i) {
        server.write_file("ac/" + key_for("bad " + std::to_string(i)), "garbage");
        server.write_file("ac/" + key_for("abs " + std::to_string(i)),
                          encode_action_result({{{"/abs", {std::string(64, 'b'), 1}}}}));
    }
    for (int i = 0; i < 20; ++i) {
        CHECK_FALSE(cache.lookup(key_for("bad " + std::to_string(i))));
        CHECK_FALSE(cache.lookup(key_for("abs " + std::to_string(i))));
    }
    CHECK(warnings.seen.size() == 2);
    CHECK(cache.stats().errors == 40);
}
