// VTF 7.0–7.5 reader. Image data: for each mip (smallest first) → frame →
// face → depth slice, starting after the thumbnail (7.0–7.2) or where the
// resource directory's high-res entry points (7.3+).
#include "vtf_file.hpp"
#include "vtf_formats.hpp"

#include "assetforge/plugin.hpp"

#include <cstring>

namespace af::xtf {

using sdk::format;
using sdk::invalid;

namespace {

constexpr uint8_t kTagHighRes[3] = {0x30, 0, 0};
constexpr uint8_t kTagLowRes[3] = {0x01, 0, 0};
constexpr uint8_t kNoDataChunk = 0x02;

uint64_t mip_chain_bytes(uint32_t fmt, const VtfHeader& h, uint32_t faces) {
    uint64_t per = 0;
    for (uint32_t m = 0; m < h.mip_count; ++m)
        per += surface_bytes(fmt, mip_extent(h.width, m), mip_extent(h.height, m), mip_extent(h.depth, m));
    return per * faces * h.frames;
}

} // namespace

VtfHeader parse_vtf_header(const uint8_t* data, uint64_t size) {
    if (size < 16)
        invalid(size, format("truncated header: VTF needs at least 16 bytes, file has %llu", (unsigned long long)size));
    if (std::memcmp(data, "VTF\0", 4) != 0)
        invalid(0, format("signature: expected 'VTF\\0', got %02x %02x %02x %02x", data[0], data[1], data[2], data[3]));
    sdk::ByteReader r(data, size);
    VtfHeader h;
    h.version_major = r.u32(4);
    h.version_minor = r.u32(8);
    if (h.version_major != 7) invalid(4, format("version major: expected 7, got %u", h.version_major));
    if (h.version_minor > 5)
        sdk::unsupported(format("VTF version 7.%u (this reader handles 7.0 to 7.5)", h.version_minor));
    h.header_size = r.u32(12);
    const uint32_t fields_end = h.version_minor >= 3 ? 80 : h.version_minor == 2 ? 65 : 63;
    if (h.header_size < fields_end)
        invalid(12, format("header size: expected at least %u for version 7.%u, got %u", fields_end, h.version_minor,
                           h.header_size));
    if (h.header_size > size)
        invalid(12, format("header size %u is past the end of the %llu-byte file", h.header_size,
                           (unsigned long long)size));
    h.width = r.u16(16);
    h.height = r.u16(18);
    h.flags = r.u32(20);
    h.frames = r.u16(24);
    h.start_frame = r.u16(26);
    for (int i = 0; i < 3; ++i) h.reflectivity[i] = r.f32(32 + 4 * i);
    h.bumpmap_scale = r.f32(48);
    h.image_format = int32_t(r.u32(52));
    h.mip_count = r.u8(56);
    h.lowres_format = int32_t(r.u32(57));
    h.lowres_width = r.u8(61);
    h.lowres_height = r.u8(62);
    h.depth = h.version_minor >= 2 ? r.u16(63) : 1;
    if (h.depth == 0) h.depth = 1; // some 7.2 writers leave it 0 for 2-D textures
    if (h.width == 0) invalid(16, "width: expected at least 1, got 0");
    if (h.height == 0) invalid(18, "height: expected at least 1, got 0");
    if (h.frames == 0) invalid(24, "frame count: expected at least 1, got 0");
    if (!af_format_of(h.image_format))
        invalid(52, format("image format: expected a VTF format id 0..26, got %d", h.image_format));
    const uint32_t full = full_mip_count(h.width, h.height, h.depth);
    if (h.mip_count == 0 || h.mip_count > full)
        invalid(56, format("mip count: expected 1..%u for %ux%ux%u, got %u", full, h.width, h.height, h.depth,
                           h.mip_count));
    if (h.version_minor >= 3) {
        const uint32_t n = r.u32(68);
        if (uint64_t(n) * 8 > size - 80)
            invalid(68, format("resource count: %u entries of 8 bytes do not fit in the %llu-byte file", n,
                               (unsigned long long)size));
        r.need(80, uint64_t(n) * 8, "resource directory");
        for (uint32_t i = 0; i < n; ++i) {
            VtfResource e;
            std::memcpy(e.tag, data + 80 + 8 * i, 3);
            e.flags = data[80 + 8 * i + 3];
            e.value = r.u32(80 + 8 * i + 4);
            h.resources.push_back(e);
        }
    }
    return h;
}

VtfLayout vtf_layout(const VtfHeader& h, uint64_t size) {
    VtfLayout L;
    L.format = *af_format_of(h.image_format);
    if (L.format == FMT_P8) sdk::unsupported("P8 VTF files carry no palette");
    const bool thumb = h.lowres_width && h.lowres_height && h.lowres_format >= 0;
    if (thumb && !af_format_of(h.lowres_format))
        invalid(57, format("low-res image format: expected -1 or a VTF format id, got %d", h.lowres_format));
    L.thumbnail_size = thumb ? surface_bytes(*af_format_of(h.lowres_format), h.lowres_width, h.lowres_height) : 0;
    if (h.version_minor < 3) {
        L.thumbnail_offset = h.header_size;
        L.image_offset = L.thumbnail_offset + L.thumbnail_size;
    } else {
        bool found = false;
        for (size_t i = 0; i < h.resources.size(); ++i) {
            const VtfResource& e = h.resources[i];
            if (e.flags & kNoDataChunk) continue;
            if (std::memcmp(e.tag, kTagHighRes, 3) == 0) {
                L.image_offset = e.value;
                found = true;
            } else if (std::memcmp(e.tag, kTagLowRes, 3) == 0) {
                L.thumbnail_offset = e.value;
            }
        }
        if (!found) invalid(68, "resource directory: no high-res image entry (tag 0x30 0 0)");
        if (L.thumbnail_size && L.thumbnail_offset == 0) L.thumbnail_size = 0;
    }
    if (L.thumbnail_size && (L.thumbnail_offset > size || L.thumbnail_size > size - L.thumbnail_offset))
        invalid(L.thumbnail_offset, format("truncated: the %ux%u thumbnail needs %llu bytes at offset %llu, file has "
                                           "%llu bytes",
                                           h.lowres_width, h.lowres_height, (unsigned long long)L.thumbnail_size,
                                           (unsigned long long)L.thumbnail_offset, (unsigned long long)size));
    if (L.image_offset > size)
        invalid(L.image_offset, format("high-res image offset %llu is past the end of the %llu-byte file",
                                       (unsigned long long)L.image_offset, (unsigned long long)size));
    const uint64_t avail = size - L.image_offset;
    // Per-face size first, so hostile counts are refused before multiplying out.
    uint64_t per_face = 0;
    for (uint32_t m = 0; m < h.mip_count; ++m)
        per_face += surface_bytes(L.format, mip_extent(h.width, m), mip_extent(h.height, m), mip_extent(h.depth, m));
    if (per_face > avail || uint64_t(h.frames) * per_face > avail)
        invalid(L.image_offset,
                format("truncated: %u frames of %ux%ux%u %s with %u mips need more than the %llu bytes "
                       "after offset %llu",
                       h.frames, h.width, h.height, h.depth, std::string(vtf_format_name(h.image_format)).c_str(),
                       h.mip_count, (unsigned long long)avail, (unsigned long long)L.image_offset));
    L.faces = 1;
    if (h.flags & vtfflag::envmap) {
        L.faces = 6;
        // 7.1–7.4 cubemaps carry a seventh (spheremap) face unless the start
        // frame is 0xFFFF; files from some tools omit it anyway, so trust the size.
        if (h.version_minor >= 1 && h.version_minor <= 4 && h.start_frame != 0xFFFF &&
            mip_chain_bytes(L.format, h, 7) <= avail)
            L.faces = 7;
    }
    L.faces_kept = std::min(L.faces, 6u);
    L.image_size = mip_chain_bytes(L.format, h, L.faces);
    if (L.image_size > avail)
        invalid(L.image_offset,
                format("truncated: the high-res images need %llu bytes at offset %llu, file has %llu",
                       (unsigned long long)L.image_size, (unsigned long long)L.image_offset, (unsigned long long)size));
    return L;
}

VtfFile read_vtf(const uint8_t* data, uint64_t size, const af_host* host) {
    VtfFile f;
    f.header = parse_vtf_header(data, size);
    f.layout = vtf_layout(f.header, size);
    const VtfHeader& h = f.header;
    const VtfLayout& L = f.layout;
    TextureDesc d;
    d.format = L.format;
    d.width = h.width;
    d.height = h.height;
    d.depth = h.depth;
    d.mips = h.mip_count;
    d.layers = h.frames;
    d.faces = L.faces_kept;
    d.flags = (d.faces == 6 ? AF_TEX_CUBE : 0) | (h.depth > 1 ? AF_TEX_VOLUME : 0);
    if (h.image_format == VTF_DXT1_ONEBITALPHA || (h.flags & (vtfflag::onebitalpha | vtfflag::eightbitalpha)))
        d.alpha_mode = AF_ALPHA_STRAIGHT;
    if (host && host->max_texture_bytes && texture_bytes(d) > host->max_texture_bytes)
        sdk::fail(AF_ERR_NO_MEMORY, AF_NO_OFFSET, "texture exceeds the configured size limit");
    f.image = Texture(d); // bounded by the size check in vtf_layout
    uint64_t off = L.image_offset;
    for (int m = int(h.mip_count) - 1; m >= 0; --m)
        for (uint32_t fr = 0; fr < h.frames; ++fr)
            for (uint32_t face = 0; face < L.faces; ++face) {
                const uint64_t n =
                    surface_bytes(L.format, mip_extent(h.width, m), mip_extent(h.height, m), mip_extent(h.depth, m));
                if (face < L.faces_kept) std::memcpy(f.image.surface(fr, face, uint32_t(m)).data, data + off, n);
                off += n;
            }
    return f;
}

} // namespace af::xtf
