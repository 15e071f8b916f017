#include "assetforge/formats.hpp"
#include "assetforge/texture.hpp"

#include <catch2/catch.hpp>
#include <set>

using namespace af;

TEST_CASE("every format has a unique id and name and a consistent block description") {
    std::set<uint32_t> ids;
    std::set<std::string_view> names;
    for (const auto& f : all_formats()) {
        CHECK(ids.insert(f.id).second);
        CHECK(names.insert(f.name).second);
        CHECK(f.block_w >= 1);
        CHECK(f.block_h >= 1);
        CHECK(f.block_bytes >= 1);
        CHECK(format_by_name(f.name) == &f);
        if (f.compressed()) {
            CHECK(f.block_w == 4);
            CHECK(f.block_h == 4);
            CHECK((f.block_bytes == 8 || f.block_bytes == 16));
        }
        if (f.layout == Layout::Plain) {
            // Channels stay inside the texel and do not overlap.
            uint32_t used[16] = {};
            for (const auto& c : f.ch) {
                if (!c.bits) continue;
                CHECK(c.offset + c.bits <= f.block_bytes * 8);
                for (unsigned b = c.offset; b < unsigned(c.offset + c.bits); ++b) CHECK(used[b / 8]++ < 8);
            }
        }
    }
    CHECK(format_by_name("bc7_unorm")->id == 98);
    CHECK(format_info(0x7fffffff) == nullptr);
}

TEST_CASE("surface sizes for odd dimensions") {
    CHECK(surface_bytes(FMT_BC1_UNORM, 1, 1) == 8);
    CHECK(surface_bytes(FMT_BC1_UNORM, 5, 3) == 16);
    CHECK(surface_bytes(FMT_BC7_UNORM, 13, 7) == 4 * 2 * 16);
    CHECK(surface_bytes(FMT_R8G8B8A8_UNORM, 13, 7) == 13 * 7 * 4);
    CHECK(surface_bytes(FMT_R8G8B8, 3, 5) == 45);
    CHECK(surface_bytes(FMT_R8G8B8A8_UNORM, 3, 5, 7) == 3 * 5 * 7 * 4);
    CHECK(surface_bytes(FMT_R8G8_B8G8_UNORM, 3, 1) == 8); // pairs round up
    CHECK(surface_bytes(FMT_R1_UNORM, 9, 2) == 4);
    CHECK(row_pitch(FMT_BC3_UNORM, 2) == 16);
    CHECK(surface_bytes(0xdeadbeef, 4, 4) == 0);
    // Hostile dimensions do not overflow 64 bits.
    CHECK(surface_bytes(FMT_R32G32B32A32_FLOAT, 0xffffffffu, 0xffffffffu) == uint64_t(0xffffffffu) * 0xffffffffu * 16);
}

TEST_CASE("full mip chains") {
    CHECK(full_mip_count(1, 1) == 1);
    CHECK(full_mip_count(128, 128) == 8);
    CHECK(full_mip_count(256, 64) == 9);
    CHECK(full_mip_count(7, 3) == 3);
    CHECK(full_mip_count(1, 1, 16) == 5);
    CHECK(mip_extent(7, 1) == 3);
    CHECK(mip_extent(7, 2) == 1);
    CHECK(mip_extent(7, 9) == 1);
    CHECK(mip_extent(7, 40) == 1);

    // The seed's EchoVR example: BC1 128×128 with 8 mips = 10936 bytes.
    TextureDesc d{FMT_BC1_UNORM, 128, 128, 1, 8};
    CHECK(texture_bytes(d) == 10936);
    // BC7 128×128 full chain is 21872 (the seed's 21848 is a miscount).
    d.format = FMT_BC7_UNORM;
    CHECK(texture_bytes(d) == 21872);

    for (const auto& f : all_formats()) {
        TextureDesc t{f.id, 13, 7, 1, full_mip_count(13, 7), 2, 6};
        uint64_t sum = 0;
        for (uint32_t m = 0; m < t.mips; ++m) sum += mip_surface_bytes(t, m);
        CHECK(texture_bytes(t) == sum * 12);
        CHECK(surface_offset(t, 1, 5, t.mips - 1) + mip_surface_bytes(t, t.mips - 1) == texture_bytes(t));
    }
}
