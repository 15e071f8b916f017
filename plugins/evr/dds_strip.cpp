#include "dds_strip.hpp"

#include "raw_texture.hpp"

#include "assetforge/bytes.hpp"
#include "assetforge/dds_header.hpp"
#include "assetforge/error.hpp"

namespace af::evr {

namespace dds = sdk::dds;
using sdk::format;
using sdk::invalid;
using ull = unsigned long long;

namespace {

// BC1 = 1 … BC7 = 7 (BC6H = 6): formats of one family differ only in typeless/unorm/srgb/snorm.
int bc_family(uint32_t dxgi) {
    if (dxgi >= 70 && dxgi <= 84) return int((dxgi - 70) / 3) + 1;
    if (dxgi >= 94 && dxgi <= 96) return 6;
    if (dxgi >= 97 && dxgi <= 99) return 7;
    return 0;
}

std::string describe(const TextureMeta& t) {
    return format("%ux%u, %u mip(s), DXGI %u, %u layer(s)", t.width, t.height, t.mips, t.dxgi, t.layers);
}

} // namespace

std::span<const uint8_t> raw_bc_from_dds(std::span<const uint8_t> file, std::span<const uint8_t> meta,
                                         const std::string& where) {
    if (file.size() < dds::kLegacyDataOffset)
        invalid(0, where + format(": %zu bytes, too short for a DDS header", file.size()));
    sdk::ByteReader r(file.data(), file.size());
    if (r.u32(dds::off::magic) != dds::kMagic || r.u32(dds::off::size) != dds::kHeaderSize)
        invalid(0, where + ": not a DDS file (magic 'DDS ' and header size 124 expected)");
    const uint32_t caps2 = r.u32(dds::off::caps2);
    if (caps2 & dds::caps2::cubemap) invalid(dds::off::caps2, where + ": a cubemap; a raw BC texture is a 2D texture");
    if (caps2 & dds::caps2::volume)
        invalid(dds::off::caps2, where + ": a volume texture; a raw BC texture is a 2D texture");
    TextureMeta t{r.u32(dds::off::width), r.u32(dds::off::height), r.u32(dds::off::mips), 0, 1};
    if (t.mips == 0) t.mips = 1;
    uint64_t header = dds::kLegacyDataOffset;
    const uint32_t code = r.u32(dds::off::pf_fourcc);
    if (code == dds::kFourccDx10) {
        if (file.size() < dds::kDx10DataOffset) invalid(0, where + ": DX10 header truncated");
        header = dds::kDx10DataOffset;
        t.dxgi = r.u32(dds::off::dxgi_format);
        if (r.u32(dds::off::dimension) != dds::kDimTexture2D)
            invalid(dds::off::dimension,
                    where + format(": resource dimension %u, a raw BC texture is 2D (3)", r.u32(dds::off::dimension)));
        if (r.u32(dds::off::misc_flag) & dds::kMiscTextureCube)
            invalid(dds::off::misc_flag, where + ": a cubemap; a raw BC texture is a 2D texture");
        t.layers = r.u32(dds::off::array_size) ? r.u32(dds::off::array_size) : 1;
    } else {
        // Legacy FourCCs (texconv writes them for BC1-BC5 by default); a legacy header cannot say sRGB.
        const dds::FourccEntry* e = dds::fourcc_entry(code);
        t.dxgi = e ? e->format : 0;
    }
    if (!dds::bc_block_bytes(t.dxgi))
        invalid(dds::off::pf_fourcc,
                where + ": not a BC1-BC7 texture (the game stores raw BC blocks here); re-encode it to the "
                        "original's format");
    if (t.width < 1 || t.width > 16384 || t.height < 1 || t.height > 16384 || t.layers > 2048 || t.mips > 32)
        invalid(12, where + ": DDS header describes " + describe(t) + ", outside what this reader accepts");
    const uint64_t need = bc_chain_bytes(t), have = file.size() - header;
    if (need != have)
        invalid(header, where + format(": %llu bytes of data after the %llu-byte header, but %s needs %llu", (ull)have,
                                       (ull)header, describe(t).c_str(), (ull)need));
    if (!meta.empty()) {
        if (meta.size() != kTextureMetaSize)
            invalid(0, where + format(": its texture metadata is %zu bytes, not 256", meta.size()));
        sdk::ByteReader mr(meta.data(), meta.size());
        TextureMeta want{mr.u32(0), mr.u32(4), mr.u32(8), mr.u32(12), mr.u32(28) ? mr.u32(28) : 1};
        if (t.width != want.width || t.height != want.height || t.mips != want.mips || t.layers != want.layers ||
            bc_family(t.dxgi) != bc_family(want.dxgi))
            invalid(0, where + ": the game expects " + describe(want) + ", this DDS is " + describe(t) +
                           "; re-encode at the original size and format");
    }
    return file.subspan(header);
}

} // namespace af::evr
