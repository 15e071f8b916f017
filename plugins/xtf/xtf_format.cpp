#include "xtf_format.hpp"

#include "vtf_formats.hpp"

#include "assetforge/bytes.hpp"
#include "assetforge/formats.hpp"
#include "assetforge/plugin.hpp"

#include <cstring>

namespace af::xtf {

using sdk::format;
using sdk::invalid;

namespace {

uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// Bytes of every mip of one face, largest first.
std::vector<uint64_t> mip_sizes(uint32_t fmt, uint32_t w, uint32_t h, uint32_t d, uint32_t mips) {
    std::vector<uint64_t> s(mips);
    for (uint32_t m = 0; m < mips; ++m) s[m] = surface_bytes(fmt, mip_extent(w, m), mip_extent(h, m), mip_extent(d, m));
    return s;
}

uint64_t fallback_bytes(const XtfHeader& h, uint32_t fmt, uint32_t faces, uint32_t mips) {
    uint64_t per_face = 0;
    for (uint64_t s : mip_sizes(fmt, h.fallback_width, h.fallback_height, 1, mips)) per_face += s;
    return per_face * faces * h.frames;
}

} // namespace

bool xtf_has_fallback(const XtfHeader& h) { return h.fallback_width > 0 && h.fallback_height > 0; }
uint32_t xtf_face_count(const XtfHeader& h) { return (h.flags & vtfflag::envmap) ? 6 : 1; }

XtfHeader parse_xtf_header(const uint8_t* data, uint64_t size) {
    if (size < kXtfHeaderSize)
        invalid(size, format("truncated header: XTF needs %u header bytes, file has %llu", kXtfHeaderSize,
                             (unsigned long long)size));
    sdk::ByteReader r(data, size);
    if (std::memcmp(data, "XTF\0", 4) != 0)
        invalid(xtfoff::signature,
                format("signature: expected 'XTF\\0', got %02x %02x %02x %02x", data[0], data[1], data[2], data[3]));
    XtfHeader h;
    h.version_major = r.u32(xtfoff::version_major);
    if (h.version_major != kXtfPlatformXbox)
        invalid(xtfoff::version_major, format("version major (platform): expected 5, got %u", h.version_major));
    h.version_minor = r.u32(xtfoff::version_minor);
    if (h.version_minor != 0)
        invalid(xtfoff::version_minor, format("version minor: expected 0, got %u", h.version_minor));
    h.header_size = r.u32(xtfoff::header_size);
    if (h.header_size != kXtfHeaderSize)
        invalid(xtfoff::header_size, format("header size: expected 58, got %u", h.header_size));
    h.flags = r.u32(xtfoff::flags);
    h.width = r.u16(xtfoff::width);
    h.height = r.u16(xtfoff::height);
    h.depth = r.u16(xtfoff::depth);
    h.frames = r.u16(xtfoff::frames);
    h.preload_size = r.u16(xtfoff::preload_size);
    h.image_offset = r.u16(xtfoff::image_offset);
    for (int i = 0; i < 3; ++i) h.reflectivity[i] = r.f32(xtfoff::reflectivity + 4 * i);
    h.bumpmap_scale = r.f32(xtfoff::bumpmap_scale);
    h.image_format = int32_t(r.u32(xtfoff::image_format));
    h.lowres_width = data[xtfoff::lowres_width];
    h.lowres_height = data[xtfoff::lowres_height];
    h.fallback_width = data[xtfoff::fallback_width];
    h.fallback_height = data[xtfoff::fallback_height];
    h.mip_skip = data[xtfoff::mip_skip];
    h.padding = data[xtfoff::padding];
    if (h.width == 0) invalid(xtfoff::width, "width: expected at least 1, got 0");
    if (h.height == 0) invalid(xtfoff::height, "height: expected at least 1, got 0");
    if (h.depth == 0) invalid(xtfoff::depth, "depth: expected at least 1, got 0");
    if (h.frames == 0) invalid(xtfoff::frames, "frame count: expected at least 1, got 0");
    if (!af_format_of(h.image_format))
        invalid(xtfoff::image_format, format("image format: expected a VTF format id 0..26, got %d", h.image_format));
    return h;
}

void serialize_xtf_header(const XtfHeader& h, uint8_t out[kXtfHeaderSize]) {
    // Field after field, in xtfoff order; zeros up to the header size.
    sdk::ByteWriter w(kXtfHeaderSize);
    w.append("XTF\0", 4);
    w.u32(h.version_major);
    w.u32(h.version_minor);
    w.u32(h.header_size);
    w.u32(h.flags);
    w.u16(h.width);
    w.u16(h.height);
    w.u16(h.depth);
    w.u16(h.frames);
    w.u16(h.preload_size);
    w.u16(h.image_offset);
    for (int i = 0; i < 3; ++i) w.f32(h.reflectivity[i]);
    w.f32(h.bumpmap_scale);
    w.u32(uint32_t(h.image_format));
    w.u8(h.lowres_width);
    w.u8(h.lowres_height);
    w.u8(h.fallback_width);
    w.u8(h.fallback_height);
    w.u8(h.mip_skip);
    w.u8(h.padding);
    w.fill(0, kXtfHeaderSize - w.size());
    std::memcpy(out, w.data(), kXtfHeaderSize);
}

void xtf_writer_offsets(const XtfHeader& h, uint64_t& preload_end, uint64_t& image_offset) {
    const uint32_t fmt = *af_format_of(h.image_format);
    const bool nomip = h.flags & vtfflag::nomip;
    uint64_t off = kXtfHeaderSize;
    if (h.lowres_width && h.lowres_height) off += uint64_t(h.lowres_width) * h.lowres_height * 3;
    if (h.image_format == VTF_P8) off += uint64_t(kPaletteBytes) * h.frames;
    if (xtf_has_fallback(h))
        off +=
            fallback_bytes(h, fmt, xtf_face_count(h), nomip ? 1 : full_mip_count(h.fallback_width, h.fallback_height));
    preload_end = off;
    image_offset = xtf_has_fallback(h) ? round_up(off, kSector) : off;
}

namespace {

// The fallback's mips and size, with the spec §11 repair: shipped files that
// hold one mip but lack NOMIP are recognised by their preload size.
void size_fallback(const XtfHeader& h, bool nomip, XtfLayout& L) {
    L.fallback_mips = nomip ? 1 : full_mip_count(h.fallback_width, h.fallback_height);
    L.fallback_size = fallback_bytes(h, L.format, L.faces, L.fallback_mips);
    const uint64_t full_end = L.fallback_offset + L.fallback_size;
    if (full_end == h.preload_size) return;
    const uint64_t one_end = L.fallback_offset + fallback_bytes(h, L.format, L.faces, 1);
    if (nomip || one_end != h.preload_size)
        invalid(xtfoff::preload_size,
                nomip ? format("preload size: expected %llu (end of the fallback), got %u",
                               (unsigned long long)full_end, h.preload_size)
                      : format("preload size: expected %llu (end of a fallback with %u mips) or %llu "
                               "(single-mip file without NOMIP), got %u",
                               (unsigned long long)full_end, L.fallback_mips, (unsigned long long)one_end,
                               h.preload_size));
    L.nomip_repaired = true;
    L.mips = 1;
    L.fallback_mips = 1;
    L.fallback_size = one_end - L.fallback_offset;
}

// Fallback blocks: frame → face → mip, packed.
void list_fallback_blocks(const XtfHeader& h, XtfLayout& L) {
    uint64_t off = L.fallback_offset;
    const auto fs = mip_sizes(L.format, h.fallback_width, h.fallback_height, 1, L.fallback_mips);
    for (uint32_t f = 0; f < h.frames; ++f)
        for (uint32_t face = 0; face < L.faces; ++face)
            for (uint32_t m = 0; m < L.fallback_mips; ++m) {
                L.fallback.push_back(
                    {f, face, m, mip_extent(h.fallback_width, m), mip_extent(h.fallback_height, m), 1, off, fs[m]});
                off += fs[m];
            }
}

// High-res: frame → face → mip; a frame after which more than 512 bytes of
// the block have been written is padded to the next multiple of 512. Every
// block is checked against the file size, listed only when `blocks`.
void place_image(const XtfHeader& h, uint64_t file_size, bool blocks, XtfLayout& L) {
    const auto ms = mip_sizes(L.format, h.width, h.height, h.depth, L.mips);
    uint64_t rel = 0;
    for (uint32_t f = 0; f < h.frames; ++f) {
        for (uint32_t face = 0; face < L.faces; ++face)
            for (uint32_t m = 0; m < L.mips; ++m) {
                const uint64_t off = L.image_offset + rel;
                if (off > file_size || ms[m] > file_size - off)
                    invalid(off,
                            format("truncated: frame %u face %u mip %u (%ux%ux%u) needs %llu bytes at offset "
                                   "%llu, file has %llu bytes",
                                   f, face, m, mip_extent(h.width, m), mip_extent(h.height, m), mip_extent(h.depth, m),
                                   (unsigned long long)ms[m], (unsigned long long)off, (unsigned long long)file_size));
                if (blocks)
                    L.image.push_back({f, face, m, mip_extent(h.width, m), mip_extent(h.height, m),
                                       mip_extent(h.depth, m), off, ms[m]});
                rel += ms[m];
            }
        if (f + 1 < h.frames && rel > kSector) rel = round_up(rel, kSector);
    }
    L.image_size = rel;
    L.end_of_data = L.image_offset + rel;
    L.file_size = L.end_of_data > kSector ? round_up(L.end_of_data, kSector) : L.end_of_data;
}

} // namespace

XtfLayout xtf_layout(const XtfHeader& h, uint64_t file_size, bool blocks) {
    XtfLayout L;
    L.format = *af_format_of(h.image_format);
    L.faces = xtf_face_count(h);
    const bool nomip = h.flags & vtfflag::nomip;
    L.mips = nomip ? 1 : full_mip_count(h.width, h.height, h.depth);

    L.lowres_offset = kXtfHeaderSize;
    L.lowres_size = (h.lowres_width && h.lowres_height) ? uint64_t(h.lowres_width) * h.lowres_height * 3 : 0;
    L.palette_offset = L.lowres_offset + L.lowres_size;
    L.palette_size = h.image_format == VTF_P8 ? uint64_t(kPaletteBytes) * h.frames : 0;
    L.fallback_offset = L.palette_offset + L.palette_size;
    if (xtf_has_fallback(h)) size_fallback(h, nomip, L);
    L.preload_end = L.fallback_offset + L.fallback_size;
    if (L.preload_end > file_size)
        invalid(file_size, format("truncated: the header's low-res image, palettes and fallback end at %llu, file "
                                  "has %llu bytes",
                                  (unsigned long long)L.preload_end, (unsigned long long)file_size));
    if (h.image_offset < L.preload_end)
        invalid(xtfoff::image_offset, format("image offset: expected at least %llu (end of the preload data), got %u",
                                             (unsigned long long)L.preload_end, h.image_offset));
    L.image_offset = h.image_offset;

    if (blocks && L.fallback_size) list_fallback_blocks(h, L);
    place_image(h, file_size, blocks, L);
    return L;
}

} // namespace af::xtf
