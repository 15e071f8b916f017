#include "xtf_reader.hpp"

#include "block_copy.hpp"
#include "resave_meta.hpp"
#include "vtf_formats.hpp"

#include "assetforge/plugin.hpp"

#include <cstring>

namespace af::xtf {

using sdk::format;
using sdk::invalid;

namespace {

void check_limits(const af_host* host, const TextureDesc& d) {
    if (!host) return;
    const uint32_t biggest = std::max({d.width, d.height, d.depth});
    if (host->max_dimension && biggest > host->max_dimension)
        sdk::fail(AF_ERR_NO_MEMORY, AF_NO_OFFSET,
                  format("texture extent %u exceeds the configured limit %u", biggest, host->max_dimension));
    if (host->max_surfaces && uint64_t(d.layers) * d.faces * d.mips > host->max_surfaces)
        sdk::fail(AF_ERR_NO_MEMORY, AF_NO_OFFSET,
                  format("%u frames x %u faces x %u mips exceeds the configured surface limit %u", d.layers, d.faces,
                         d.mips, host->max_surfaces));
    if (host->max_texture_bytes && texture_bytes(d) > host->max_texture_bytes)
        sdk::fail(AF_ERR_NO_MEMORY, AF_NO_OFFSET,
                  format("texture needs %llu bytes, above the configured limit %llu",
                         (unsigned long long)texture_bytes(d), (unsigned long long)host->max_texture_bytes));
}

// Copies the listed blocks into `tex` (same order), deswizzling uncompressed ones.
void load_blocks(const af_host* host, const uint8_t* data, const std::vector<XtfBlock>& blocks, Texture& tex) {
    const FormatInfo* fi = format_info(tex.desc.format);
    std::vector<BlockCopy> jobs;
    jobs.reserve(blocks.size());
    for (const XtfBlock& blk : blocks) {
        ImageView s = tex.surface(blk.frame, blk.face, blk.mip);
        if (s.size != blk.size) throw std::logic_error("xtf: block size disagrees with the texture layout");
        jobs.push_back({data + blk.offset, s.data, blk.width, blk.height, blk.depth, blk.size,
                        format("frame %u face %u mip %u at offset %llu", blk.frame, blk.face, blk.mip,
                               (unsigned long long)blk.offset)});
    }
    // vtfpp derives the swizzle's bit counts with floor(log2) and scrambles
    // non-power-of-two images; copy_blocks refuses them rather than guess.
    copy_blocks(host, jobs, fi->compressed() ? 0 : fi->block_bytes, false);
}

} // namespace

std::vector<uint8_t> palettes_to_rgba(const std::vector<uint8_t>& bgra) {
    std::vector<uint8_t> out(bgra.size());
    for (size_t i = 0; i + 3 < bgra.size(); i += 4) {
        out[i] = bgra[i + 2];
        out[i + 1] = bgra[i + 1];
        out[i + 2] = bgra[i];
        out[i + 3] = bgra[i + 3];
    }
    return out;
}

Texture expand_palette(const Texture& p8) {
    TextureDesc d = p8.desc;
    d.format = FMT_R8G8B8A8_UNORM;
    Texture out(d);
    out.meta = p8.meta;
    if (p8.palette.size() < size_t(d.layers) * kPaletteBytes)
        sdk::fail(AF_ERR_USAGE, AF_NO_OFFSET, "P8 texture lacks a 256-entry palette per layer");
    for (uint32_t l = 0; l < d.layers; ++l) {
        const uint8_t* pal = p8.palette.data() + size_t(l) * kPaletteBytes;
        for (uint32_t f = 0; f < d.faces; ++f)
            for (uint32_t m = 0; m < d.mips; ++m) {
                ImageView src = p8.surface(l, f, m), dst = out.surface(l, f, m);
                for (uint64_t i = 0; i < src.size; ++i) std::memcpy(dst.data + i * 4, pal + src.data[i] * 4, 4);
            }
    }
    return out;
}

XtfFile read_xtf(const uint8_t* data, uint64_t size, const af_host* host) {
    XtfFile f;
    f.header = parse_xtf_header(data, size);
    const XtfHeader& h = f.header;
    f.layout = xtf_layout(h, size);
    const XtfLayout& L = f.layout;

    f.lowres.assign(data + L.lowres_offset, data + L.lowres_offset + L.lowres_size);
    f.palettes.assign(data + L.palette_offset, data + L.palette_offset + L.palette_size);

    TextureDesc d;
    d.format = L.format;
    d.width = h.width;
    d.height = h.height;
    d.depth = h.depth;
    d.mips = L.mips;
    d.layers = h.frames;
    d.faces = L.faces;
    d.flags = (L.faces == 6 ? AF_TEX_CUBE : 0) | (h.depth > 1 ? AF_TEX_VOLUME : 0);
    if (h.image_format == VTF_DXT1_ONEBITALPHA || (h.flags & (vtfflag::onebitalpha | vtfflag::eightbitalpha)))
        d.alpha_mode = AF_ALPHA_STRAIGHT;
    // The layout check above proved every block lies inside the file, so these
    // allocations are bounded by the file size.
    check_limits(host, d);
    f.image = Texture(d);
    load_blocks(host, data, L.image, f.image);

    if (L.fallback_mips) {
        TextureDesc fd = d;
        fd.width = h.fallback_width;
        fd.height = h.fallback_height;
        fd.depth = 1;
        fd.mips = L.fallback_mips;
        fd.flags &= ~AF_TEX_VOLUME;
        f.fallback = Texture(fd);
        load_blocks(host, data, L.fallback, f.fallback);
    }
    if (h.image_format == VTF_P8) {
        f.image.palette = palettes_to_rgba(f.palettes);
        if (L.fallback_mips) f.fallback.palette = f.image.palette;
    }
    return f;
}

Texture xtf_output_texture(XtfFile&& file, bool keep_indices, bool fallback) {
    if (fallback && file.fallback.desc.width == 0) sdk::usage("this XTF file has no fallback image");
    if (fallback) {
        Texture t = std::move(file.fallback);
        return t.desc.format == FMT_P8 && !keep_indices ? expand_palette(t) : t;
    }
    Texture t = file.image.desc.format == FMT_P8 && !keep_indices ? expand_palette(file.image) : std::move(file.image);
    t.meta = resave_meta(file, t);
    return t;
}

} // namespace af::xtf
