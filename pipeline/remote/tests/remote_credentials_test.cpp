// Credentials reach the server in the Authorization header and nowhere else: not in warnings, not in
// display_url().
#include "remote/endpoint.hpp"
#include "remote/remote_cache.hpp"

#include "remote_test_support.hpp"
#include "support/nginx_server.hpp"

#include <catch2/catch.hpp>

#include <fstream>

using namespace af::remote;
using namespace af::remote::test;

namespace {

// What tests/support/nginx-cache.sh accepts on /auth/ and /basic/.
constexpr const char* kToken = "af-test-token";
constexpr const char* kBasicHeader = "\"Basic YWYtdXNlcjphZi1wYXNz\""; // af-user:af-pass

std::string with_userinfo(const std::string& url, const std::string& userinfo) {
    return url.substr(0, 7) + userinfo + "@" + url.substr(7);
}

// Uploads and reads back one entry; true when every step worked.
bool round_trip(RemoteCache& cache, const std::string& name) {
    const auto data = random_bytes(300, name.size());
    if (!cache.upload(key_for(name), Files{{"f.bin", span_of(data)}})) return false;
    const auto entry = cache.lookup(key_for(name));
    if (!entry) return false;
    const auto blobs = cache.fetch(*entry);
    return blobs && (*blobs)[0] == data;
}

bool log_has(const af::test::NginxServer& server, const std::string& needle) {
    for (int i = 0; i < 100; ++i) {
        for (const auto& line : server.access_log())
            if (line.find(needle) != std::string::npos) return true;
        usleep(10'000);
    }
    return false;
}

} // namespace

TEST_CASE("a bearer token from the environment is sent in the Authorization header") {
    CleanEnvironment clean_env;
    ScopedEnv token("ASSETFORGE_REMOTE_CACHE_TOKEN", kToken);
    af::test::NginxServer server;
    Warnings warnings;
    RemoteCache cache(options_for(server.url() + "/auth", warnings));
    CHECK(round_trip(cache, "token"));
    CHECK(warnings.seen.empty());
    CHECK(log_has(server, std::string("\"Bearer ") + kToken + "\""));
}

TEST_CASE("a wrong token: refused, warned once, and the token is not in the warning") {
    CleanEnvironment clean_env;
    ScopedEnv token("ASSETFORGE_REMOTE_CACHE_TOKEN", "wrong-secret-token");
    af::test::NginxServer server;
    Warnings warnings;
    RemoteCache cache(options_for(server.url() + "/auth", warnings));
    CHECK_FALSE(cache.lookup(key_for("a")));
    CHECK_FALSE(cache.lookup(key_for("b")));
    REQUIRE(warnings.seen.size() == 1);
    CHECK(warnings.any_contains("HTTP 401"));
    CHECK_FALSE(warnings.any_contains("wrong-secret-token"));
}

TEST_CASE("user:password in the URL is sent as basic auth and never shown") {
    CleanEnvironment clean_env;
    af::test::NginxServer server;
    Warnings warnings;
    RemoteCache cache(options_for(with_userinfo(server.url(), "af-user:af-pass") + "/basic", warnings));
    CHECK(cache.display_url() == server.url() + "/basic");
    CHECK(round_trip(cache, "basic"));
    CHECK(warnings.seen.empty());
    CHECK(log_has(server, kBasicHeader));
}

TEST_CASE("basic auth from the environment, and from a netrc file") {
    CleanEnvironment clean_env;
    af::test::NginxServer server;
    {
        ScopedEnv user("ASSETFORGE_REMOTE_CACHE_USER", "af-user");
        ScopedEnv password("ASSETFORGE_REMOTE_CACHE_PASSWORD", "af-pass");
        Warnings warnings;
        RemoteCache cache(options_for(server.url() + "/basic", warnings));
        CHECK(round_trip(cache, "env"));
        CHECK(warnings.seen.empty());
    }
    {
        std::ofstream(server.dir() / "netrc") << "machine 127.0.0.1 login af-user password af-pass\n";
        ScopedEnv netrc("NETRC", (server.dir() / "netrc").c_str());
        Warnings warnings;
        RemoteCache cache(options_for(server.url() + "/basic", warnings));
        CHECK(round_trip(cache, "netrc"));
        CHECK(warnings.seen.empty());
    }
}

TEST_CASE("credentials never appear in warnings, whatever fails") {
    CleanEnvironment clean_env;
    af::test::NginxServer server;
    {
        // Wrong password: a 401 from the server.
        Warnings warnings;
        RemoteCache cache(options_for(with_userinfo(server.url(), "someone:hunter2-secret") + "/basic", warnings));
        CHECK_FALSE(cache.lookup(key_for("x")));
        const auto data = random_bytes(10, 1);
        CHECK_FALSE(cache.upload(key_for("x"), Files{{"x", span_of(data)}}));
        CHECK_FALSE(warnings.seen.empty());
        CHECK_FALSE(warnings.any_contains("hunter2-secret"));
        CHECK_FALSE(warnings.any_contains("someone"));
    }
    {
        // Nothing listening: curl's own error text goes into the warning.
        DeadPort dead;
        Warnings warnings;
        RemoteCache cache(options_for(with_userinfo(dead.url(), "someone:hunter2-secret"), warnings));
        CHECK(cache.display_url() == dead.url());
        CHECK_FALSE(cache.lookup(key_for("y")));
        REQUIRE(warnings.seen.size() == 1);
        CHECK_FALSE(warnings.any_contains("hunter2-secret"));
        CHECK_FALSE(warnings.any_contains("someone"));
    }
    {
        // An unusable URL is not echoed back.
        Warnings warnings;
        RemoteCache cache(options_for("gopher://someone:hunter2-secret@host/", warnings));
        CHECK_FALSE(cache.enabled());
        CHECK_FALSE(warnings.any_contains("hunter2-secret"));
    }
}

TEST_CASE("a URL from a pipeline file gets none of the environment's credentials, with one warning") {
    CleanEnvironment clean_env;
    ScopedEnv token("ASSETFORGE_REMOTE_CACHE_TOKEN", kToken);
    af::test::NginxServer server;
    Warnings warnings;
    RemoteCacheOptions o = options_for(server.url(), warnings);
    o.url_from_pipeline = true;
    RemoteCache cache(o);
    CHECK(round_trip(cache, "untrusted"));
    CHECK(round_trip(cache, "untrusted again"));
    REQUIRE(warnings.seen.size() == 1);
    CHECK(warnings.any_contains("credentials in the environment are not sent"));
    CHECK(warnings.any_contains("ASSETFORGE_REMOTE_CACHE_TRUSTED_HOSTS"));
    CHECK(log_has(server, "PUT /ac/"));
    for (const auto& line : server.access_log()) CHECK(line.find("Bearer") == std::string::npos);
}

TEST_CASE("a URL from a pipeline file gets no netrc login and no basic auth from the environment") {
    CleanEnvironment clean_env;
    af::test::NginxServer server;
    std::ofstream(server.dir() / "netrc") << "machine 127.0.0.1 login af-user password af-pass\n";
    ScopedEnv netrc("NETRC", (server.dir() / "netrc").c_str());
    ScopedEnv user("ASSETFORGE_REMOTE_CACHE_USER", "af-user");
    ScopedEnv password("ASSETFORGE_REMOTE_CACHE_PASSWORD", "af-pass");
    Warnings warnings;
    RemoteCacheOptions o = options_for(server.url() + "/basic", warnings);
    o.url_from_pipeline = true;
    RemoteCache cache(o);
    CHECK_FALSE(round_trip(cache, "basic"));
    CHECK(warnings.any_contains("not sent"));
    CHECK(warnings.any_contains("HTTP 401"));
    for (const auto& line : server.access_log()) CHECK(line.find("Basic") == std::string::npos);
}

TEST_CASE("a pipeline file's URL whose host is listed as trusted gets the credentials") {
    CleanEnvironment clean_env;
    ScopedEnv token("ASSETFORGE_REMOTE_CACHE_TOKEN", kToken);
    af::test::NginxServer server;
    const std::string port = server.url().substr(server.url().rfind(':') + 1);
    for (const std::string& list : {std::string("cache.example, 127.0.0.1"), "127.0.0.1:" + port}) {
        INFO(list);
        ScopedEnv trusted("ASSETFORGE_REMOTE_CACHE_TRUSTED_HOSTS", list.c_str());
        Warnings warnings;
        RemoteCacheOptions o = options_for(server.url() + "/auth", warnings);
        o.url_from_pipeline = true;
        RemoteCache cache(o);
        CHECK(round_trip(cache, "trusted " + list));
        CHECK(warnings.seen.empty());
    }
    // Another port on the same host is another server.
    ScopedEnv trusted("ASSETFORGE_REMOTE_CACHE_TRUSTED_HOSTS", "127.0.0.1:1");
    Warnings warnings;
    RemoteCacheOptions o = options_for(server.url() + "/auth", warnings);
    o.url_from_pipeline = true;
    RemoteCache cache(o);
    CHECK_FALSE(round_trip(cache, "other port"));
    CHECK(warnings.any_contains("not sent"));
}

TEST_CASE("trusted host lists: names, ports, IPv6, any case") {
    CHECK(host_listed("a.example, cache.example:8080", "cache.example", 8080));
    CHECK_FALSE(host_listed("a.example, cache.example:8080", "cache.example", 443));
    CHECK(host_listed("CACHE.example", "cache.example", 443));
    CHECK(host_listed("[::1]:9000 ::2", "::1", 9000));
    CHECK(host_listed("[::1]:9000 ::2", "::2", 80));
    CHECK_FALSE(host_listed("", "cache.example", 443));
    CHECK_FALSE(host_listed("evil-cache.example", "cache.example", 443));
}
