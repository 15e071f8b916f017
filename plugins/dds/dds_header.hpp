// The DDS file header as stored on disk: "DDS ", DDS_HEADER (124 bytes), and
// DDS_HEADER_DXT10 (20 bytes) when the pixel format's FourCC is "DX10".
// Values are kept raw; dds_layout.cpp decides what they mean.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace af::dds {

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

// Reads magic and headers; throws af::sdk::Error (invalid, with the offset)
// when the file is too short for them or the magic is wrong.
RawHeader parse_raw_header(const uint8_t* data, uint64_t size);

// The bytes of magic + headers (128 or 148).
std::vector<uint8_t> serialize_header(const RawHeader& h);

// "DXT1", or "0x00000071 (113)" when the code is not printable.
std::string fourcc_text(uint32_t code);

} // namespace af::dds
