// The pixel-format table: one row per format, the single source of truth for
// sizes, pitches, block dimensions and channel layout. Header-only so that
// third-party plugins get it without linking the host.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace af {

// DXGI_FORMAT numbers (as in the DDS DX10 header) where DXGI has the format.
enum Format : uint32_t {
    FMT_UNKNOWN = 0,
    FMT_R32G32B32A32_TYPELESS = 1,
    FMT_R32G32B32A32_FLOAT = 2,
    FMT_R32G32B32A32_UINT = 3,
    FMT_R32G32B32A32_SINT = 4,
    FMT_R32G32B32_TYPELESS = 5,
    FMT_R32G32B32_FLOAT = 6,
    FMT_R32G32B32_UINT = 7,
    FMT_R32G32B32_SINT = 8,
    FMT_R16G16B16A16_TYPELESS = 9,
    FMT_R16G16B16A16_FLOAT = 10,
    FMT_R16G16B16A16_UNORM = 11,
    FMT_R16G16B16A16_UINT = 12,
    FMT_R16G16B16A16_SNORM = 13,
    FMT_R16G16B16A16_SINT = 14,
    FMT_R32G32_TYPELESS = 15,
    FMT_R32G32_FLOAT = 16,
    FMT_R32G32_UINT = 17,
    FMT_R32G32_SINT = 18,
    FMT_R32G8X24_TYPELESS = 19,
    FMT_D32_FLOAT_S8X24_UINT = 20,
    FMT_R32_FLOAT_X8X24_TYPELESS = 21,
    FMT_X32_TYPELESS_G8X24_UINT = 22,
    FMT_R10G10B10A2_TYPELESS = 23,
    FMT_R10G10B10A2_UNORM = 24,
    FMT_R10G10B10A2_UINT = 25,
    FMT_R11G11B10_FLOAT = 26,
    FMT_R8G8B8A8_TYPELESS = 27,
    FMT_R8G8B8A8_UNORM = 28,
    FMT_R8G8B8A8_UNORM_SRGB = 29,
    FMT_R8G8B8A8_UINT = 30,
    FMT_R8G8B8A8_SNORM = 31,
    FMT_R8G8B8A8_SINT = 32,
    FMT_R16G16_TYPELESS = 33,
    FMT_R16G16_FLOAT = 34,
    FMT_R16G16_UNORM = 35,
    FMT_R16G16_UINT = 36,
    FMT_R16G16_SNORM = 37,
    FMT_R16G16_SINT = 38,
    FMT_R32_TYPELESS = 39,
    FMT_D32_FLOAT = 40,
    FMT_R32_FLOAT = 41,
    FMT_R32_UINT = 42,
    FMT_R32_SINT = 43,
    FMT_R24G8_TYPELESS = 44,
    FMT_D24_UNORM_S8_UINT = 45,
    FMT_R24_UNORM_X8_TYPELESS = 46,
    FMT_X24_TYPELESS_G8_UINT = 47,
    FMT_R8G8_TYPELESS = 48,
    FMT_R8G8_UNORM = 49,
    FMT_R8G8_UINT = 50,
    FMT_R8G8_SNORM = 51,
    FMT_R8G8_SINT = 52,
    FMT_R16_TYPELESS = 53,
    FMT_R16_FLOAT = 54,
    FMT_D16_UNORM = 55,
    FMT_R16_UNORM = 56,
    FMT_R16_UINT = 57,
    FMT_R16_SNORM = 58,
    FMT_R16_SINT = 59,
    FMT_R8_TYPELESS = 60,
    FMT_R8_UNORM = 61,
    FMT_R8_UINT = 62,
    FMT_R8_SNORM = 63,
    FMT_R8_SINT = 64,
    FMT_A8_UNORM = 65,
    FMT_R1_UNORM = 66,
    FMT_R9G9B9E5_SHAREDEXP = 67,
    FMT_R8G8_B8G8_UNORM = 68,
    FMT_G8R8_G8B8_UNORM = 69,
    FMT_BC1_TYPELESS = 70,
    FMT_BC1_UNORM = 71,
    FMT_BC1_UNORM_SRGB = 72,
    FMT_BC2_TYPELESS = 73,
    FMT_BC2_UNORM = 74,
    FMT_BC2_UNORM_SRGB = 75,
    FMT_BC3_TYPELESS = 76,
    FMT_BC3_UNORM = 77,
    FMT_BC3_UNORM_SRGB = 78,
    FMT_BC4_TYPELESS = 79,
    FMT_BC4_UNORM = 80,
    FMT_BC4_SNORM = 81,
    FMT_BC5_TYPELESS = 82,
    FMT_BC5_UNORM = 83,
    FMT_BC5_SNORM = 84,
    FMT_B5G6R5_UNORM = 85,
    FMT_B5G5R5A1_UNORM = 86,
    FMT_B8G8R8A8_UNORM = 87,
    FMT_B8G8R8X8_UNORM = 88,
    FMT_R10G10B10_XR_BIAS_A2_UNORM = 89,
    FMT_B8G8R8A8_TYPELESS = 90,
    FMT_B8G8R8A8_UNORM_SRGB = 91,
    FMT_B8G8R8X8_TYPELESS = 92,
    FMT_B8G8R8X8_UNORM_SRGB = 93,
    FMT_BC6H_TYPELESS = 94,
    FMT_BC6H_UF16 = 95,
    FMT_BC6H_SF16 = 96,
    FMT_BC7_TYPELESS = 97,
    FMT_BC7_UNORM = 98,
    FMT_BC7_UNORM_SRGB = 99,
    FMT_YUY2 = 107,
    FMT_B4G4R4A4_UNORM = 115,

    // AssetForge ids for layouts DXGI lacks (VTF/XTF and legacy D3D9 formats).
    FMT_AF_BASE = 0x10000,
    FMT_P8 = 0x10000,                // 8-bit palette index, 256 RGBA palette per layer
    FMT_R8G8B8 = 0x10001,            // bytes R, G, B (VTF RGB888)
    FMT_B8G8R8 = 0x10002,            // bytes B, G, R (VTF BGR888, D3DFMT_R8G8B8)
    FMT_A8B8G8R8 = 0x10003,          // bytes A, B, G, R (VTF ABGR8888)
    FMT_A8R8G8B8 = 0x10004,          // bytes A, R, G, B (VTF ARGB8888)
    FMT_R5G6B5 = 0x10005,            // u16, R in the low bits (VTF RGB565)
    FMT_B5G5R5X1 = 0x10006,          // u16, alpha bit ignored (VTF BGRX5551, D3DFMT_X1R5G5B5)
    FMT_L8 = 0x10007,                // luminance (VTF I8, D3DFMT_L8)
    FMT_L8A8 = 0x10008,              // bytes L, A (VTF IA88, D3DFMT_A8L8)
    FMT_L16 = 0x10009,               // D3DFMT_L16
    FMT_L4A4 = 0x1000A,              // D3DFMT_A4L4
    FMT_B4G4R4X4 = 0x1000B,          // D3DFMT_X4R4G4B4
    FMT_B10G10R10A2 = 0x1000C,       // D3DFMT_A2R10G10B10
    FMT_B2G3R3 = 0x1000D,            // D3DFMT_R3G3B2
    FMT_B2G3R3A8 = 0x1000E,          // D3DFMT_A8R3G3B2
    FMT_R8G8B8X8 = 0x1000F,          // D3DFMT_X8B8G8R8
    FMT_R8G8B8_BLUESCREEN = 0x10010, // VTF RGB888_BLUESCREEN: pure blue means transparent
    FMT_B8G8R8_BLUESCREEN = 0x10011, // VTF BGR888_BLUESCREEN
    FMT_U8V8L8X8 = 0x10012,          // VTF UVLX8888: signed U, V; unsigned L
};

enum class ChannelType : uint8_t { None, Unorm, Snorm, Uint, Sint, Float, Typeless };

// One channel inside a texel: bit offset from bit 0 of the little-endian texel, width, type.
struct Channel {
    uint8_t offset = 0;
    uint8_t bits = 0;
    ChannelType type = ChannelType::None;
};

enum class Layout : uint8_t {
    Plain,     // channels described by ch[], one texel per block
    Block4x4,  // block-compressed (BCn), decoded by a codec
    Packed422, // 2×1 texel pairs sharing chroma (R8G8_B8G8, G8R8_G8B8, YUY2)
    Special,   // needs dedicated code (R11G11B10, RGB9E5, depth/stencil, R1)
    Palette,   // P8
};

namespace fmtflag {
constexpr uint16_t srgb = 0x1;      // colour channels are sRGB encoded
constexpr uint16_t luminance = 0x2; // ch[0] is luminance: R = G = B
constexpr uint16_t alpha = 0x4;     // has a meaningful alpha channel
constexpr uint16_t depth = 0x8;     // depth/stencil
constexpr uint16_t bluescreen = 0x10;
constexpr uint16_t hdr = 0x20; // values may exceed 1.0
constexpr uint16_t typeless = 0x40;
constexpr uint16_t snorm = 0x80; // block formats whose values span -1..1 (plain formats say it per channel)
} // namespace fmtflag

struct FormatInfo {
    uint32_t id;
    std::string_view name;
    Layout layout;
    uint8_t block_w, block_h; // 1×1 for plain formats
    uint8_t block_bytes;      // bytes per block (per texel when 1×1)
    uint16_t flags;
    Channel ch[4]; // R, G, B, A (Plain layout only)

    constexpr bool compressed() const { return layout == Layout::Block4x4; }
    constexpr bool srgb() const { return flags & fmtflag::srgb; }
    constexpr bool has_alpha() const { return flags & fmtflag::alpha; }
    constexpr uint32_t bits_per_texel() const { return block_bytes * 8u / (block_w * block_h); }
    // Values may be negative: SNORM/SINT channels, BC4/BC5 SNORM, BC6H SF16.
    constexpr bool is_signed() const {
        if (flags & fmtflag::snorm) return true;
        for (const auto& c : ch)
            if (c.type == ChannelType::Snorm || c.type == ChannelType::Sint) return true;
        return false;
    }
    // Decoding to 8 bits would lose something (range, sign or precision):
    // such formats decode to RGBA32F and are written as 16-bit PNGs.
    constexpr bool decodes_to_float() const {
        if ((flags & fmtflag::hdr) || is_signed()) return true;
        for (const auto& c : ch)
            if (c.bits > 8 || c.type == ChannelType::Float) return true;
        return false;
    }
};

namespace detail {
using CT = ChannelType;
constexpr Channel c(uint8_t off, uint8_t bits, CT t) { return Channel{off, bits, t}; }
constexpr Channel none{};
constexpr uint16_t A = fmtflag::alpha, S = fmtflag::srgb, L = fmtflag::luminance, D = fmtflag::depth, H = fmtflag::hdr,
                   T = fmtflag::typeless;

#define AF_PLAIN(id, bytes, flags, r, g, b, a)                                                                         \
    FormatInfo {                                                                                                       \
        id, &(#id)[4], Layout::Plain, 1, 1, bytes, flags, { r, g, b, a }                                               \
    }
#define AF_OTHER(id, layout, bw, bh, bytes, flags)                                                                     \
    FormatInfo {                                                                                                       \
        id, &(#id)[4], layout, bw, bh, bytes, flags, { none, none, none, none }                                        \
    }

inline constexpr FormatInfo kFormats[] = {
    AF_PLAIN(FMT_R32G32B32A32_TYPELESS, 16, A | T, c(0, 32, CT::Typeless), c(32, 32, CT::Typeless),
             c(64, 32, CT::Typeless), c(96, 32, CT::Typeless)),
    AF_PLAIN(FMT_R32G32B32A32_FLOAT, 16, A | H, c(0, 32, CT::Float), c(32, 32, CT::Float), c(64, 32, CT::Float),
             c(96, 32, CT::Float)),
    AF_PLAIN(FMT_R32G32B32A32_UINT, 16, A, c(0, 32, CT::Uint), c(32, 32, CT::Uint), c(64, 32, CT::Uint),
             c(96, 32, CT::Uint)),
    AF_PLAIN(FMT_R32G32B32A32_SINT, 16, A, c(0, 32, CT::Sint), c(32, 32, CT::Sint), c(64, 32, CT::Sint),
             c(96, 32, CT::Sint)),
    AF_PLAIN(FMT_R32G32B32_TYPELESS, 12, T, c(0, 32, CT::Typeless), c(32, 32, CT::Typeless), c(64, 32, CT::Typeless),
             none),
    AF_PLAIN(FMT_R32G32B32_FLOAT, 12, H, c(0, 32, CT::Float), c(32, 32, CT::Float), c(64, 32, CT::Float), none),
    AF_PLAIN(FMT_R32G32B32_UINT, 12, 0, c(0, 32, CT::Uint), c(32, 32, CT::Uint), c(64, 32, CT::Uint), none),
    AF_PLAIN(FMT_R32G32B32_SINT, 12, 0, c(0, 32, CT::Sint), c(32, 32, CT::Sint), c(64, 32, CT::Sint), none),
    AF_PLAIN(FMT_R16G16B16A16_TYPELESS, 8, A | T, c(0, 16, CT::Typeless), c(16, 16, CT::Typeless),
             c(32, 16, CT::Typeless), c(48, 16, CT::Typeless)),
    AF_PLAIN(FMT_R16G16B16A16_FLOAT, 8, A | H, c(0, 16, CT::Float), c(16, 16, CT::Float), c(32, 16, CT::Float),
             c(48, 16, CT::Float)),
    AF_PLAIN(FMT_R16G16B16A16_UNORM, 8, A, c(0, 16, CT::Unorm), c(16, 16, CT::Unorm), c(32, 16, CT::Unorm),
             c(48, 16, CT::Unorm)),
    AF_PLAIN(FMT_R16G16B16A16_UINT, 8, A, c(0, 16, CT::Uint), c(16, 16, CT::Uint), c(32, 16, CT::Uint),
             c(48, 16, CT::Uint)),
    AF_PLAIN(FMT_R16G16B16A16_SNORM, 8, A, c(0, 16, CT::Snorm), c(16, 16, CT::Snorm), c(32, 16, CT::Snorm),
             c(48, 16, CT::Snorm)),
    AF_PLAIN(FMT_R16G16B16A16_SINT, 8, A, c(0, 16, CT::Sint), c(16, 16, CT::Sint), c(32, 16, CT::Sint),
             c(48, 16, CT::Sint)),
    AF_PLAIN(FMT_R32G32_TYPELESS, 8, T, c(0, 32, CT::Typeless), c(32, 32, CT::Typeless), none, none),
    AF_PLAIN(FMT_R32G32_FLOAT, 8, H, c(0, 32, CT::Float), c(32, 32, CT::Float), none, none),
    AF_PLAIN(FMT_R32G32_UINT, 8, 0, c(0, 32, CT::Uint), c(32, 32, CT::Uint), none, none),
    AF_PLAIN(FMT_R32G32_SINT, 8, 0, c(0, 32, CT::Sint), c(32, 32, CT::Sint), none, none),
    AF_OTHER(FMT_R32G8X24_TYPELESS, Layout::Special, 1, 1, 8, D | T),
    AF_OTHER(FMT_D32_FLOAT_S8X24_UINT, Layout::Special, 1, 1, 8, D),
    AF_OTHER(FMT_R32_FLOAT_X8X24_TYPELESS, Layout::Special, 1, 1, 8, D),
    AF_OTHER(FMT_X32_TYPELESS_G8X24_UINT, Layout::Special, 1, 1, 8, D),
    AF_PLAIN(FMT_R10G10B10A2_TYPELESS, 4, A | T, c(0, 10, CT::Typeless), c(10, 10, CT::Typeless),
             c(20, 10, CT::Typeless), c(30, 2, CT::Typeless)),
    AF_PLAIN(FMT_R10G10B10A2_UNORM, 4, A, c(0, 10, CT::Unorm), c(10, 10, CT::Unorm), c(20, 10, CT::Unorm),
             c(30, 2, CT::Unorm)),
    AF_PLAIN(FMT_R10G10B10A2_UINT, 4, A, c(0, 10, CT::Uint), c(10, 10, CT::Uint), c(20, 10, CT::Uint),
             c(30, 2, CT::Uint)),
    AF_OTHER(FMT_R11G11B10_FLOAT, Layout::Special, 1, 1, 4, H),
    AF_PLAIN(FMT_R8G8B8A8_TYPELESS, 4, A | T, c(0, 8, CT::Typeless), c(8, 8, CT::Typeless), c(16, 8, CT::Typeless),
             c(24, 8, CT::Typeless)),
    AF_PLAIN(FMT_R8G8B8A8_UNORM, 4, A, c(0, 8, CT::Unorm), c(8, 8, CT::Unorm), c(16, 8, CT::Unorm),
             c(24, 8, CT::Unorm)),
    AF_PLAIN(FMT_R8G8B8A8_UNORM_SRGB, 4, A | S, c(0, 8, CT::Unorm), c(8, 8, CT::Unorm), c(16, 8, CT::Unorm),
             c(24, 8, CT::Unorm)),
    AF_PLAIN(FMT_R8G8B8A8_UINT, 4, A, c(0, 8, CT::Uint), c(8, 8, CT::Uint), c(16, 8, CT::Uint), c(24, 8, CT::Uint)),
    AF_PLAIN(FMT_R8G8B8A8_SNORM, 4, A, c(0, 8, CT::Snorm), c(8, 8, CT::Snorm), c(16, 8, CT::Snorm),
             c(24, 8, CT::Snorm)),
    AF_PLAIN(FMT_R8G8B8A8_SINT, 4, A, c(0, 8, CT::Sint), c(8, 8, CT::Sint), c(16, 8, CT::Sint), c(24, 8, CT::Sint)),
    AF_PLAIN(FMT_R16G16_TYPELESS, 4, T, c(0, 16, CT::Typeless), c(16, 16, CT::Typeless), none, none),
    AF_PLAIN(FMT_R16G16_FLOAT, 4, H, c(0, 16, CT::Float), c(16, 16, CT::Float), none, none),
    AF_PLAIN(FMT_R16G16_UNORM, 4, 0, c(0, 16, CT::Unorm), c(16, 16, CT::Unorm), none, none),
    AF_PLAIN(FMT_R16G16_UINT, 4, 0, c(0, 16, CT::Uint), c(16, 16, CT::Uint), none, none),
    AF_PLAIN(FMT_R16G16_SNORM, 4, 0, c(0, 16, CT::Snorm), c(16, 16, CT::Snorm), none, none),
    AF_PLAIN(FMT_R16G16_SINT, 4, 0, c(0, 16, CT::Sint), c(16, 16, CT::Sint), none, none),
    AF_PLAIN(FMT_R32_TYPELESS, 4, T, c(0, 32, CT::Typeless), none, none, none),
    AF_PLAIN(FMT_D32_FLOAT, 4, D, c(0, 32, CT::Float), none, none, none),
    AF_PLAIN(FMT_R32_FLOAT, 4, H, c(0, 32, CT::Float), none, none, none),
    AF_PLAIN(FMT_R32_UINT, 4, 0, c(0, 32, CT::Uint), none, none, none),
    AF_PLAIN(FMT_R32_SINT, 4, 0, c(0, 32, CT::Sint), none, none, none),
    AF_OTHER(FMT_R24G8_TYPELESS, Layout::Special, 1, 1, 4, D | T),
    AF_PLAIN(FMT_D24_UNORM_S8_UINT, 4, D, c(0, 24, CT::Unorm), c(24, 8, CT::Uint), none, none),
    AF_PLAIN(FMT_R24_UNORM_X8_TYPELESS, 4, D, c(0, 24, CT::Unorm), none, none, none),
    AF_PLAIN(FMT_X24_TYPELESS_G8_UINT, 4, D, none, c(24, 8, CT::Uint), none, none),
    AF_PLAIN(FMT_R8G8_TYPELESS, 2, T, c(0, 8, CT::Typeless), c(8, 8, CT::Typeless), none, none),
    AF_PLAIN(FMT_R8G8_UNORM, 2, 0, c(0, 8, CT::Unorm), c(8, 8, CT::Unorm), none, none),
    AF_PLAIN(FMT_R8G8_UINT, 2, 0, c(0, 8, CT::Uint), c(8, 8, CT::Uint), none, none),
    AF_PLAIN(FMT_R8G8_SNORM, 2, 0, c(0, 8, CT::Snorm), c(8, 8, CT::Snorm), none, none),
    AF_PLAIN(FMT_R8G8_SINT, 2, 0, c(0, 8, CT::Sint), c(8, 8, CT::Sint), none, none),
    AF_PLAIN(FMT_R16_TYPELESS, 2, T, c(0, 16, CT::Typeless), none, none, none),
    AF_PLAIN(FMT_R16_FLOAT, 2, H, c(0, 16, CT::Float), none, none, none),
    AF_PLAIN(FMT_D16_UNORM, 2, D, c(0, 16, CT::Unorm), none, none, none),
    AF_PLAIN(FMT_R16_UNORM, 2, 0, c(0, 16, CT::Unorm), none, none, none),
    AF_PLAIN(FMT_R16_UINT, 2, 0, c(0, 16, CT::Uint), none, none, none),
    AF_PLAIN(FMT_R16_SNORM, 2, 0, c(0, 16, CT::Snorm), none, none, none),
    AF_PLAIN(FMT_R16_SINT, 2, 0, c(0, 16, CT::Sint), none, none, none),
    AF_PLAIN(FMT_R8_TYPELESS, 1, T, c(0, 8, CT::Typeless), none, none, none),
    AF_PLAIN(FMT_R8_UNORM, 1, 0, c(0, 8, CT::Unorm), none, none, none),
    AF_PLAIN(FMT_R8_UINT, 1, 0, c(0, 8, CT::Uint), none, none, none),
    AF_PLAIN(FMT_R8_SNORM, 1, 0, c(0, 8, CT::Snorm), none, none, none),
    AF_PLAIN(FMT_R8_SINT, 1, 0, c(0, 8, CT::Sint), none, none, none),
    AF_PLAIN(FMT_A8_UNORM, 1, A, none, none, none, c(0, 8, CT::Unorm)),
    // R1: 8 texels per byte; expressed as an 8×1 block of one byte.
    AF_OTHER(FMT_R1_UNORM, Layout::Special, 8, 1, 1, 0),
    AF_OTHER(FMT_R9G9B9E5_SHAREDEXP, Layout::Special, 1, 1, 4, H),
    AF_OTHER(FMT_R8G8_B8G8_UNORM, Layout::Packed422, 2, 1, 4, 0),
    AF_OTHER(FMT_G8R8_G8B8_UNORM, Layout::Packed422, 2, 1, 4, 0),
    AF_OTHER(FMT_BC1_TYPELESS, Layout::Block4x4, 4, 4, 8, A | T),
    AF_OTHER(FMT_BC1_UNORM, Layout::Block4x4, 4, 4, 8, A),
    AF_OTHER(FMT_BC1_UNORM_SRGB, Layout::Block4x4, 4, 4, 8, A | S),
    AF_OTHER(FMT_BC2_TYPELESS, Layout::Block4x4, 4, 4, 16, A | T),
    AF_OTHER(FMT_BC2_UNORM, Layout::Block4x4, 4, 4, 16, A),
    AF_OTHER(FMT_BC2_UNORM_SRGB, Layout::Block4x4, 4, 4, 16, A | S),
    AF_OTHER(FMT_BC3_TYPELESS, Layout::Block4x4, 4, 4, 16, A | T),
    AF_OTHER(FMT_BC3_UNORM, Layout::Block4x4, 4, 4, 16, A),
    AF_OTHER(FMT_BC3_UNORM_SRGB, Layout::Block4x4, 4, 4, 16, A | S),
    AF_OTHER(FMT_BC4_TYPELESS, Layout::Block4x4, 4, 4, 8, T),
    AF_OTHER(FMT_BC4_UNORM, Layout::Block4x4, 4, 4, 8, 0),
    AF_OTHER(FMT_BC4_SNORM, Layout::Block4x4, 4, 4, 8, fmtflag::snorm),
    AF_OTHER(FMT_BC5_TYPELESS, Layout::Block4x4, 4, 4, 16, T),
    AF_OTHER(FMT_BC5_UNORM, Layout::Block4x4, 4, 4, 16, 0),
    AF_OTHER(FMT_BC5_SNORM, Layout::Block4x4, 4, 4, 16, fmtflag::snorm),
    AF_PLAIN(FMT_B5G6R5_UNORM, 2, 0, c(11, 5, CT::Unorm), c(5, 6, CT::Unorm), c(0, 5, CT::Unorm), none),
    AF_PLAIN(FMT_B5G5R5A1_UNORM, 2, A, c(10, 5, CT::Unorm), c(5, 5, CT::Unorm), c(0, 5, CT::Unorm),
             c(15, 1, CT::Unorm)),
    AF_PLAIN(FMT_B8G8R8A8_UNORM, 4, A, c(16, 8, CT::Unorm), c(8, 8, CT::Unorm), c(0, 8, CT::Unorm),
             c(24, 8, CT::Unorm)),
    AF_PLAIN(FMT_B8G8R8X8_UNORM, 4, 0, c(16, 8, CT::Unorm), c(8, 8, CT::Unorm), c(0, 8, CT::Unorm), none),
    AF_OTHER(FMT_R10G10B10_XR_BIAS_A2_UNORM, Layout::Special, 1, 1, 4, A | H),
    AF_PLAIN(FMT_B8G8R8A8_TYPELESS, 4, A | T, c(16, 8, CT::Typeless), c(8, 8, CT::Typeless), c(0, 8, CT::Typeless),
             c(24, 8, CT::Typeless)),
    AF_PLAIN(FMT_B8G8R8A8_UNORM_SRGB, 4, A | S, c(16, 8, CT::Unorm), c(8, 8, CT::Unorm), c(0, 8, CT::Unorm),
             c(24, 8, CT::Unorm)),
    AF_PLAIN(FMT_B8G8R8X8_TYPELESS, 4, T, c(16, 8, CT::Typeless), c(8, 8, CT::Typeless), c(0, 8, CT::Typeless), none),
    AF_PLAIN(FMT_B8G8R8X8_UNORM_SRGB, 4, S, c(16, 8, CT::Unorm), c(8, 8, CT::Unorm), c(0, 8, CT::Unorm), none),
    AF_OTHER(FMT_BC6H_TYPELESS, Layout::Block4x4, 4, 4, 16, H | T),
    AF_OTHER(FMT_BC6H_UF16, Layout::Block4x4, 4, 4, 16, H),
    AF_OTHER(FMT_BC6H_SF16, Layout::Block4x4, 4, 4, 16, H | fmtflag::snorm),
    AF_OTHER(FMT_BC7_TYPELESS, Layout::Block4x4, 4, 4, 16, A | T),
    AF_OTHER(FMT_BC7_UNORM, Layout::Block4x4, 4, 4, 16, A),
    AF_OTHER(FMT_BC7_UNORM_SRGB, Layout::Block4x4, 4, 4, 16, A | S),
    AF_OTHER(FMT_YUY2, Layout::Packed422, 2, 1, 4, 0),
    AF_PLAIN(FMT_B4G4R4A4_UNORM, 2, A, c(8, 4, CT::Unorm), c(4, 4, CT::Unorm), c(0, 4, CT::Unorm), c(12, 4, CT::Unorm)),
    AF_OTHER(FMT_P8, Layout::Palette, 1, 1, 1, A),
    AF_PLAIN(FMT_R8G8B8, 3, 0, c(0, 8, CT::Unorm), c(8, 8, CT::Unorm), c(16, 8, CT::Unorm), none),
    AF_PLAIN(FMT_B8G8R8, 3, 0, c(16, 8, CT::Unorm), c(8, 8, CT::Unorm), c(0, 8, CT::Unorm), none),
    AF_PLAIN(FMT_A8B8G8R8, 4, A, c(24, 8, CT::Unorm), c(16, 8, CT::Unorm), c(8, 8, CT::Unorm), c(0, 8, CT::Unorm)),
    AF_PLAIN(FMT_A8R8G8B8, 4, A, c(8, 8, CT::Unorm), c(16, 8, CT::Unorm), c(24, 8, CT::Unorm), c(0, 8, CT::Unorm)),
    AF_PLAIN(FMT_R5G6B5, 2, 0, c(0, 5, CT::Unorm), c(5, 6, CT::Unorm), c(11, 5, CT::Unorm), none),
    AF_PLAIN(FMT_B5G5R5X1, 2, 0, c(10, 5, CT::Unorm), c(5, 5, CT::Unorm), c(0, 5, CT::Unorm), none),
    AF_PLAIN(FMT_L8, 1, L, c(0, 8, CT::Unorm), none, none, none),
    AF_PLAIN(FMT_L8A8, 2, L | A, c(0, 8, CT::Unorm), none, none, c(8, 8, CT::Unorm)),
    AF_PLAIN(FMT_L16, 2, L, c(0, 16, CT::Unorm), none, none, none),
    AF_PLAIN(FMT_L4A4, 1, L | A, c(0, 4, CT::Unorm), none, none, c(4, 4, CT::Unorm)),
    AF_PLAIN(FMT_B4G4R4X4, 2, 0, c(8, 4, CT::Unorm), c(4, 4, CT::Unorm), c(0, 4, CT::Unorm), none),
    AF_PLAIN(FMT_B10G10R10A2, 4, A, c(20, 10, CT::Unorm), c(10, 10, CT::Unorm), c(0, 10, CT::Unorm),
             c(30, 2, CT::Unorm)),
    AF_PLAIN(FMT_B2G3R3, 1, 0, c(5, 3, CT::Unorm), c(2, 3, CT::Unorm), c(0, 2, CT::Unorm), none),
    AF_PLAIN(FMT_B2G3R3A8, 2, A, c(5, 3, CT::Unorm), c(2, 3, CT::Unorm), c(0, 2, CT::Unorm), c(8, 8, CT::Unorm)),
    AF_PLAIN(FMT_R8G8B8X8, 4, 0, c(0, 8, CT::Unorm), c(8, 8, CT::Unorm), c(16, 8, CT::Unorm), none),
    AF_PLAIN(FMT_R8G8B8_BLUESCREEN, 3, A | fmtflag::bluescreen, c(0, 8, CT::Unorm), c(8, 8, CT::Unorm),
             c(16, 8, CT::Unorm), none),
    AF_PLAIN(FMT_B8G8R8_BLUESCREEN, 3, A | fmtflag::bluescreen, c(16, 8, CT::Unorm), c(8, 8, CT::Unorm),
             c(0, 8, CT::Unorm), none),
    AF_PLAIN(FMT_U8V8L8X8, 4, 0, c(0, 8, CT::Snorm), c(8, 8, CT::Snorm), c(16, 8, CT::Unorm), none),
};
#undef AF_PLAIN
#undef AF_OTHER
} // namespace detail

inline constexpr std::span<const FormatInfo> all_formats() { return detail::kFormats; }

// nullptr for ids not in the table.
inline constexpr const FormatInfo* format_info(uint32_t id) {
    for (const auto& f : detail::kFormats)
        if (f.id == id) return &f;
    return nullptr;
}

inline constexpr const FormatInfo* format_by_name(std::string_view name) {
    for (const auto& f : detail::kFormats)
        if (f.name.size() == name.size()) {
            bool eq = true;
            for (size_t i = 0; i < name.size() && eq; ++i) {
                char a = f.name[i], b = name[i];
                if (a >= 'a' && a <= 'z') a = char(a - 32);
                if (b >= 'a' && b <= 'z') b = char(b - 32);
                eq = a == b;
            }
            if (eq) return &f;
        }
    return nullptr;
}

// sRGB twins: the same bytes read as sRGB-encoded or as linear values.
// Converting between twins never changes the stored values, only their tag.
inline constexpr uint32_t kSrgbTwins[][2] = {
    {FMT_BC1_UNORM, FMT_BC1_UNORM_SRGB},           {FMT_BC2_UNORM, FMT_BC2_UNORM_SRGB},
    {FMT_BC3_UNORM, FMT_BC3_UNORM_SRGB},           {FMT_BC7_UNORM, FMT_BC7_UNORM_SRGB},
    {FMT_R8G8B8A8_UNORM, FMT_R8G8B8A8_UNORM_SRGB}, {FMT_B8G8R8A8_UNORM, FMT_B8G8R8A8_UNORM_SRGB},
    {FMT_B8G8R8X8_UNORM, FMT_B8G8R8X8_UNORM_SRGB},
};

// The twin tagged `srgb`, or `id` itself when the format has no such twin
// (BC4/BC5/BC6H, float and integer formats are never sRGB).
inline constexpr uint32_t with_srgb(uint32_t id, bool srgb) {
    for (const auto& t : kSrgbTwins)
        if (id == t[0] || id == t[1]) return t[srgb ? 1 : 0];
    return id;
}

inline constexpr bool has_srgb_twin(uint32_t id) { return with_srgb(id, true) != with_srgb(id, false); }

inline constexpr uint32_t mip_extent(uint32_t size, uint32_t mip) {
    uint32_t v = mip >= 32 ? 0 : size >> mip;
    return v ? v : 1;
}

// Levels of a full chain down to 1×1×1.
inline constexpr uint32_t full_mip_count(uint32_t w, uint32_t h, uint32_t d = 1) {
    uint32_t m = w > h ? w : h;
    m = m > d ? m : d;
    uint32_t n = 1;
    while (m > 1) {
        m >>= 1;
        ++n;
    }
    return n;
}

// Row pitch in bytes (a row of blocks for block formats). 0 for unknown ids.
// 64-bit so hostile dimensions cannot overflow.
inline constexpr uint64_t row_pitch(uint32_t id, uint32_t width) {
    const FormatInfo* f = format_info(id);
    if (!f) return 0;
    uint64_t blocks = (uint64_t(width) + f->block_w - 1) / f->block_w;
    if (blocks == 0) blocks = 1;
    return blocks * f->block_bytes;
}

inline constexpr uint64_t block_rows(uint32_t id, uint32_t height) {
    const FormatInfo* f = format_info(id);
    if (!f) return 0;
    uint64_t rows = (uint64_t(height) + f->block_h - 1) / f->block_h;
    return rows ? rows : 1;
}

// Bytes of one surface (all depth slices). 0 for unknown ids.
inline constexpr uint64_t surface_bytes(uint32_t id, uint32_t w, uint32_t h, uint32_t d = 1) {
    return row_pitch(id, w) * block_rows(id, h) * (d ? d : 1);
}

} // namespace af
