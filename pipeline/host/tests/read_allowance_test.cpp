// A container's dims (API 1.4) as the host reads them: the bytes they imply,
// the allowance a read gets, and af_host.alloc held to it, from any thread of
// the plugin's parallel_for.
#include "assetforge/formats.hpp"
#include "assetforge/plugin.hpp"
#include "host/host_services.hpp"
#include "host/read_allowance.hpp"

#include <catch2/catch.hpp>

#include <vector>

namespace {

af_dims dims(uint32_t format, uint32_t w, uint32_t h, uint32_t mips = 0, uint32_t layers = 0, uint32_t faces = 0) {
    af_dims d{};
    af::sdk::init_header(d);
    d.format = format;
    d.width = w;
    d.height = h;
    d.mip_count = mips;
    d.layer_count = layers;
    d.face_count = faces;
    return d;
}

} // namespace

TEST_CASE("read allowance: the bytes a container's dims imply") {
    using namespace af;
    CHECK(host::declared_bytes(dims(FMT_R8G8B8A8_UNORM, 2, 2)) == 16);
    CHECK(host::declared_bytes(dims(FMT_R8G8B8A8_UNORM_SRGB, 8192, 8192)) == 256ull << 20);
    // BC1 4x4 with its chain: 8 + 8 + 8 bytes (4x4, 2x2, 1x1 are one block each), six faces.
    CHECK(host::declared_bytes(dims(FMT_BC1_UNORM, 4, 4, 3, 1, 6)) == 6 * 24);
    // A palette per layer, and 16 bytes a texel for a format the host does not know.
    CHECK(host::declared_bytes(dims(FMT_P8, 4, 4, 1, 2)) == 2 * (16 + 1024));
    CHECK(host::declared_bytes(dims(0x7fff0000u, 3, 3)) == 9 * 16);
    // A hostile header does not wrap around to a small allowance.
    CHECK(host::declared_bytes(dims(0x7fff0000u, 0xffffffffu, 0xffffffffu, 1, 0xffffffffu, 0xffffffffu)) == UINT64_MAX);
    CHECK(host::read_allowance(dims(FMT_R8G8B8A8_UNORM, 2, 2)) == 16 + 1 + (1u << 20));
    CHECK(host::dims_text(dims(FMT_BC1_UNORM, 64, 32, 7, 1, 6)) == "64x32 BC1_UNORM, 6 faces, 7 mips");
}

TEST_CASE("read allowance: af_host.alloc gives NULL past it, also on parallel_for's threads") {
    const af_host* h = af::host::services();
    {
        af::host::AllowanceScope scope(1u << 20);
        void* a = h->alloc(512u << 10);
        REQUIRE(a);
        CHECK(h->alloc(768u << 10) == nullptr);
        CHECK(scope.refused() == 768u << 10);
        h->free(a);
        void* b = h->alloc(768u << 10); // what was freed counts no more
        CHECK(b);
        h->free(b);
        // The arena's threads count against the calling read's scope.
        std::vector<void*> got(64, nullptr);
        struct Ctx {
            const af_host* h;
            std::vector<void*>* got;
        } ctx{h, &got};
        h->parallel_for(
            0, 64, 1,
            [](void* c, uint64_t b, uint64_t e) {
                auto* x = static_cast<Ctx*>(c);
                for (uint64_t i = b; i < e; ++i) (*x->got)[i] = x->h->alloc(64u << 10);
            },
            &ctx);
        size_t given = 0;
        for (void* p : got) {
            given += p != nullptr;
            h->free(p);
        }
        // 1 MiB holds at most 16 blocks of 64 KiB: fewer where malloc gives more than asked (what is counted is
        // malloc_usable_size), all 16 under AddressSanitizer, whose allocator gives exactly what was asked.
        CHECK(given <= 16);
        CHECK(given > 0);
    }
    // Outside a read nothing is bounded but the host's own limits.
    void* big = h->alloc(8u << 20);
    CHECK(big);
    h->free(big);
}
