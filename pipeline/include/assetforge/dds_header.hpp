// The DDS file header as stored on disk: "DDS ", DDS_HEADER (124 bytes), and
// DDS_HEADER_DXT10 (20 bytes) when the pixel format's FourCC is "DX10"; the
// legacy FourCCs and the DXGI ids (formats.hpp) they stand for. Values are kept
// raw; what they mean for a texture is the reader's business. Header-only: the
// dds plugin reads and writes whole files with it, other plugins that wrap or
// unwrap DDS files (evr) use the same offsets, codes and header bytes.
#pragma once

#include "assetforge/bytes.hpp"
#include "assetforge/formats.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace af::sdk::dds {

constexpr uint32_t kMagic = 0x20534444; // "DDS "
constexpr uint32_t kHeaderSize = 124;
constexpr uint32_t kPixelFormatSize = 32;
constexpr uint64_t kLegacyDataOffset = 128;
constexpr uint64_t kDx10DataOffset = 148;

// Byte offsets in the file, for error messages and the info report.
namespace off {
constexpr uint64_t magic = 0, size = 4, flags = 8, height = 12, width = 16, pitch = 20, depth = 24, mips = 28;
constexpr uint64_t pf_size = 76, pf_flags = 80, pf_fourcc = 84, pf_bits = 88, pf_rmask = 92, pf_gmask = 96,
                   pf_bmask = 100, pf_amask = 104;
constexpr uint64_t caps = 108, caps2 = 112;
constexpr uint64_t dxgi_format = 128, dimension = 132, misc_flag = 136, array_size = 140, misc_flags2 = 144;
} // namespace off

// DDS_HEADER.dwFlags
namespace hflag {
constexpr uint32_t caps = 0x1, height = 0x2, width = 0x4, pitch = 0x8, pixelformat = 0x1000, mipmapcount = 0x20000,
                   linearsize = 0x80000, depth = 0x800000;
constexpr uint32_t required = caps | height | width | pixelformat;
} // namespace hflag

// DDS_PIXELFORMAT.dwFlags
namespace pfflag {
constexpr uint32_t alphapixels = 0x1, alpha = 0x2, fourcc = 0x4, palette8 = 0x20, rgb = 0x40, yuv = 0x200,
                   luminance = 0x20000, bumpluminance = 0x40000, bumpdudv = 0x80000;
} // namespace pfflag

namespace caps {
constexpr uint32_t complex = 0x8, texture = 0x1000, mipmap = 0x400000;
} // namespace caps

namespace caps2 {
constexpr uint32_t cubemap = 0x200, pos_x = 0x400, neg_x = 0x800, pos_y = 0x1000, neg_y = 0x2000, pos_z = 0x4000,
                   neg_z = 0x8000, all_faces = 0xFC00, volume = 0x200000;
} // namespace caps2

// DDS_HEADER_DXT10
constexpr uint32_t kDimTexture1D = 2, kDimTexture2D = 3, kDimTexture3D = 4;
constexpr uint32_t kMiscTextureCube = 0x4;
constexpr uint32_t kMiscFlags2AlphaMask = 0x7;

constexpr uint32_t fourcc(char a, char b, char c, char d) {
    return uint32_t(uint8_t(a)) | uint32_t(uint8_t(b)) << 8 | uint32_t(uint8_t(c)) << 16 | uint32_t(uint8_t(d)) << 24;
}
constexpr uint32_t kFourccDx10 = fourcc('D', 'X', '1', '0');

// A legacy dwFourCC and the format-table id it stands for.
struct FourccEntry {
    uint32_t code;
    uint32_t format;
    bool premultiplied; // DXT2/DXT4: premultiplied alpha
};

// Reading: every code maps to one format. Writing uses the first entry for a
// format (so BC4_UNORM is written as ATI1, the code most readers know).
inline constexpr FourccEntry kFourccs[] = {
    {fourcc('D', 'X', 'T', '1'), FMT_BC1_UNORM, false},
    {fourcc('D', 'X', 'T', '3'), FMT_BC2_UNORM, false},
    {fourcc('D', 'X', 'T', '2'), FMT_BC2_UNORM, true},
    {fourcc('D', 'X', 'T', '5'), FMT_BC3_UNORM, false},
    {fourcc('D', 'X', 'T', '4'), FMT_BC3_UNORM, true},
    {fourcc('A', 'T', 'I', '1'), FMT_BC4_UNORM, false},
    {fourcc('B', 'C', '4', 'U'), FMT_BC4_UNORM, false},
    {fourcc('B', 'C', '4', 'S'), FMT_BC4_SNORM, false},
    {fourcc('A', 'T', 'I', '2'), FMT_BC5_UNORM, false},
    {fourcc('B', 'C', '5', 'U'), FMT_BC5_UNORM, false},
    {fourcc('B', 'C', '5', 'S'), FMT_BC5_SNORM, false},
    {fourcc('R', 'G', 'B', 'G'), FMT_R8G8_B8G8_UNORM, false},
    {fourcc('G', 'R', 'G', 'B'), FMT_G8R8_G8B8_UNORM, false},
    {fourcc('Y', 'U', 'Y', '2'), FMT_YUY2, false},
    // D3DFORMAT numbers stored in dwFourCC.
    {36, FMT_R16G16B16A16_UNORM, false},
    {110, FMT_R16G16B16A16_SNORM, false},
    {111, FMT_R16_FLOAT, false},
    {112, FMT_R16G16_FLOAT, false},
    {113, FMT_R16G16B16A16_FLOAT, false},
    {114, FMT_R32_FLOAT, false},
    {115, FMT_R32G32_FLOAT, false},
    {116, FMT_R32G32B32A32_FLOAT, false},
};

// The entry for a legacy dwFourCC, or nullptr.
inline constexpr const FourccEntry* fourcc_entry(uint32_t code) {
    for (const auto& e : kFourccs)
        if (e.code == code) return &e;
    return nullptr;
}

struct PixelFormat {
    uint32_t size = kPixelFormatSize;
    uint32_t flags = 0;
    uint32_t fourcc = 0;
    uint32_t bit_count = 0;
    uint32_t r_mask = 0, g_mask = 0, b_mask = 0, a_mask = 0;
};

struct Dx10Header {
    uint32_t dxgi_format = 0;
    uint32_t dimension = kDimTexture2D;
    uint32_t misc_flag = 0;
    uint32_t array_size = 1;
    uint32_t misc_flags2 = 0;
};

struct RawHeader {
    uint32_t size = kHeaderSize;
    uint32_t flags = 0;
    uint32_t height = 0, width = 0;
    uint32_t pitch_or_linear_size = 0;
    uint32_t depth = 0;
    uint32_t mip_count = 0;
    PixelFormat pf;
    uint32_t caps = 0, caps2 = 0, caps3 = 0, caps4 = 0;
    std::optional<Dx10Header> dx10;

    uint64_t data_offset() const { return dx10 ? kDx10DataOffset : kLegacyDataOffset; }
};

// The bytes of magic + headers (128 or 148).
inline std::vector<uint8_t> serialize_header(const RawHeader& h) {
    ByteWriter w(kDx10DataOffset);
    w.u32(kMagic);
    w.u32(h.size);
    w.u32(h.flags);
    w.u32(h.height);
    w.u32(h.width);
    w.u32(h.pitch_or_linear_size);
    w.u32(h.depth);
    w.u32(h.mip_count);
    w.fill(0, 11 * 4); // dwReserved1
    w.u32(h.pf.size);
    w.u32(h.pf.flags);
    w.u32(h.pf.fourcc);
    w.u32(h.pf.bit_count);
    w.u32(h.pf.r_mask);
    w.u32(h.pf.g_mask);
    w.u32(h.pf.b_mask);
    w.u32(h.pf.a_mask);
    w.u32(h.caps);
    w.u32(h.caps2);
    w.u32(h.caps3);
    w.u32(h.caps4);
    w.u32(0); // dwReserved2
    if (h.dx10) {
        w.u32(h.dx10->dxgi_format);
        w.u32(h.dx10->dimension);
        w.u32(h.dx10->misc_flag);
        w.u32(h.dx10->array_size);
        w.u32(h.dx10->misc_flags2);
    }
    return std::move(w).bytes();
}

// Bytes per 4×4 block of a block-compressed (BC1–BC7) format, 0 for any other id.
inline constexpr uint32_t bc_block_bytes(uint32_t format) {
    const FormatInfo* f = format_info(format);
    return f && f->compressed() ? f->block_bytes : 0;
}

} // namespace af::sdk::dds
