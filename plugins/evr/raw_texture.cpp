#include "raw_texture.hpp"

#include "assetforge/bytes.hpp"
#include "assetforge/error.hpp"

#include <bit>

namespace af::evr {

using sdk::format;
using ull = unsigned long long;

uint32_t bc_block_bytes(uint32_t f) {
    if ((f >= 70 && f <= 72) || (f >= 79 && f <= 81)) return 8; // BC1, BC4
    if ((f >= 73 && f <= 78) || (f >= 82 && f <= 84) || (f >= 94 && f <= 99)) return 16;
    return 0;
}

uint64_t bc_chain_bytes(const TextureMeta& t) {
    const uint64_t bb = bc_block_bytes(t.dxgi);
    uint64_t w = t.width, h = t.height, total = 0;
    for (uint32_t m = 0; m < t.mips; ++m) {
        total += std::max<uint64_t>(1, (w + 3) / 4) * std::max<uint64_t>(1, (h + 3) / 4) * bb;
        w = std::max<uint64_t>(1, w / 2);
        h = std::max<uint64_t>(1, h / 2);
    }
    return total * t.layers;
}

DdsPlan plan_dds(std::span<const uint8_t> meta, uint64_t raw_size) {
    DdsPlan plan;
    if (meta.size() != kTextureMetaSize) {
        plan.why_not = format("its texture metadata is %zu bytes, not 256", meta.size());
        return plan;
    }
    sdk::ByteReader r(meta.data(), meta.size());
    TextureMeta t{r.u32(0), r.u32(4), r.u32(8), r.u32(12), r.u32(28)};
    if (t.layers == 0) t.layers = 1; // 0 means an ordinary (single) texture
    const uint32_t max_mips = uint32_t(std::bit_width(std::max(t.width, t.height))); // 1 + floor(log2)
    if (!bc_block_bytes(t.dxgi) || t.width < 1 || t.width > 16384 || t.height < 1 || t.height > 16384 ||
        t.layers > 2048 || t.mips < 1 || t.mips > max_mips) {
        plan.why_not = format("metadata %ux%u, %u mips, DXGI %u, %u layers is not a BC texture this reader can "
                              "describe",
                              t.width, t.height, t.mips, t.dxgi, t.layers);
        return plan;
    }
    // The metadata's own raw-size field may be rounded: the computed chain decides.
    const uint64_t need = bc_chain_bytes(t);
    if (need != raw_size) {
        plan.why_not = format("%llu bytes, but %ux%u with %u mips of DXGI %u needs %llu", (ull)raw_size, t.width,
                              t.height, t.mips, t.dxgi, (ull)need);
        return plan;
    }
    const uint32_t top =
        uint32_t(std::max(1u, (t.width + 3) / 4) * std::max(1u, (t.height + 3) / 4) * bc_block_bytes(t.dxgi));
    sdk::ByteWriter w(kDdsHeaderSize);
    w.append("DDS ", 4);
    w.u32(124);
    w.u32(0x000A1007); // CAPS | HEIGHT | WIDTH | PIXELFORMAT | MIPMAPCOUNT | LINEARSIZE, as texconv writes
    w.u32(t.height);
    w.u32(t.width);
    w.u32(top);
    w.u32(1); // depth
    w.u32(t.mips);
    w.fill(0, 44);
    w.u32(32); // pixel format size
    w.u32(4);  // FOURCC
    w.append("DX10", 4);
    w.fill(0, 20);
    w.u32(t.mips > 1 ? 0x401008u : 0x1000u); // TEXTURE, plus COMPLEX | MIPMAP for a chain
    w.fill(0, 16);
    w.u32(t.dxgi);
    w.u32(3); // 2D
    w.u32(0);
    w.u32(t.layers);
    w.u32(0);
    plan.header = std::move(w).bytes();
    return plan;
}

} // namespace af::evr
