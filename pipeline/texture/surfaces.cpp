#include "texture/levels.hpp"
#include "texture/texture_ops.hpp"

#include "assetforge/plugin.hpp"
#include "core/pixel_convert.hpp"
#include "host/host_services.hpp"
#include "host/texture_io.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace af::texture {

namespace {
thread_local ReadCount* g_reads = nullptr; // the innermost counter alive on this thread
} // namespace

ReadCount::ReadCount() : outer_(g_reads) { g_reads = this; }
ReadCount::~ReadCount() { g_reads = outer_; }

size_t ReadCount::decodes(uint32_t format) const {
    auto it = decodes_.find(format);
    return it == decodes_.end() ? 0 : it->second;
}

size_t ReadCount::decodes() const {
    size_t n = 0;
    for (const auto& [format, count] : decodes_) n += count;
    return n;
}

void count_decode(uint32_t format) {
    if (g_reads) ++g_reads->decodes_[format];
}

void count_analysis() {
    if (g_reads) ++g_reads->analyses_;
}

uint32_t image_format(const Texture& img) {
    if (is_float(img)) return FMT_R32G32B32A32_FLOAT;
    return is_srgb(img.desc) ? FMT_R8G8B8A8_UNORM_SRGB : FMT_R8G8B8A8_UNORM;
}

Texture surface_image(Ops& ops, const Texture& t, uint32_t layer, uint32_t face, uint32_t mip) {
    const FormatInfo* f = format_info(t.desc.format);
    if (!f) sdk::unsupported("format id " + std::to_string(t.desc.format));
    if (f->compressed()) ops.use(ops.reg.codec_for(t.desc.format).plugin);
    count_decode(t.desc.format);
    return host::decode_surface(ops.reg, t, layer, face, mip);
}

Texture surface_rows(Ops& ops, const Texture& t, uint32_t layer, uint32_t face, uint32_t mip, uint32_t y0,
                     uint32_t rows) {
    const FormatInfo* f = format_info(t.desc.format);
    if (!f) sdk::unsupported("format id " + std::to_string(t.desc.format));
    const ImageView s = t.surface(layer, face, mip);
    if (s.depth > 1 || (y0 == 0 && rows >= s.height)) {
        if (y0 != 0 || rows < s.height * s.depth) throw std::logic_error("a volume's rows are decoded whole");
        return surface_image(ops, t, layer, face, mip);
    }
    if (y0 % f->block_h || y0 >= s.height || rows == 0 || (rows % f->block_h && y0 + rows < s.height))
        throw std::logic_error("rows of a surface must start and end at block rows");
    rows = std::min(rows, s.height - y0);
    TextureDesc d = t.desc;
    d.width = s.width;
    d.height = rows;
    d.depth = 1;
    d.mips = d.layers = d.faces = 1;
    d.flags &= ~AF_TEX_CUBE;
    Texture band(d);
    const uint64_t pitch = row_pitch(t.desc.format, s.width);
    std::memcpy(band.data.data(), s.data + pitch * (y0 / f->block_h), band.data.size());
    if (!t.palette.empty())
        band.palette.assign(t.palette.begin() + size_t(layer) * 1024, t.palette.begin() + size_t(layer + 1) * 1024);
    return surface_image(ops, band, 0, 0, 0);
}

Texture single_surface(const Texture& t, uint32_t layer, uint32_t face, uint32_t mip) {
    auto range = [](const char* what, uint32_t v, uint32_t n) {
        if (v >= n) sdk::usage(sdk::format("%s %u is out of range: the texture has %u", what, v, n));
    };
    range("layer", layer, t.desc.layers);
    range("face", face, t.desc.faces);
    range("mip", mip, t.desc.mips);
    TextureDesc d = t.desc;
    ImageView s = t.surface(layer, face, mip);
    d.width = s.width;
    d.height = s.height;
    d.depth = s.depth;
    d.mips = d.layers = d.faces = 1;
    d.flags &= ~AF_TEX_CUBE;
    Texture out(d);
    out.meta = t.meta;
    std::memcpy(out.data.data(), s.data, s.size);
    if (!t.palette.empty())
        out.palette.assign(t.palette.begin() + size_t(layer) * 1024, t.palette.begin() + size_t(layer + 1) * 1024);
    return out;
}

Texture first_levels(const Texture& t, uint32_t n) {
    TextureDesc d = t.desc;
    d.mips = n;
    Texture out(d);
    out.meta = t.meta;
    out.palette = t.palette;
    for (uint32_t l = 0; l < d.layers; ++l)
        for (uint32_t f = 0; f < d.faces; ++f)
            for (uint32_t m = 0; m < n; ++m) {
                ImageView s = t.surface(l, f, m);
                std::memcpy(out.surface(l, f, m).data, s.data, s.size);
            }
    return out;
}

Texture top_level(const Texture& t) { return t.desc.mips == 1 ? t : first_levels(t, 1); }

Texture texture_from_levels(const Texture& like, std::vector<std::vector<Texture>>&& levels) {
    const Texture& top = levels.at(0).at(0);
    const bool top_float = is_float(top);
    TextureDesc d = like.desc;
    d.width = top.desc.width;
    d.height = top.desc.height;
    d.depth = 1;
    d.flags &= ~AF_TEX_VOLUME;
    d.mips = uint32_t(levels[0].size());
    d.format = image_format(top);
    // Float pictures of data that is not HDR (16-bit PNGs, signed formats mapped
    // to 0..1) are stored as 16-bit UNORM: no precision is lost, and `auto`
    // does not mistake them for HDR sources.
    const FormatInfo* lf = format_info(like.desc.format);
    const bool wide_ldr = top_float && lf && !(lf->flags & fmtflag::hdr);
    if (wide_ldr) d.format = FMT_R16G16B16A16_UNORM;
    d.flags = (d.flags & ~AF_TEX_SRGB) | (is_srgb(top.desc) ? AF_TEX_SRGB : 0);
    Texture out;
    out.desc = d;
    out.meta = like.meta;
    // One surface whose top level has room for the chain (mips.cpp reserves
    // it): the texture takes that buffer over instead of copying it.
    const uint64_t need = texture_bytes(d);
    if (d.layers * d.faces == 1 && !top_float && levels[0][0].data.capacity() >= need) {
        out.data = std::move(levels[0][0].data);
        out.data.resize(need);
        levels[0][0] = Texture{};
        for (uint32_t m = 1; m < d.mips; ++m) {
            Texture& img = levels[0][m];
            ImageView s = out.surface(0, 0, m);
            if (img.desc.width != s.width || img.desc.height != s.height || image_format(img) != d.format)
                sdk::fail(AF_ERR_INTERNAL, AF_NO_OFFSET, "mip level shapes differ");
            std::memcpy(s.data, img.data.data(), s.size);
            img = Texture{};
        }
        return out;
    }
    out.data.resize(need);
    for (uint32_t l = 0; l < d.layers; ++l)
        for (uint32_t f = 0; f < d.faces; ++f) {
            auto& chain = levels.at(size_t(l) * d.faces + f);
            if (chain.size() != d.mips) sdk::fail(AF_ERR_INTERNAL, AF_NO_OFFSET, "mip chains differ between surfaces");
            for (uint32_t m = 0; m < d.mips; ++m) {
                Texture& img = chain[m];
                ImageView s = out.surface(l, f, m);
                if (img.desc.width != s.width || img.desc.height != s.height || is_float(img) != top_float)
                    sdk::fail(AF_ERR_INTERNAL, AF_NO_OFFSET, "surface shapes differ between faces");
                if (wide_ldr) {
                    image_to_surface(img, d.format, s.data, s.size);
                } else {
                    std::memcpy(s.data, img.data.data(), s.size);
                }
                img = Texture{}; // the copy is made: give the memory back before the next level
            }
        }
    return out;
}

} // namespace af::texture
