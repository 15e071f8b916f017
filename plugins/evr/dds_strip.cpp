#include "dds_strip.hpp"

#include "raw_texture.hpp"

#include "assetforge/bytes.hpp"
#include "assetforge/error.hpp"

namespace af::evr {

using sdk::format;
using sdk::invalid;
using ull = unsigned long long;

namespace {

// Legacy FourCCs texconv writes for BC1-BC5 by default; a legacy header cannot say sRGB.
uint32_t legacy_dxgi(const uint8_t* cc) {
    const std::string s(reinterpret_cast<const char*>(cc), 4);
    if (s == "DXT1") return 71;
    if (s == "DXT2" || s == "DXT3") return 74;
    if (s == "DXT4" || s == "DXT5") return 77;
    if (s == "ATI1" || s == "BC4U") return 80;
    if (s == "BC4S") return 81;
    if (s == "ATI2" || s == "BC5U") return 83;
    if (s == "BC5S") return 84;
    return 0;
}

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

std::span<const uint8_t> raw_bc_from_dds(std::span<const uint8_t> dds, std::span<const uint8_t> meta,
                                         const std::string& where) {
    if (dds.size() < 128) invalid(0, where + format(": %zu bytes, too short for a DDS header", dds.size()));
    sdk::ByteReader r(dds.data(), dds.size());
    if (!(dds[0] == 'D' && dds[1] == 'D' && dds[2] == 'S' && dds[3] == ' ') || r.u32(4) != 124)
        invalid(0, where + ": not a DDS file (magic 'DDS ' and header size 124 expected)");
    const uint32_t caps2 = r.u32(112);
    if (caps2 & 0x200) invalid(112, where + ": a cubemap; a raw BC texture is a 2D texture");
    if (caps2 & 0x200000) invalid(112, where + ": a volume texture; a raw BC texture is a 2D texture");
    TextureMeta t{r.u32(16), r.u32(12), r.u32(28), 0, 1};
    if (t.mips == 0) t.mips = 1;
    uint64_t header = 128;
    if (std::string(reinterpret_cast<const char*>(dds.data() + 84), 4) == "DX10") {
        if (dds.size() < 148) invalid(0, where + ": DX10 header truncated");
        header = 148;
        t.dxgi = r.u32(128);
        if (r.u32(132) != 3)
            invalid(132, where + format(": resource dimension %u, a raw BC texture is 2D (3)", r.u32(132)));
        if (r.u32(136) & 4) invalid(136, where + ": a cubemap; a raw BC texture is a 2D texture");
        t.layers = r.u32(140) ? r.u32(140) : 1;
    } else {
        t.dxgi = legacy_dxgi(dds.data() + 84);
    }
    if (!bc_block_bytes(t.dxgi))
        invalid(84, where + ": not a BC1-BC7 texture (the game stores raw BC blocks here); re-encode it to the "
                            "original's format");
    if (t.width < 1 || t.width > 16384 || t.height < 1 || t.height > 16384 || t.layers > 2048 || t.mips > 32)
        invalid(12, where + ": DDS header describes " + describe(t) + ", outside what this reader accepts");
    const uint64_t need = bc_chain_bytes(t), have = dds.size() - header;
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
    return dds.subspan(header);
}

} // namespace af::evr
