// The services added in API 1.3 (resample, write_texture) and cancellation in
// parallel_for, called through the af_host table as a plugin calls them.
#include "assetforge/pixels.hpp"
#include "assetforge/resample.hpp"
#include "assetforge/write_texture.hpp"
#include "core/png_io.hpp"
#include "host/host_services.hpp"

#include <catch2/catch.hpp>

#include <atomic>

namespace sdk = af::sdk;

namespace {

af::Texture checker(uint32_t w, uint32_t h) {
    af::Texture p = af::rgba8_picture(w, h);
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x) {
            uint8_t* t = &p.data[(size_t(y) * w + x) * 4];
            t[0] = t[1] = t[2] = ((x + y) & 1) ? 255 : 0;
            t[3] = 255;
        }
    return p;
}

} // namespace

TEST_CASE("resample: the core's filters through af_host.resample") {
    const af_host* h = af::host::services();
    REQUIRE(AF_HOST_HAS(h, resample));
    auto in = checker(8, 8);
    // Box 2:1 of a checkerboard is flat grey (mid-grey in linear light, so brighter stored).
    sdk::ResampleOptions box;
    box.filter = AF_FILTER_BOX;
    box.linear_light = false;
    auto half = sdk::resample(h, in, 4, 4, box);
    CHECK(half.desc.width == 4);
    CHECK(int(half.data[(2 * 4 + 1) * 4]) == 128);
    // Point keeps texels: a checkerboard stays a checkerboard at the same size.
    sdk::ResampleOptions point;
    point.filter = AF_FILTER_POINT;
    CHECK(sdk::resample(h, in, 8, 8, point).data == in.data);
    // Float pixels keep their type; upsampling works too.
    af::Texture f = af::rgba32f_picture(2, 2);
    for (float& v : af::floats(f)) v = 0.25f;
    auto up = sdk::resample(h, f, 5, 3);
    REQUIRE(af::is_float(up));
    CHECK(af::floats(up)[(2 * 5 + 4) * 4 + 1] == Approx(0.25f));

    af_surface src = in.surface(0, 0, 0).abi(), dst{af::FMT_R32G32B32A32_FLOAT, 4, 4, 1, nullptr, 0};
    af_error e{};
    CHECK(h->resample(&src, &dst, nullptr, &e) == AF_ERR_USAGE); // formats differ
    af_resample_options bad{};
    sdk::init_header(bad);
    bad.filter = 99;
    af::Texture out = af::rgba8_picture(4, 4);
    dst = out.surface(0, 0, 0).abi();
    CHECK(h->resample(&src, &dst, &bad, &e) == AF_ERR_USAGE);
    CHECK_THAT(std::string(e.message), Catch::Contains("unknown filter"));
}

TEST_CASE("write_texture: the built-in PNG writer, and unknown containers") {
    const af_host* h = af::host::services();
    REQUIRE(AF_HOST_HAS(h, write_texture));
    auto px = checker(16, 4);
    auto png = sdk::encode_texture(h, "png", px);
    af::Texture back = af::decode_png(png, "t.png");
    CHECK(back.desc.width == 16);
    CHECK(back.data == px.data);
    // A 1-bit grey mask, as the pages plugin writes cover masks.
    sdk::OptionList o;
    o.set("channels", "grey");
    o.set("bit_depth", "1");
    af_options ov = o.view();
    auto mask = sdk::encode_texture(h, "png", px, &ov);
    REQUIRE(mask.size() > 25);
    CHECK(mask[24] == 1);
    CHECK(mask[25] == 0);
    CHECK(af::decode_png(mask, "m.png").data == px.data);
    CHECK_THROWS_WITH(sdk::encode_texture(h, "nonesuch", px), Catch::Contains("nonesuch"));
}

TEST_CASE("parallel_for skips what has not started once cancelled") {
    const af_host* h = af::host::services();
    std::atomic<uint64_t> done{0};
    auto count = [](void* ctx, uint64_t b, uint64_t e) { *static_cast<std::atomic<uint64_t>*>(ctx) += e - b; };
    h->parallel_for(0, 1000, 10, count, &done);
    CHECK(done == 1000);
    af::host::request_cancel();
    done = 0;
    h->parallel_for(0, 1000, 10, count, &done);
    CHECK(done == 0);
    // The SDK wrapper turns it into AF_ERR_CANCELLED rather than a silently partial result.
    try {
        sdk::parallel_for(h, 1000, 10, [](uint64_t, uint64_t) {});
        FAIL("no error");
    } catch (const sdk::Error& x) {
        CHECK(x.status() == AF_ERR_CANCELLED);
    }
    af::host::clear_cancel();
}
