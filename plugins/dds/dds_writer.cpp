#include "dds_writer.hpp"

#include "dds_layout.hpp"
#include "dds_pixel_format.hpp"

#include "assetforge/formats.hpp"
#include "assetforge/plugin.hpp"

namespace af::dds {

using sdk::format;

WriteOptions write_options(const af_options* options) {
    sdk::Options o(options);
    WriteOptions w;
    std::string mode = o.choice("dx10", "auto", {"auto", "always", "never"});
    w.dx10 = mode == "always" ? Dx10Mode::Always : mode == "never" ? Dx10Mode::Never : Dx10Mode::Auto;
    return w;
}

HeaderKind header_kind(const char* v) {
    if (!v) return HeaderKind::Unknown;
    std::string s(v);
    return s == "legacy" ? HeaderKind::Legacy : s == "dx10" ? HeaderKind::Dx10 : HeaderKind::Unknown;
}

namespace {

// What the texture is, in the terms a DDS header can say.
struct Shape {
    bool volume;
    bool cube;
};

// Refuses what DDS cannot hold (or the writer does not write).
Shape check_shape(const TextureDesc& d, const FormatInfo* f) {
    if (f->layout == Layout::Palette) sdk::unsupported("DDS output of palettized (P8) textures");
    if (d.width == 0 || d.height == 0 || d.depth == 0)
        sdk::usage(format("cannot write a %u×%u×%u texture", d.width, d.height, d.depth));
    uint32_t full = full_mip_count(d.width, d.height, d.depth);
    if (d.mips == 0 || d.mips > full)
        sdk::usage(format("%u mips for a %u×%u×%u texture (at most %u)", d.mips, d.width, d.height, d.depth, full));
    if (d.faces != 1 && d.faces != 6) sdk::unsupported(format("%u faces (DDS holds 1 or a 6-face cube)", d.faces));
    if (d.layers == 0) sdk::usage("texture with 0 layers");
    Shape s{d.depth > 1 || (d.flags & AF_TEX_VOLUME) != 0, d.faces == 6};
    if (s.volume && (s.cube || d.layers > 1)) sdk::unsupported("volume cubemaps or volume arrays (DDS has neither)");
    return s;
}

// Which header: DX10, or legacy with this pixel format.
struct HeaderChoice {
    bool dx10 = false;
    std::optional<PixelFormat> legacy;
};

HeaderChoice choose_header(const TextureDesc& d, const WriteOptions& opt, const std::string& name) {
    bool premultiplied = d.alpha_mode == AF_ALPHA_PREMULTIPLIED || (d.flags & AF_TEX_PREMULTIPLIED);
    HeaderChoice c;
    c.legacy = legacy_pixel_format(d.format, premultiplied);
    // A legacy header cannot say sRGB: an sRGB BC1–BC3 or RGBA8 written without
    // DX10 (dx10=never, or a re-export of a legacy original) uses the FourCC of
    // its linear twin, as texconv -dx9 does; the bytes are the same.
    auto legacy_twin = c.legacy ? c.legacy : legacy_pixel_format(with_srgb(d.format, false), premultiplied);
    bool legacy_keeps_alpha_mode = !premultiplied || d.format == FMT_BC2_UNORM || d.format == FMT_BC3_UNORM;
    bool has_dxgi = d.format < FMT_AF_BASE;

    switch (opt.dx10) {
    case Dx10Mode::Always:
        if (!has_dxgi)
            sdk::unsupported(format("%s has no DXGI format id, so no DX10 header (use dx10=auto)", name.c_str()));
        c.dx10 = true;
        break;
    case Dx10Mode::Never:
        if (!legacy_twin) sdk::unsupported(format("%s has no legacy DDS pixel format (use dx10=auto)", name.c_str()));
        if (d.layers > 1) sdk::unsupported("texture arrays need the DX10 header (use dx10=auto)");
        c.legacy = legacy_twin;
        break;
    case Dx10Mode::Auto:
        if (opt.original == HeaderKind::Legacy && legacy_twin && d.layers == 1 && legacy_keeps_alpha_mode) {
            c.legacy = legacy_twin;
            break;
        }
        if (opt.original == HeaderKind::Dx10 && has_dxgi) {
            c.dx10 = true;
            break;
        }
        c.dx10 = !(c.legacy && legacy_preferred(d.format) && d.layers == 1 && legacy_keeps_alpha_mode);
        if (c.dx10 && !has_dxgi) {
            if (!c.legacy)
                sdk::unsupported(format("%s has neither a DXGI id nor a legacy DDS pixel format", name.c_str()));
            if (d.layers > 1)
                sdk::unsupported(
                    format("%s array: arrays need the DX10 header, which cannot name %s", name.c_str(), name.c_str()));
            c.dx10 = false;
        }
        break;
    }
    return c;
}

Dx10Header dx10_header(const TextureDesc& d, const Shape& s) {
    Dx10Header x;
    x.dxgi_format = d.format;
    x.dimension = s.volume ? kDimTexture3D : kDimTexture2D;
    x.misc_flag = s.cube ? kMiscTextureCube : 0;
    x.array_size = d.layers;
    x.misc_flags2 = d.alpha_mode & kMiscFlags2AlphaMask;
    if (x.misc_flags2 == AF_ALPHA_UNKNOWN && (d.flags & AF_TEX_PREMULTIPLIED)) x.misc_flags2 = AF_ALPHA_PREMULTIPLIED;
    return x;
}

} // namespace

RawHeader make_header(const TextureDesc& d, const WriteOptions& opt) {
    const FormatInfo* f = format_info(d.format);
    if (!f) sdk::unsupported(format("format id %u is not in the format table", d.format));
    const Shape s = check_shape(d, f);
    const HeaderChoice choice = choose_header(d, opt, std::string(f->name));

    RawHeader h;
    h.flags = hflag::required | hflag::mipmapcount;
    h.width = d.width;
    h.height = d.height;
    h.mip_count = d.mips;
    if (f->compressed()) {
        h.flags |= hflag::linearsize;
        h.pitch_or_linear_size = uint32_t(surface_bytes(d.format, d.width, d.height, 1));
    } else {
        h.flags |= hflag::pitch;
        h.pitch_or_linear_size = uint32_t(row_pitch(d.format, d.width));
    }
    h.caps = caps::texture;
    if (d.mips > 1) h.caps |= caps::complex | caps::mipmap;
    if (s.cube) {
        h.caps |= caps::complex;
        h.caps2 |= caps2::cubemap | caps2::all_faces;
    }
    if (s.volume) {
        h.flags |= hflag::depth;
        h.depth = d.depth;
        h.caps |= caps::complex;
        h.caps2 |= caps2::volume;
    }
    if (choice.dx10) {
        h.pf.flags = pfflag::fourcc;
        h.pf.fourcc = kFourccDx10;
        h.dx10 = dx10_header(d, s);
    } else {
        h.pf = *choice.legacy;
    }
    return h;
}

af_status write_container(const af_host* host, const af_texture* tex, const af_options* options, af_sink* out,
                          af_error* error) {
    return sdk::guard(error, [&] {
        if (!tex || !out || !out->write) sdk::fail(AF_ERR_USAGE, AF_NO_OFFSET, "write: missing texture or sink");
        TextureDesc d;
        d.format = tex->format;
        d.width = tex->width;
        d.height = tex->height;
        d.depth = tex->depth ? tex->depth : 1;
        d.mips = tex->mip_count ? tex->mip_count : 1;
        d.layers = tex->layer_count ? tex->layer_count : 1;
        d.faces = tex->face_count ? tex->face_count : 1;
        d.flags = tex->flags;
        d.alpha_mode = tex->alpha_mode;
        WriteOptions wo = write_options(options);
        for (uint32_t i = 0; i < tex->meta_count; ++i)
            if (tex->meta[i].key && std::string_view(tex->meta[i].key) == "dds_header")
                wo.original = header_kind(tex->meta[i].value);
        RawHeader h = make_header(d, wo);
        uint64_t need = texture_bytes(d);
        if (tex->data_size != need || (need && !tex->data))
            sdk::fail(AF_ERR_USAGE, AF_NO_OFFSET,
                      sdk::format("texture buffer holds %llu bytes, its description needs %llu",
                                  (unsigned long long)tex->data_size, (unsigned long long)need));
        // Written as asked (a tool may want it), but said: a game on Direct3D 10 or later would not load it. A
        // texture written like an original DDS (its header kind came along) has the shape the game shipped, which
        // its own loader takes: said, not counted as a loss.
        const FormatInfo* f = format_info(d.format);
        if (host && host->log && f && f->compressed() && (d.width % f->block_w || d.height % f->block_h)) {
            const std::string what = block_multiple_problem(d.width, d.height, f->block_w, f->block_h);
            if (wo.original != HeaderKind::Unknown)
                host->log(AF_LOG_INFO, (what + "; as the original it is written like").c_str());
            else
                host->log(AF_LOG_WARN, what.c_str());
        }
        std::vector<uint8_t> header = serialize_header(h);
        af_status s = out->write(out->ctx, header.data(), header.size());
        if (s == AF_OK && need) s = out->write(out->ctx, tex->data, need);
        if (s != AF_OK) sdk::fail(s, AF_NO_OFFSET, "writing the DDS output failed");
    });
}

} // namespace af::dds
