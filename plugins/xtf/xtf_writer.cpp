#include "xtf_writer.hpp"

#include "block_copy.hpp"
#include "dxt1_alpha.hpp"
#include "p8_quantizer.hpp"
#include "reflectivity.hpp"
#include "surface_codec.hpp"
#include "vtf_formats.hpp"
#include "xbox_swizzle.hpp"
#include "xtf_reader.hpp"
#include "xtf_write_plan.hpp"

#include "assetforge/plugin.hpp"

#include <cstring>

namespace af::xtf {

using sdk::format;
using sdk::usage;

sdk::Param vtf_format_param(std::string doc) {
    std::vector<std::string> names{"auto"};
    for (int32_t i = 0; i < kVtfFormatCount; ++i) names.emplace_back(vtf_format_name(i));
    return sdk::one_of("format", std::move(names), std::move(doc)).def("auto").any_case();
}

sdk::Param filter_param() {
    // parse_filter's names and the aliases it takes, in any case.
    return sdk::one_of(
               "filter",
               {"box", "triangle", "kaiser", "lanczos3", "mitchell", "point", "lanczos", "tent", "linear", "nearest"},
               "mip and fallback resampling filter")
        .def("mitchell")
        .any_case();
}

sdk::Param reflectivity_param() {
    return sdk::list("reflectivity", "three numbers r,g,b (default: computed from mip 0)");
}

const sdk::ParamTable& xtf_write_params() {
    static const sdk::ParamTable t{
        // No declared default where a re-save keeps the source file's value:
        // a default the host fills in would look like an option given.
        vtf_format_param("VTF format name, or auto: a source XTF's format; DXT1/DXT3/DXT5/P8 input kept; otherwise "
                         "DXT1 (opaque), DXT1 + ONEBITALPHA (alpha only 0/255) or DXT5 (smooth alpha)"),
        sdk::text("fallback",
                  "fallback image: auto (a source XTF's size, else largest side 8), none, a side N (1..255) or WxH")
            .def("auto"),
        sdk::boolean("lowres", "write the 1x1 RGB888 reflectivity pixel (default: as a source XTF, else true)"),
        sdk::integer("flags", 0, 0xFFFFFFFFll,
                     "VTF flags as given (ENVMAP, NOMIP and DXT1 cut-out ONEBITALPHA follow the data; default: a "
                     "source XTF's flags, else the format's alpha flag)"),
        sdk::boolean("nomip", "write the top level only (default: as a source XTF, else false)"),
        sdk::boolean("dither", "dither when quantising to P8").def("true"),
        filter_param(),
        sdk::boolean("premultiply", "resample with premultiplied alpha").def("true"),
        sdk::boolean("linear", "resample in linear light").def("false"),
        sdk::integer("mipskip", 0, 255, "mip levels the engine skips (header field; default: as a source XTF, else 0)"),
        reflectivity_param(),
        sdk::number("bumpscale", "bump map scale (header field; default: as a source XTF, else 1)"),
    };
    return t;
}

namespace {

// Every level the file needs: the texture's own chain when it has one (the
// pipeline's mips step made it, or a read file carried it), otherwise made
// from mip 0.
std::vector<Texture> mip_images(const af_host* host, const Texture& in, uint32_t layer, uint32_t face, uint32_t mips,
                                const XtfWriteOptions& opt) {
    std::vector<Texture> out;
    if (in.desc.mips >= mips) {
        for (uint32_t m = 0; m < mips; ++m) out.push_back(decode_surface(host, in, layer, face, m));
        return out;
    }
    Texture top = decode_surface(host, in, layer, face, 0);
    if (in.desc.depth == 1) return mip_chain(host, std::move(top), mips, opt.resampling);
    out.push_back(std::move(top));
    for (uint32_t m = 1; m < mips; ++m)
        out.push_back(halve_volume(out.back(), mip_extent(in.desc.width, m - 1), mip_extent(in.desc.height, m - 1),
                                   mip_extent(in.desc.depth, m - 1)));
    return out;
}

// Each fallback level resized straight from mip 0.
std::vector<Texture> fallback_images(const af_host* host, const Texture& in, uint32_t layer, uint32_t face, uint32_t fw,
                                     uint32_t fh, uint32_t mips, const XtfWriteOptions& opt) {
    require_resample(host, "making fallback images");
    const Texture top = decode_surface(host, in, layer, face, 0);
    std::vector<Texture> out;
    out.reserve(mips);
    for (uint32_t m = 0; m < mips; ++m)
        out.push_back(resample(host, top, mip_extent(fw, m), mip_extent(fh, m), opt.resampling));
    return out;
}

std::vector<uint8_t> rgba_to_bgra(const std::vector<uint8_t>& rgba) {
    std::vector<uint8_t> out(rgba);
    for (size_t i = 0; i + 3 < out.size(); i += 4) std::swap(out[i], out[i + 2]);
    return out;
}

// The sRGB twins store the same bytes.
uint32_t without_srgb(uint32_t af_format) {
    switch (af_format) {
    case FMT_R8G8B8A8_UNORM_SRGB:
        return FMT_R8G8B8A8_UNORM;
    case FMT_B8G8R8A8_UNORM_SRGB:
        return FMT_B8G8R8A8_UNORM;
    case FMT_B8G8R8X8_UNORM_SRGB:
        return FMT_B8G8R8X8_UNORM;
    case FMT_BC1_UNORM_SRGB:
        return FMT_BC1_UNORM;
    case FMT_BC2_UNORM_SRGB:
        return FMT_BC2_UNORM;
    case FMT_BC3_UNORM_SRGB:
        return FMT_BC3_UNORM;
    default:
        return af_format;
    }
}

} // namespace

uint32_t auto_vtf_format(uint32_t af_format) {
    af_format = without_srgb(af_format);
    if (auto v = vtf_format_of(af_format)) return uint32_t(*v);
    const FormatInfo* fi = format_info(af_format);
    return fi && (fi->flags & fmtflag::hdr) ? VTF_RGBA16161616F : VTF_BGRA8888;
}

XtfWriteOptions parse_xtf_write_options(const af_options* options) {
    sdk::Options o(options);
    XtfWriteOptions w;
    if (auto v = o.get("format"); v && *v != "auto") {
        auto id = vtf_format_by_name(*v);
        if (!id) {
            std::string names;
            for (int32_t i = 0; i < kVtfFormatCount; ++i)
                names += std::string(i ? ", " : "") + std::string(vtf_format_name(i));
            usage(format("option format: '%.*s' is not one of: auto, %s", int(v->size()), v->data(), names.c_str()));
        }
        w.format = *id;
    }
    if (auto v = o.get("fallback")) {
        std::string s(*v);
        unsigned a = 0, b = 0;
        char tail = 0;
        if (s == "auto" || s == "") {
        } else if (s == "none" || s == "off" || s == "false" || s == "0" || s == "no") {
            w.fallback = false;
        } else if (sscanf(s.c_str(), "%ux%u%c", &a, &b, &tail) == 2 && a && b && a <= 255 && b <= 255) {
            w.fallback_width = a;
            w.fallback_height = b;
        } else if (sscanf(s.c_str(), "%u%c", &a, &tail) == 1 && a && a <= 255) {
            w.fallback_side = a;
        } else {
            usage("option fallback: expected auto, none, a side length N (1..255) or WxH, got '" + s + "'");
        }
    }
    if (o.get("lowres")) w.lowres = o.flag("lowres", true);
    if (o.get("flags")) w.flags = uint32_t(o.integer("flags", 0, 0, 0xFFFFFFFFll));
    if (o.get("nomip")) w.nomip = o.flag("nomip", false);
    w.dither = o.flag("dither", w.dither);
    if (auto v = o.get("filter")) w.resampling.filter = parse_filter(*v);
    w.resampling.premultiply_alpha = o.flag("premultiply", w.resampling.premultiply_alpha);
    w.resampling.linear_light = o.flag("linear", w.resampling.linear_light);
    if (o.get("mipskip")) w.mip_skip = uint8_t(o.integer("mipskip", 0, 0, 255));
    if (o.get("bumpscale")) w.bumpmap_scale = float(o.number("bumpscale", 1.0));
    if (auto v = o.get("reflectivity")) {
        std::string s(*v);
        float r, g, b;
        char tail;
        if (sscanf(s.c_str(), "%f,%f,%f%c", &r, &g, &b, &tail) != 3)
            usage("option reflectivity: expected three numbers 'r,g,b', got '" + s + "'");
        w.reflectivity = std::array<float, 3>{r, g, b};
    }
    return w;
}

Texture convert_texture(const af_host* host, const Texture& in, uint32_t fmt, uint32_t mips,
                        const XtfWriteOptions& opt) {
    TextureDesc od = in.desc;
    od.format = fmt;
    od.mips = mips;
    Texture out(od);
    const bool copy = without_srgb(in.desc.format) == without_srgb(fmt) && in.desc.mips >= mips;
    const uint64_t surfaces = uint64_t(od.layers) * od.faces;
    sdk::parallel_for(host, surfaces, 1, [&](uint64_t b, uint64_t e) {
        for (uint64_t i = b; i < e; ++i) {
            const uint32_t layer = uint32_t(i / od.faces), face = uint32_t(i % od.faces);
            if (copy) {
                for (uint32_t m = 0; m < mips; ++m) {
                    ImageView s = in.surface(layer, face, m), d = out.surface(layer, face, m);
                    std::memcpy(d.data, s.data, s.size);
                }
                continue;
            }
            auto levels = mip_images(host, in, layer, face, mips, opt);
            for (uint32_t m = 0; m < mips; ++m) {
                ImageView d = out.surface(layer, face, m);
                encode_surface(host, levels[m], fmt, d.data, d.size, d.width, d.height, d.depth);
            }
        }
    });
    return out;
}

namespace {

// One frame of a P8 file: palette and indices for every face and mip, and the
// fallback levels not given or kept. The palette is the texture's own (P8
// input), the source file's (a re-save of expanded P8: every texel is a
// palette colour, so indices come back exactly) or quantized anew.
void write_p8_frame(const af_host* host, const Texture& in, const XtfWritePlan& p, const XtfWriteOptions& opt,
                    bool make_fallback, uint32_t l, XtfContent& c) {
    const TextureDesc& d = in.desc;
    uint8_t* pal = c.image.palette.data() + size_t(l) * kPaletteBytes;
    std::vector<std::vector<Texture>> fb_levels(d.faces);
    if (make_fallback)
        for (uint32_t f = 0; f < d.faces; ++f)
            fb_levels[f] = fallback_images(host, in, l, f, p.fallback_width, p.fallback_height, p.fallback_mips, opt);
    auto remap_fallback = [&] {
        for (uint32_t f = 0; f < d.faces; ++f)
            for (uint32_t m = 0; m < fb_levels[f].size(); ++m) {
                remap_to_palette(fb_levels[f][m], pal, c.fallback.surface(l, f, m));
            }
    };
    if (d.format == FMT_P8 && d.mips >= p.mips && in.palette.size() >= size_t(d.layers) * kPaletteBytes) {
        std::memcpy(pal, in.palette.data() + size_t(l) * kPaletteBytes, kPaletteBytes);
        for (uint32_t f = 0; f < d.faces; ++f)
            for (uint32_t m = 0; m < p.mips; ++m) {
                ImageView s = in.surface(l, f, m), o = c.image.surface(l, f, m);
                std::memcpy(o.data, s.data, s.size);
            }
        remap_fallback();
        return;
    }
    if (p.kept) {
        const std::vector<uint8_t> bgra(p.kept->palettes.begin() + ptrdiff_t(l) * kPaletteBytes,
                                        p.kept->palettes.begin() + ptrdiff_t(l + 1) * kPaletteBytes);
        const std::vector<uint8_t> rgba = palettes_to_rgba(bgra);
        std::memcpy(pal, rgba.data(), kPaletteBytes);
        for (uint32_t f = 0; f < d.faces; ++f) {
            const auto levels = mip_images(host, in, l, f, p.mips, opt);
            for (uint32_t m = 0; m < p.mips; ++m) {
                remap_to_palette(levels[m], pal, c.image.surface(l, f, m));
            }
        }
        remap_fallback();
        return;
    }
    std::vector<std::vector<Texture>> levels(d.faces);
    std::vector<const Texture*> sources;
    std::vector<RemapTarget> targets;
    for (uint32_t f = 0; f < d.faces; ++f) {
        levels[f] = mip_images(host, in, l, f, p.mips, opt);
        sources.push_back(&levels[f][0]);
    }
    for (uint32_t f = 0; f < d.faces; ++f)
        for (uint32_t m = 0; m < p.mips; ++m) targets.push_back({&levels[f][m], c.image.surface(l, f, m)});
    for (uint32_t f = 0; f < d.faces; ++f)
        for (uint32_t m = 0; m < fb_levels[f].size(); ++m)
            targets.push_back({&fb_levels[f][m], c.fallback.surface(l, f, m)});
    quantize_frame(sources, targets, opt.dither, pal);
}

// The header fields the plan decides, and the flags before the images are known.
uint32_t fill_planned_header(const TextureDesc& d, const XtfWritePlan& p, XtfHeader& h) {
    h.width = uint16_t(d.width);
    h.height = uint16_t(d.height);
    h.depth = uint16_t(d.depth);
    h.frames = uint16_t(d.layers);
    h.image_format = p.vtf_format;
    h.mip_skip = p.mip_skip;
    h.bumpmap_scale = p.bumpmap_scale;
    h.fallback_width = uint8_t(p.fallback_width);
    h.fallback_height = uint8_t(p.fallback_height);
    uint32_t flags = p.flags & ~(vtfflag::envmap | vtfflag::nomip);
    if (d.faces == 6) flags |= vtfflag::envmap;
    if (p.nomip) flags |= vtfflag::nomip;
    if (p.one_bit_alpha) flags |= vtfflag::onebitalpha;
    return flags;
}

// The fallback texture: given by the caller (checked against the plan), kept
// from the source, or allocated to be made here (true).
bool set_up_fallback(const TextureDesc& d, const XtfWritePlan& p, const XtfWriteOptions& opt, XtfContent& c) {
    const bool has_fb = p.fallback_mips > 0;
    TextureDesc fd = d;
    fd.format = p.format;
    fd.width = p.fallback_width;
    fd.height = p.fallback_height;
    fd.depth = 1;
    fd.mips = p.fallback_mips;
    fd.flags &= ~AF_TEX_VOLUME;
    const bool given_fb = has_fb && opt.fallback_images;
    if (given_fb) {
        const TextureDesc& g = opt.fallback_images->desc;
        if (g.format != p.format || g.width != fd.width || g.height != fd.height || g.mips != fd.mips ||
            g.layers != d.layers || g.faces != d.faces)
            usage(format("given fallback images are %ux%u with %u mips in format %u; the file needs %ux%u, %u mips, "
                         "format %u",
                         g.width, g.height, g.mips, g.format, fd.width, fd.height, fd.mips, p.format));
        c.fallback = *opt.fallback_images;
    } else if (has_fb) {
        c.fallback = Texture(fd);
        if (p.keep_fallback) c.fallback.data = p.kept->fallback;
    }
    return has_fb && !given_fb && !p.keep_fallback;
}

// Main images (and the fallback when it is made here) in the target format;
// P8 frames share one palette between image and fallback.
void encode_images(const af_host* host, const Texture& in, const XtfWritePlan& p, const XtfWriteOptions& opt,
                   bool make_fallback, XtfContent& c) {
    const TextureDesc& d = in.desc;
    const uint32_t tf = p.format;
    if (tf == FMT_P8) {
        TextureDesc od = d;
        od.format = FMT_P8;
        od.mips = p.mips;
        c.image = Texture(od);
        for (uint32_t l = 0; l < d.layers; ++l) write_p8_frame(host, in, p, opt, make_fallback, l, c);
        c.palettes = rgba_to_bgra(c.image.palette);
        if (p.fallback_mips > 0) c.fallback.palette = c.image.palette;
        return;
    }
    c.image = convert_texture(host, in, tf, p.mips, opt);
    if (!make_fallback) return;
    const uint64_t surfaces = uint64_t(d.layers) * d.faces;
    sdk::parallel_for(host, surfaces, 1, [&](uint64_t b, uint64_t e) {
        for (uint64_t i = b; i < e; ++i) {
            const uint32_t l = uint32_t(i / d.faces), f = uint32_t(i % d.faces);
            auto levels = fallback_images(host, in, l, f, p.fallback_width, p.fallback_height, p.fallback_mips, opt);
            for (uint32_t m = 0; m < p.fallback_mips; ++m) {
                ImageView s = c.fallback.surface(l, f, m);
                encode_surface(host, levels[m], tf, s.data, s.size, s.width, s.height, 1);
            }
        }
    });
}

// Reflectivity (given or measured) and the low-resolution image: kept from
// the source, or one texel of the reflectivity colour.
void set_reflectivity_and_lowres(const af_host* host, const XtfWritePlan& p, XtfContent& c) {
    XtfHeader& h = c.header;
    const std::array<float, 3> refl = p.reflectivity ? *p.reflectivity : compute_reflectivity(host, c.image);
    for (int i = 0; i < 3; ++i) h.reflectivity[i] = refl[i];
    if (p.keep_lowres) {
        h.lowres_width = uint8_t(p.kept->lowres_width);
        h.lowres_height = uint8_t(p.kept->lowres_height);
        c.lowres = p.kept->lowres;
    } else if (p.lowres) {
        h.lowres_width = h.lowres_height = 1;
        auto px = reflectivity_pixel(refl);
        c.lowres.assign(px.begin(), px.end());
    }
}

} // namespace

XtfContent prepare_xtf(const af_host* host, const Texture& in, const XtfWriteOptions& opt) {
    const std::optional<XtfSource> source = parse_resave_meta(in.meta);
    const XtfWritePlan p = plan_xtf_write(host, in, opt, source);

    XtfContent c;
    uint32_t flags = fill_planned_header(in.desc, p, c.header);
    const bool make_fallback = set_up_fallback(in.desc, p, opt, c);
    encode_images(host, in, p, opt, make_fallback, c);
    // However DXT1 was chosen, transparent texels need the flag for the engine to alpha-test.
    if (dxt1_texture_has_cutout(c.image) || (p.fallback_mips > 0 && dxt1_texture_has_cutout(c.fallback)))
        flags |= vtfflag::onebitalpha;
    c.header.flags = flags;
    set_reflectivity_and_lowres(host, p, c);
    return c;
}

std::vector<uint8_t> serialize_xtf(const af_host* host, XtfContent& c) {
    XtfHeader& h = c.header;
    uint64_t preload = 0, image_offset = 0;
    xtf_writer_offsets(h, preload, image_offset);
    if (image_offset > 0xFFFF)
        usage(format("the preload data (header, low-res image, palettes, fallback) ends at byte %llu, beyond what "
                     "the 16-bit preload size / image offset fields hold; use fewer frames or no fallback",
                     (unsigned long long)image_offset));
    h.preload_size = uint16_t(preload);
    h.image_offset = uint16_t(image_offset);
    const XtfLayout L = xtf_layout(h, UINT64_MAX);

    const TextureDesc& d = c.image.desc;
    if (d.format != L.format || d.width != h.width || d.height != h.height || d.depth != h.depth ||
        d.layers != h.frames || d.faces != L.faces || d.mips != L.mips)
        throw std::logic_error("serialize_xtf: image texture disagrees with the header");
    if (L.fallback_mips && (c.fallback.desc.mips != L.fallback_mips || c.fallback.desc.format != L.format))
        throw std::logic_error("serialize_xtf: fallback texture disagrees with the header");
    if (c.lowres.size() != L.lowres_size || c.palettes.size() != L.palette_size)
        throw std::logic_error("serialize_xtf: low-res image or palettes have the wrong size");

    std::vector<uint8_t> out(L.file_size, 0);
    serialize_xtf_header(h, out.data());
    if (L.lowres_size) std::memcpy(out.data() + L.lowres_offset, c.lowres.data(), L.lowres_size);
    if (L.palette_size) std::memcpy(out.data() + L.palette_offset, c.palettes.data(), L.palette_size);
    std::vector<BlockCopy> jobs;
    auto add = [&](const std::vector<XtfBlock>& blocks, const Texture& t) {
        for (const XtfBlock& b : blocks) {
            ImageView s = t.surface(b.frame, b.face, b.mip);
            jobs.push_back({s.data, out.data() + b.offset, b.width, b.height, b.depth, b.size,
                            format("frame %u face %u mip %u", b.frame, b.face, b.mip)});
        }
    };
    add(L.fallback, c.fallback);
    add(L.image, c.image);
    const FormatInfo* fi = format_info(L.format);
    copy_blocks(host, jobs, fi->compressed() ? 0 : fi->block_bytes, true);
    return out;
}

} // namespace af::xtf
