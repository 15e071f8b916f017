#include "dds_format.hpp"

#include "assetforge/bytes.hpp"
#include "assetforge/plugin.hpp"

namespace af::dds {

using sdk::format;

RawHeader parse_raw_header(const uint8_t* data, uint64_t size) {
    sdk::ByteReader r(data, size);
    if (size < 4)
        sdk::invalid(size, format("not a DDS file: %llu bytes, too short for the magic", (unsigned long long)size));
    if (r.u32(off::magic) != kMagic)
        sdk::invalid(0, format("not a DDS file: magic is 0x%08x, expected 0x%08x (\"DDS \")", r.u32(0), kMagic));
    if (size < kLegacyDataOffset)
        sdk::invalid(size, format("truncated header: DDS_HEADER needs %llu bytes, file has %llu",
                                  (unsigned long long)kLegacyDataOffset, (unsigned long long)size));
    RawHeader h;
    h.size = r.u32(off::size);
    h.flags = r.u32(off::flags);
    h.height = r.u32(off::height);
    h.width = r.u32(off::width);
    h.pitch_or_linear_size = r.u32(off::pitch);
    h.depth = r.u32(off::depth);
    h.mip_count = r.u32(off::mips);
    h.pf.size = r.u32(off::pf_size);
    h.pf.flags = r.u32(off::pf_flags);
    h.pf.fourcc = r.u32(off::pf_fourcc);
    h.pf.bit_count = r.u32(off::pf_bits);
    h.pf.r_mask = r.u32(off::pf_rmask);
    h.pf.g_mask = r.u32(off::pf_gmask);
    h.pf.b_mask = r.u32(off::pf_bmask);
    h.pf.a_mask = r.u32(off::pf_amask);
    h.caps = r.u32(off::caps);
    h.caps2 = r.u32(off::caps2);
    h.caps3 = r.u32(off::caps2 + 4);
    h.caps4 = r.u32(off::caps2 + 8);
    if ((h.pf.flags & pfflag::fourcc) && h.pf.fourcc == kFourccDx10) {
        if (size < kDx10DataOffset)
            sdk::invalid(
                size,
                format("truncated header: FourCC 'DX10' needs the DDS_HEADER_DXT10 up to byte %llu, file has %llu",
                       (unsigned long long)kDx10DataOffset, (unsigned long long)size));
        Dx10Header x;
        x.dxgi_format = r.u32(off::dxgi_format);
        x.dimension = r.u32(off::dimension);
        x.misc_flag = r.u32(off::misc_flag);
        x.array_size = r.u32(off::array_size);
        x.misc_flags2 = r.u32(off::misc_flags2);
        h.dx10 = x;
    }
    return h;
}

std::string fourcc_text(uint32_t code) {
    char c[4] = {char(code & 0xff), char(code >> 8 & 0xff), char(code >> 16 & 0xff), char(code >> 24 & 0xff)};
    bool printable = true;
    for (char x : c) printable = printable && x >= 0x20 && x < 0x7f;
    if (printable) return std::string(c, 4);
    return format("0x%08x (%u)", code, code);
}

} // namespace af::dds
