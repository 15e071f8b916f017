#include "dds_pixel_format.hpp"

#include "assetforge/formats.hpp"
#include "assetforge/plugin.hpp"

#include <array>

namespace af::dds {

using sdk::format;

namespace {

// Legacy codes that exist but name a layout the format table lacks.
struct KnownUnsupported {
    uint32_t code;
    const char* name;
};
constexpr KnownUnsupported kUnsupportedFourccs[] = {
    {fourcc('U', 'Y', 'V', 'Y'), "D3DFMT_UYVY"},
    {117, "D3DFMT_CxV8U8"},
    {fourcc('D', 'X', 'T', 'A'), "DXTA"},
};

struct NameEntry {
    uint32_t format;
    const char* name;
};
constexpr NameEntry kD3dNames[] = {
    {FMT_B8G8R8A8_UNORM, "D3DFMT_A8R8G8B8"},
    {FMT_B8G8R8X8_UNORM, "D3DFMT_X8R8G8B8"},
    {FMT_R8G8B8A8_UNORM, "D3DFMT_A8B8G8R8"},
    {FMT_R8G8B8X8, "D3DFMT_X8B8G8R8"},
    {FMT_R16G16_UNORM, "D3DFMT_G16R16"},
    {FMT_R10G10B10A2_UNORM, "D3DFMT_A2B10G10R10"},
    {FMT_B10G10R10A2, "D3DFMT_A2R10G10B10"},
    {FMT_B8G8R8, "D3DFMT_R8G8B8"},
    {FMT_B5G6R5_UNORM, "D3DFMT_R5G6B5"},
    {FMT_B5G5R5A1_UNORM, "D3DFMT_A1R5G5B5"},
    {FMT_B5G5R5X1, "D3DFMT_X1R5G5B5"},
    {FMT_B4G4R4A4_UNORM, "D3DFMT_A4R4G4B4"},
    {FMT_B4G4R4X4, "D3DFMT_X4R4G4B4"},
    {FMT_B2G3R3, "D3DFMT_R3G3B2"},
    {FMT_B2G3R3A8, "D3DFMT_A8R3G3B2"},
    {FMT_L8, "D3DFMT_L8"},
    {FMT_L16, "D3DFMT_L16"},
    {FMT_L8A8, "D3DFMT_A8L8"},
    {FMT_L4A4, "D3DFMT_A4L4"},
    {FMT_A8_UNORM, "D3DFMT_A8"},
    {FMT_R8G8_SNORM, "D3DFMT_V8U8"},
    {FMT_R8G8B8A8_SNORM, "D3DFMT_Q8W8V8U8"},
    {FMT_R16G16_SNORM, "D3DFMT_V16U16"},
    {FMT_R16G16B16A16_UNORM, "D3DFMT_A16B16G16R16"},
    {FMT_R16G16B16A16_SNORM, "D3DFMT_Q16W16V16U16"},
    {FMT_R16_FLOAT, "D3DFMT_R16F"},
    {FMT_R16G16_FLOAT, "D3DFMT_G16R16F"},
    {FMT_R16G16B16A16_FLOAT, "D3DFMT_A16B16G16R16F"},
    {FMT_R32_FLOAT, "D3DFMT_R32F"},
    {FMT_R32G32_FLOAT, "D3DFMT_G32R32F"},
    {FMT_R32G32B32A32_FLOAT, "D3DFMT_A32B32G32R32F"},
    {FMT_BC1_UNORM, "D3DFMT_DXT1"},
    {FMT_BC2_UNORM, "D3DFMT_DXT3"},
    {FMT_BC3_UNORM, "D3DFMT_DXT5"},
    {FMT_R8G8_B8G8_UNORM, "D3DFMT_R8G8_B8G8"},
    {FMT_G8R8_G8B8_UNORM, "D3DFMT_G8R8_G8B8"},
    {FMT_YUY2, "D3DFMT_YUY2"},
};

// Uncompressed layouts are described by masks. Three families never mix:
// colour/alpha (RGB, ALPHA, ALPHAPIXELS flags), luminance, and signed bump (du/dv).
enum class MaskFamily { Colour, Luminance, Bump };

constexpr uint32_t channel_mask(const Channel& c) {
    if (c.type == ChannelType::None || c.bits == 0) return 0;
    uint32_t m = c.bits >= 32 ? 0xffffffffu : (1u << c.bits) - 1u;
    return m << c.offset;
}

struct Masks {
    uint32_t bits, r, g, b, a;
    bool operator==(const Masks&) const = default;
};

// The masks that describe `f` in `family`, when the format is expressible that way.
std::optional<Masks> masks_of(const FormatInfo& f, MaskFamily family) {
    if (f.layout != Layout::Plain || f.block_bytes > 4) return std::nullopt;
    if (f.flags & (fmtflag::srgb | fmtflag::typeless | fmtflag::depth | fmtflag::bluescreen)) return std::nullopt;
    bool lum = f.flags & fmtflag::luminance;
    if (lum != (family == MaskFamily::Luminance)) return std::nullopt;
    ChannelType want = family == MaskFamily::Bump ? ChannelType::Snorm : ChannelType::Unorm;
    for (const auto& c : f.ch)
        if (c.type != ChannelType::None && c.type != want) return std::nullopt;
    for (const auto& c : f.ch)
        if (c.type != ChannelType::None && c.offset + c.bits > 32) return std::nullopt;
    return Masks{f.block_bytes * 8u, channel_mask(f.ch[0]), channel_mask(f.ch[1]), channel_mask(f.ch[2]),
                 channel_mask(f.ch[3])};
}

std::optional<uint32_t> match_masks(const Masks& m, MaskFamily family) {
    // DXGI ids come first in the table, so a layout DXGI has wins over an
    // AssetForge alias of it.
    for (const auto& f : all_formats()) {
        auto fm = masks_of(f, family);
        if (fm && *fm == m) return f.id;
    }
    return std::nullopt;
}

std::string masks_text(const PixelFormat& pf) {
    return format("%u-bit masks R=0x%08x G=0x%08x B=0x%08x A=0x%08x", pf.bit_count, pf.r_mask, pf.g_mask, pf.b_mask,
                  pf.a_mask);
}

} // namespace

std::string d3dfmt_name(uint32_t fmt) {
    for (const auto& e : kD3dNames)
        if (e.format == fmt) return e.name;
    return "";
}

LegacyFormat format_from_pixel_format(const PixelFormat& pf) {
    if (pf.flags & pfflag::fourcc) {
        if (const FourccEntry* e = fourcc_entry(pf.fourcc))
            return {e->format, e->premultiplied ? AF_ALPHA_PREMULTIPLIED : AF_ALPHA_UNKNOWN,
                    "FourCC '" + fourcc_text(pf.fourcc) + "'"};
        for (const auto& e : kUnsupportedFourccs)
            if (e.code == pf.fourcc)
                throw sdk::Error(AF_ERR_UNSUPPORTED,
                                 format("unsupported: FourCC %s (%s) at offset %llu has no format-table equivalent",
                                        fourcc_text(pf.fourcc).c_str(), e.name, (unsigned long long)off::pf_fourcc),
                                 off::pf_fourcc);
        throw sdk::Error(AF_ERR_UNSUPPORTED,
                         format("unsupported: unknown FourCC '%s' in the pixel format at offset %llu",
                                fourcc_text(pf.fourcc).c_str(), (unsigned long long)off::pf_fourcc),
                         off::pf_fourcc);
    }
    if (pf.flags & pfflag::palette8)
        throw sdk::Error(AF_ERR_UNSUPPORTED, "unsupported: palettized DDS (DDPF_PALETTEINDEXED8)", off::pf_flags);
    if (pf.flags & pfflag::yuv)
        throw sdk::Error(AF_ERR_UNSUPPORTED, "unsupported: DDPF_YUV pixel format without a FourCC", off::pf_flags);
    if (pf.flags & pfflag::bumpluminance)
        throw sdk::Error(AF_ERR_UNSUPPORTED, "unsupported: DDPF_BUMPLUMINANCE (X8L8V8U8, L6V5U5)", off::pf_flags);

    MaskFamily family = MaskFamily::Colour;
    if (pf.flags & pfflag::luminance)
        family = MaskFamily::Luminance;
    else if (pf.flags & pfflag::bumpdudv)
        family = MaskFamily::Bump;
    else if (!(pf.flags & (pfflag::rgb | pfflag::alpha | pfflag::alphapixels)) && pf.bit_count == 0)
        sdk::invalid(off::pf_flags, format("pixel format flags 0x%08x at offset %llu name neither a FourCC nor a "
                                           "mask layout",
                                           pf.flags, (unsigned long long)off::pf_flags));
    if (pf.bit_count == 0 || pf.bit_count > 32 || pf.bit_count % 8)
        sdk::invalid(off::pf_bits, format("pixel format bit count %u at offset %llu is not 8, 16, 24 or 32",
                                          pf.bit_count, (unsigned long long)off::pf_bits));

    Masks m{pf.bit_count, pf.r_mask, pf.g_mask, pf.b_mask, pf.a_mask};
    auto id = match_masks(m, family);
    // Writers disagree on whether an unused alpha mask is zeroed when
    // DDPF_ALPHAPIXELS is clear; the flag decides.
    if (!id && family != MaskFamily::Bump && !(pf.flags & (pfflag::alphapixels | pfflag::alpha)) && m.a) {
        m.a = 0;
        id = match_masks(m, family);
    }
    if (!id)
        throw sdk::Error(AF_ERR_UNSUPPORTED,
                         format("unsupported: %s pixel format with %s (offset %llu) matches no known format",
                                family == MaskFamily::Luminance ? "luminance"
                                : family == MaskFamily::Bump    ? "bump (du/dv)"
                                                                : "RGB",
                                masks_text(pf).c_str(), (unsigned long long)off::pf_bits),
                         off::pf_bits);
    std::string name = d3dfmt_name(*id);
    return {*id, AF_ALPHA_UNKNOWN, (name.empty() ? std::string("legacy") : name) + " (" + masks_text(pf) + ")"};
}

std::optional<PixelFormat> legacy_pixel_format(uint32_t fmt, bool premultiplied) {
    PixelFormat pf;
    for (const auto& e : kFourccs)
        if (e.format == fmt && (e.premultiplied == premultiplied || (fmt != FMT_BC2_UNORM && fmt != FMT_BC3_UNORM))) {
            pf.flags = pfflag::fourcc;
            pf.fourcc = e.code;
            return pf;
        }
    const FormatInfo* f = format_info(fmt);
    if (!f) return std::nullopt;
    for (MaskFamily family : {MaskFamily::Colour, MaskFamily::Luminance, MaskFamily::Bump}) {
        auto m = masks_of(*f, family);
        if (!m) continue;
        pf.bit_count = m->bits;
        pf.r_mask = m->r;
        pf.g_mask = m->g;
        pf.b_mask = m->b;
        pf.a_mask = m->a;
        if (family == MaskFamily::Luminance)
            pf.flags = pfflag::luminance | (m->a ? pfflag::alphapixels : 0);
        else if (family == MaskFamily::Bump)
            pf.flags = pfflag::bumpdudv;
        else if (!m->r && !m->g && !m->b)
            pf.flags = pfflag::alpha;
        else
            pf.flags = pfflag::rgb | (m->a ? pfflag::alphapixels : 0);
        return pf;
    }
    return std::nullopt;
}

bool legacy_preferred(uint32_t fmt) {
    switch (fmt) {
    case FMT_BC1_UNORM:
    case FMT_BC2_UNORM:
    case FMT_BC3_UNORM:
    case FMT_BC4_UNORM:
    case FMT_BC5_UNORM:
    case FMT_R8G8_B8G8_UNORM:
    case FMT_G8R8_G8B8_UNORM:
    case FMT_YUY2:
        return true;
    case FMT_R8_UNORM:
    case FMT_R8G8_UNORM:
    case FMT_R16_UNORM:
    case FMT_R10G10B10A2_UNORM:
        return false;
    default:
        break;
    }
    const FormatInfo* f = format_info(fmt);
    if (!f) return false;
    if (fmt >= FMT_AF_BASE) return legacy_pixel_format(fmt, false).has_value();
    return masks_of(*f, MaskFamily::Colour).has_value();
}

} // namespace af::dds
