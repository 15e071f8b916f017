// DXT pages (compression 2): built with the project's writer (no independent
// DXT sample exists), read back, and decoded through a host convert service.
#include "dxt_page.hpp"
#include "page_pixels.hpp"
#include "pages_census.hpp"
#include "pages_writer.hpp"

#include "assetforge/formats.hpp"
#include "assetforge/plugin.hpp"
#include "assetforge/testing/fake_host.hpp"

#include <catch2/catch.hpp>

using namespace af::vtpages;

namespace {

struct Call {
    uint32_t src_format, dst_format, w, h;
    std::vector<uint8_t> src;
};

std::vector<uint8_t> dxt_file(uint32_t page_size) {
    Layout l;
    l.header = new_header(2, 2, 1, 0);
    std::vector<uint8_t> payload(page_size);
    for (size_t i = 0; i < payload.size(); ++i) payload[i] = uint8_t(i / 8192 + 1); // surface-wise pattern
    l.owned.push_back(payload);
    for (PageKey k : {PageKey{1, 0, 0}, PageKey{0, 1, 1}}) {
        LayoutNode n;
        n.key = k;
        n.compression = kCompDxt;
        n.payload = l.owned.back();
        n.payload_size = checked_payload_size(kCompDxt, n.payload, n.payload.size(), "dxt");
        n.reservation = align_to_scale(n.used(), 2);
        l.nodes.push_back(n);
    }
    return emit_to_memory(l);
}

} // namespace

TEST_CASE("DXT pages: fixed sizes, BC1/BC3 surfaces, decoding through af_host.convert", "[dxt]") {
    for (uint32_t size : {kDxtPageSmall, kDxtPageLarge}) {
        INFO(size);
        auto bytes = dxt_file(size);
        PagesFile f({bytes.data(), bytes.size()});
        Census c = take_census(f);
        CHECK(c.pages == 2);
        CHECK(c.per_compression[kCompDxt] == 2);
        CHECK(c.slack == 0);
        auto p = *f.find({0, 1, 1});
        CHECK(p.payload == size);
        auto surfaces = dxt_surfaces(p.payload);
        REQUIRE(surfaces.size() == (size == kDxtPageSmall ? 3u : 4u));

        CHECK_THROWS_WITH(page_pixels(nullptr, f, p), Catch::StartsWith("unsupported: DXT pixel decoding needs"));
        af::sdk::testing::FakeHost host;
        std::vector<Call> calls;
        host.on_convert = [&](const af_surface* src, af_surface* dst, const af_options*, af_error*) {
            calls.push_back({src->format, dst->format, src->width, src->height, {src->data, src->data + src->size}});
            std::fill(dst->data, dst->data + dst->size, uint8_t(calls.size()));
            return AF_OK;
        };
        auto images = page_pixels(host, f, p);
        REQUIRE(calls.size() == surfaces.size());
        for (size_t i = 0; i < calls.size(); ++i) {
            CHECK(calls[i].src_format == surfaces[i].format);
            CHECK(calls[i].dst_format == af::FMT_R8G8B8A8_UNORM);
            CHECK(calls[i].w == 128);
            CHECK(calls[i].src.size() == af::surface_bytes(surfaces[i].format, 128, 128, 1));
            CHECK(calls[i].src.front() == uint8_t(surfaces[i].offset / 8192 + 1)); // the right byte range
            CHECK(images[i].image.desc.width == 128);
        }
    }
    CHECK(dxt_surfaces(12345).empty());
    CHECK_THROWS_WITH(checked_payload_size(kCompDxt, {}, 40000, "x"), Catch::Contains("40960 and 49152"));
}
