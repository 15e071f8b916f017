// The cache against a real nginx: what a round trip stores on the server and reads back.
#include "remote/remote_cache.hpp"

#include "remote/action_result.hpp"
#include "remote_test_support.hpp"
#include "support/nginx_server.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

using namespace af::remote;
using namespace af::remote::test;
namespace fs = std::filesystem;

TEST_CASE("upload, then lookup and fetch give back the same files") {
    CleanEnvironment clean_env;
    af::test::NginxServer server;
    Warnings warnings;
    RemoteCache cache(options_for(server.url(), warnings));
    REQUIRE(cache.enabled());
    CHECK(cache.uploads());
    CHECK(cache.display_url() == server.url());

    const auto dds = random_bytes(70'000, 1);
    const auto png = random_bytes(1'234, 2);
    const std::vector<uint8_t> empty;
    const std::string key = key_for("encode textures/rock.png bc7");
    REQUIRE(cache.upload(key, Files{{"textures/rock.dds", span_of(dds)},
                                    {"previews/rock.png", span_of(png)},
                                    {"copy/rock.dds", span_of(dds)},
                                    {"empty.txt", span_of(empty)}}));

    // Blobs under their SHA-256, the entry under the key: what any Bazel HTTP cache client expects.
    CHECK(fs::file_size(server.cache_dir() / "cas" / sha256_hex(span_of(dds))) == dds.size());
    CHECK(fs::file_size(server.cache_dir() / "cas" / sha256_hex(span_of(png))) == png.size());
    REQUIRE(fs::exists(server.cache_dir() / "ac" / key));

    const auto entry = cache.lookup(key);
    REQUIRE(entry);
    REQUIRE(entry->files.size() == 4);
    CHECK(entry->files[0] == CachedFile{"textures/rock.dds", {sha256_hex(span_of(dds)), 70'000}});
    CHECK(entry->files[1].path == "previews/rock.png");
    CHECK(entry->files[3].digest.size == 0);

    const auto blobs = cache.fetch(*entry);
    REQUIRE(blobs);
    REQUIRE(blobs->size() == 4);
    CHECK((*blobs)[0] == dds);
    CHECK((*blobs)[1] == png);
    CHECK((*blobs)[2] == dds);
    CHECK((*blobs)[3].empty());

    const auto s = cache.stats();
    CHECK(s.hits == 1);
    CHECK(s.misses == 0);
    CHECK(s.errors == 0);
    CHECK(s.uploaded == 1);
    CHECK(s.bytes_up >= dds.size() + png.size());
    CHECK(s.bytes_down >= dds.size() + png.size());
    CHECK(warnings.seen.empty());

    // Equal contents went up once.
    int dds_puts = 0;
    for (const auto& line : server.access_log())
        if (line.rfind("PUT /cas/" + sha256_hex(span_of(dds)), 0) == 0) ++dds_puts;
    CHECK(dds_puts == 1);
}

TEST_CASE("a key nobody stored is a quiet miss") {
    CleanEnvironment clean_env;
    af::test::NginxServer server;
    Warnings warnings;
    RemoteCache cache(options_for(server.url(), warnings));
    CHECK_FALSE(cache.lookup(key_for("never stored")));
    CHECK(cache.stats().misses == 1);
    CHECK(cache.stats().errors == 0);
    CHECK(warnings.seen.empty());
}

TEST_CASE("an entry written by another client is read") {
    CleanEnvironment clean_env;
    af::test::NginxServer server;
    Warnings warnings;
    RemoteCache cache(options_for(server.url() + "/", warnings)); // a trailing '/' is harmless
    const std::string blob = "contents from elsewhere";
    const std::string hash = sha256_hex(span_of(bytes_of(blob)));
    // ActionResult{output_files: [{path: "x/y.bin", digest: {hash, size}}]} in wire format, written by hand.
    const std::string digest = "\x0a\x40" + hash + "\x10" + static_cast<char>(blob.size());
    const std::string file = std::string("\x0a\x07x/y.bin") + "\x12" + static_cast<char>(digest.size()) + digest;
    server.write_file("ac/" + key_for("foreign"), "\x12" + std::string(1, static_cast<char>(file.size())) + file);
    server.write_file("cas/" + hash, blob);

    const auto entry = cache.lookup(key_for("foreign"));
    REQUIRE(entry);
    REQUIRE(entry->files.size() == 1);
    CHECK(entry->files[0].path == "x/y.bin");
    const auto blobs = cache.fetch(*entry);
    REQUIRE(blobs);
    CHECK((*blobs)[0] == bytes_of(blob));
    CHECK(warnings.seen.empty());
}

TEST_CASE("a read-only cache never writes to the server") {
    CleanEnvironment clean_env;
    af::test::NginxServer server;
    Warnings warnings;
    auto options = options_for(server.url(), warnings);
    options.upload = false;
    RemoteCache cache(options);
    CHECK(cache.enabled());
    CHECK_FALSE(cache.uploads());
    const auto data = random_bytes(100, 3);
    const std::string key = key_for("read-only");
    CHECK_FALSE(cache.upload(key, Files{{"a.bin", span_of(data)}}));
    CHECK_FALSE(fs::exists(server.cache_dir() / "ac" / key));
    CHECK_FALSE(fs::exists(server.cache_dir() / "cas" / sha256_hex(span_of(data))));
    CHECK_FALSE(cache.lookup(key)); // a GET, so the log has a line to wait for
    for (int i = 0; i < 100 && server.access_log().empty(); ++i) usleep(10'000);
    for (const auto& line : server.access_log()) CHECK(line.rfind("PUT ", 0) != 0);
    CHECK(warnings.seen.empty());
}

TEST_CASE("sequential requests reuse one connection") {
    CleanEnvironment clean_env;
    af::test::NginxServer server;
    Warnings warnings;
    RemoteCache cache(options_for(server.url(), warnings));
    for (int i = 0; i < 5; ++i) CHECK_FALSE(cache.lookup(key_for("miss " + std::to_string(i))));
    std::vector<std::string> log;
    for (int i = 0; i < 100 && (log = server.access_log()).size() < 5; ++i) usleep(10'000);
    REQUIRE(log.size() == 5);
    // Fields: method, URI, status, connection number, requests so far on that connection.
    CHECK(log_fields(log.back())[2] == "404");
    CHECK(log_fields(log.back())[3] == log_fields(log.front())[3]);
    CHECK(log_fields(log.back())[4] == "5");
}

TEST_CASE("bad action keys and unusable URLs are refused without a request") {
    CleanEnvironment clean_env;
    Warnings warnings;
    RemoteCache cache(options_for("ftp://example.invalid/cache", warnings));
    CHECK_FALSE(cache.enabled());
    CHECK_FALSE(cache.lookup(key_for("x")));
    CHECK(warnings.seen.size() == 1);
    CHECK(warnings.any_contains("disabled"));

    Warnings none;
    RemoteCache unconfigured(options_for("", none));
    CHECK_FALSE(unconfigured.enabled());
    CHECK_FALSE(unconfigured.lookup(key_for("x")));
    CHECK(none.seen.empty());

    af::test::NginxServer server;
    Warnings w2;
    RemoteCache good(options_for(server.url(), w2));
    CHECK_FALSE(good.lookup("../../etc/passwd"));
    CHECK_FALSE(good.lookup(std::string(64, 'A')));
    const auto data = random_bytes(10, 4);
    CHECK_FALSE(good.upload("not-a-hash", Files{{"a", span_of(data)}}));
    CHECK(w2.seen.size() == 2); // one for lookups, one for uploads
    CHECK(server.access_log().empty());
}
