#include "assetforge/descriptors.hpp"
#include "assetforge/pixels.hpp"
#include "assetforge/plugin.hpp"
#include "assetforge/resample.hpp"
#include "assetforge/testing/fake_host.hpp"
#include "assetforge/write_texture.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <set>
#include <thread>

using af::sdk::testing::FakeHost;
namespace sdk = af::sdk;

TEST_CASE("fake host: allocation accounting, limit and bad frees") {
    FakeHost host;
    const af_host* h = host;
    void* a = h->alloc(100);
    void* b = h->alloc(50);
    CHECK(host.live_allocations() == 2);
    CHECK(host.live_bytes() == 150);
    h->free(a);
    CHECK(host.live_bytes() == 50);
    CHECK(host.peak_bytes() == 150);
    CHECK(host.allocations() == 2);
    h->free(a); // twice: counted, not passed to free()
    CHECK(host.bad_frees() == 1);
    host.set_alloc_limit(64);
    CHECK(h->max_texture_bytes == 64);
    CHECK(h->alloc(65) == nullptr);
    CHECK(host.refused_allocations() == 1);
    h->free(b);
    CHECK(host.live_allocations() == 0);
    // Throws through sdk::host_alloc as a plugin sees it.
    CHECK_THROWS_AS(sdk::host_alloc(h, 1000), sdk::Error);
}

TEST_CASE("fake host: log capture and progress") {
    FakeHost host;
    host.get()->log(AF_LOG_WARN, "odd flags in header");
    host.get()->progress(3, 10);
    REQUIRE(host.logs().size() == 1);
    CHECK(host.logs()[0].level == AF_LOG_WARN);
    CHECK(host.logged("odd flags"));
    CHECK_FALSE(host.logged("nothing"));
    CHECK(host.progress_done() == 3);
    CHECK(host.progress_total() == 10);
}

TEST_CASE("fake host: parallel_for covers the range serially or on threads") {
    for (unsigned threads : {0u, 4u}) {
        FakeHost host;
        host.set_threads(threads);
        std::atomic<uint64_t> sum{0};
        std::mutex m;
        std::set<std::thread::id> ids;
        sdk::parallel_for(host, 1000, 7, [&](uint64_t b, uint64_t e) {
            for (uint64_t i = b; i < e; ++i) sum += i;
            std::lock_guard lock(m);
            ids.insert(std::this_thread::get_id());
        });
        CHECK(sum == 999 * 1000 / 2);
        CHECK(host.parallel_calls() == 1);
        if (threads == 0) CHECK(ids.size() == 1);
    }
}

TEST_CASE("fake host: cancellation stops parallel_for, and the SDK reports it") {
    FakeHost host;
    host.cancel_after_polls(3);
    uint64_t pieces = 0;
    try {
        sdk::parallel_for(host, 100, 10, [&](uint64_t, uint64_t) { ++pieces; });
        FAIL("no error");
    } catch (const sdk::Error& e) {
        CHECK(e.status() == AF_ERR_CANCELLED);
    }
    CHECK(pieces == 2); // the third poll said stop
    FakeHost fresh;
    fresh.cancel();
    CHECK(fresh.get()->cancelled() == 1);
}

TEST_CASE("fake host: convert between RGBA8 and RGBA32F, other formats refused") {
    FakeHost host;
    af::Texture px = af::rgba8_picture(2, 1);
    px.data = {0, 51, 102, 255, 255, 204, 153, 0};
    af_surface s = px.surface(0, 0, 0).abi();
    af::Texture f = sdk::get_rgba32f(host, s);
    REQUIRE(af::is_float(f));
    CHECK(af::floats(f)[1] == Approx(0.2f));
    af::Texture back = af::rgba8_picture(2, 1);
    af_surface d = back.surface(0, 0, 0).abi();
    sdk::put_pixels(host, f, d);
    CHECK(back.data == px.data);
    std::vector<uint8_t> bc1(8);
    af_surface bc{af::FMT_BC1_UNORM, 4, 4, 1, bc1.data(), bc1.size()};
    CHECK_THROWS_WITH(sdk::get_rgba8(host, bc), Catch::Contains("use_codec"));
    int hooked = 0;
    host.on_convert = [&](const af_surface*, af_surface*, const af_options*, af_error*) {
        ++hooked;
        return AF_OK;
    };
    (void)sdk::get_rgba8(host, bc);
    CHECK(hooked == 1);
}

TEST_CASE("fake host: write_texture reaches a container under test, resample only when wired") {
    FakeHost host;
    af::Texture px = af::rgba8_picture(1, 1);
    CHECK_THROWS_WITH(sdk::encode_texture(host, "raw", px), Catch::Contains("no container 'raw'"));
    static const af_container raw = sdk::make_container(
        {.name = "raw", .write = [](const af_host*, const af_texture* t, const af_options*, af_sink* s, af_error*) {
             return s->write(s->ctx, t->data, t->data_size);
         }});
    host.use_container(&raw);
    px.data = {1, 2, 3, 4};
    CHECK(sdk::encode_texture(host, "raw", px) == px.data);
    CHECK_THROWS_WITH(sdk::resample(host, px, 2, 2), Catch::Contains("on_resample"));
    host.on_resample = [](const af_surface*, af_surface* d, const af_resample_options* o, af_error*) {
        std::fill(d->data, d->data + d->size, uint8_t(o->filter));
        return AF_OK;
    };
    sdk::ResampleOptions o;
    o.filter = AF_FILTER_MITCHELL;
    CHECK(sdk::resample(host, px, 2, 2, o).data == std::vector<uint8_t>(16, uint8_t(AF_FILTER_MITCHELL)));
}

TEST_CASE("SDK wrappers refuse hosts that predate a service (AF_HOST_HAS)") {
    FakeHost host;
    host.table().struct_size = uint32_t(offsetof(af_host, resample)); // an API 1.2 host
    const af::Texture px = af::rgba8_picture(1, 1);
    CHECK_FALSE(AF_HOST_HAS(host.get(), resample));
    CHECK_FALSE(AF_HOST_HAS(host.get(), write_texture));
    CHECK_THROWS_WITH(sdk::resample(host, px, 2, 2), Catch::Contains("API 1.3"));
    CHECK_THROWS_WITH(sdk::encode_texture(host, "png", px), Catch::Contains("API 1.3"));
    const af_host* none = nullptr;
    CHECK_FALSE(AF_HOST_HAS(none, resample));
}

TEST_CASE("fake host: tests on several threads at once each reach their own host") {
    constexpr int kThreads = 4, kAllocs = 200;
    std::atomic<int> mixed{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < kThreads; ++t)
        pool.emplace_back([&, t] {
            FakeHost host;
            host.set_threads(2); // its parallel_for threads must reach this host too
            const af_host* h = host;
            struct Ctx {
                const af_host* h;
                std::vector<void*> blocks;
                std::mutex m;
            } ctx{h, {}, {}};
            h->parallel_for(
                0, kAllocs, 7,
                [](void* c, uint64_t b, uint64_t e) {
                    auto* x = static_cast<Ctx*>(c);
                    for (uint64_t i = b; i < e; ++i) {
                        void* p = x->h->alloc(16);
                        std::lock_guard lock(x->m);
                        x->blocks.push_back(p);
                    }
                },
                &ctx);
            h->log(AF_LOG_INFO, ("thread " + std::to_string(t)).c_str());
            if (host.live_allocations() != kAllocs || host.logs().size() != 1 ||
                host.logs()[0].message != "thread " + std::to_string(t))
                ++mixed;
            for (void* p : ctx.blocks) h->free(p);
            if (host.live_allocations() != 0 || host.bad_frees() != 0) ++mixed;
        });
    for (auto& t : pool) t.join();
    CHECK(mixed == 0);
}
