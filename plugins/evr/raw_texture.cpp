#include "raw_texture.hpp"

#include "assetforge/bytes.hpp"
#include "assetforge/dds_header.hpp"
#include "assetforge/error.hpp"
#include "assetforge/formats.hpp"

#include <bit>

namespace af::evr {

namespace dds = sdk::dds;
using sdk::format;
using ull = unsigned long long;

uint64_t bc_chain_bytes(const TextureMeta& t) {
    if (!dds::bc_block_bytes(t.dxgi)) return 0;
    uint64_t total = 0;
    for (uint32_t m = 0; m < t.mips; ++m)
        total += surface_bytes(t.dxgi, mip_extent(t.width, m), mip_extent(t.height, m));
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
    if (!dds::bc_block_bytes(t.dxgi) || t.width < 1 || t.width > 16384 || t.height < 1 || t.height > 16384 ||
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
    // As texconv writes it: linear size of the top level, depth 1, a DX10 extension.
    dds::RawHeader h;
    h.flags = dds::hflag::required | dds::hflag::mipmapcount | dds::hflag::linearsize;
    h.height = t.height;
    h.width = t.width;
    h.pitch_or_linear_size = uint32_t(surface_bytes(t.dxgi, t.width, t.height));
    h.depth = 1;
    h.mip_count = t.mips;
    h.pf.flags = dds::pfflag::fourcc;
    h.pf.fourcc = dds::kFourccDx10;
    h.caps = dds::caps::texture | (t.mips > 1 ? dds::caps::complex | dds::caps::mipmap : 0u);
    h.dx10 = dds::Dx10Header{.dxgi_format = t.dxgi, .dimension = dds::kDimTexture2D, .array_size = t.layers};
    plan.header = dds::serialize_header(h);
    return plan;
}

} // namespace af::evr
