// One RemoteCache shared by many threads, as the engine's TBB workers will share it.
#include "remote/remote_cache.hpp"

#include "remote_test_support.hpp"
#include "support/nginx_server.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <thread>

using namespace af::remote;
using namespace af::remote::test;

TEST_CASE("8 threads x 50 entries: every upload, lookup and fetch is consistent") {
    CleanEnvironment clean_env;
    af::test::NginxServer server;
    Warnings warnings;
    RemoteCacheOptions options;
    options.url = server.url();
    options.warn = warnings.sink();
    RemoteCache cache(options);

    constexpr int kThreads = 8, kEntries = 50;
    const std::vector<uint8_t> shared = random_bytes(2'000, 99); // the same blob in every entry
    auto own = [](int t, int i) { return random_bytes(500 + size_t(t * kEntries + i) * 7, uint64_t(t * 1000 + i)); };
    auto key = [](int t, int i) { return key_for("action " + std::to_string(t) + "/" + std::to_string(i)); };
    std::atomic<int> failures{0};

    auto uploader = [&](int t) {
        for (int i = 0; i < kEntries; ++i) {
            const auto data = own(t, i);
            const std::string path = "out/" + std::to_string(t) + "/" + std::to_string(i) + ".dds";
            if (!cache.upload(key(t, i), {{path, span_of(data)}, {"shared.bin", span_of(shared)}})) ++failures;
            // Read back at once, while the other threads are still writing (the shared blob among others).
            const auto entry = cache.lookup(key(t, i));
            const auto blobs = entry ? cache.fetch(*entry) : std::nullopt;
            if (!blobs || (*blobs)[0] != data || (*blobs)[1] != shared) ++failures;
        }
    };
    // Then every entry is read by a thread that did not write it.
    auto reader = [&](int t) {
        const int other = (t + 1) % kThreads;
        for (int i = 0; i < kEntries; ++i) {
            const auto entry = cache.lookup(key(other, i));
            const auto blobs = entry ? cache.fetch(*entry) : std::nullopt;
            if (!blobs || blobs->size() != 2 || (*blobs)[0] != own(other, i) || (*blobs)[1] != shared) ++failures;
        }
    };
    auto in_parallel = [&](auto body) {
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t) threads.emplace_back(body, t);
        for (auto& th : threads) th.join();
    };
    in_parallel(uploader);
    in_parallel(reader);

    CHECK(failures == 0);
    CHECK(warnings.seen.empty());
    const auto s = cache.stats();
    CHECK(s.uploaded == kThreads * kEntries);
    CHECK(s.hits == 2 * kThreads * kEntries);
    CHECK(s.errors == 0);
}
