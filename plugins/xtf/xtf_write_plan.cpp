#include "xtf_write_plan.hpp"

#include "auto_format.hpp"
#include "vtf_formats.hpp"
#include "xbox_swizzle.hpp"

#include "assetforge/plugin.hpp"

#include <algorithm>

namespace af::xtf {

using sdk::format;
using sdk::usage;

namespace {


void check_dxt_extent(uint32_t v, const char* what) {
    if (!is_pow2(v) && v % 4 != 0) usage(format("%s %u: DXT images must be a power of two or a multiple of 4", what, v));
}

void check_shape(const TextureDesc& d) {
    if (d.faces != 1 && d.faces != 6)
        usage(format("XTF holds 1 face or a 6-face cubemap, the texture has %u", d.faces));
    if (d.faces == 6 && d.depth > 1) usage("XTF cannot hold a cubemap with depth slices");
    if (d.width > 65535 || d.height > 65535 || d.depth > 65535)
        usage(format("XTF extents are 16-bit: %ux%ux%u does not fit", d.width, d.height, d.depth));
    if (d.layers > 65535) usage(format("XTF frame count is 16-bit: %u frames do not fit", d.layers));
    if (!d.width || !d.height || !d.depth) usage("texture has a zero extent");
}

// What a file in this format says about alpha when nobody said otherwise.
// DXT1 gets ONEBITALPHA from its data (dxt1_alpha.hpp), P8 none (as shipped).
uint32_t default_alpha_flags(uint32_t af_format) {
    const FormatInfo* fi = format_info(af_format);
    if (af_format == FMT_P8 || af_format == FMT_BC1_UNORM || !fi->has_alpha()) return 0;
    const bool bit_alpha = fi->layout == Layout::Plain && fi->ch[3].bits == 1;
    return bit_alpha ? vtfflag::onebitalpha : vtfflag::eightbitalpha;
}

constexpr uint32_t kAlphaFlags = vtfflag::onebitalpha | vtfflag::eightbitalpha;

void plan_fallback(const TextureDesc& d, const XtfWriteOptions& opt, const XtfSource* src, XtfWritePlan& p) {
    if (!opt.fallback || d.depth > 1) return; // volumes have none (as in shipped files)
    uint32_t fw = 0, fh = 0;
    const bool automatic = !opt.fallback_width && !opt.fallback_side;
    if (opt.fallback_width) {
        fw = opt.fallback_width;
        fh = opt.fallback_height;
    } else if (automatic && src && src->fallback_width <= d.width && src->fallback_height <= d.height) {
        fw = src->fallback_width; // 0: the source had none
        fh = src->fallback_height;
    } else {
        // Largest side `side`, aspect kept, never above the texture.
        const uint32_t side = opt.fallback_side.value_or(8);
        if (d.width >= d.height) {
            fw = std::min(side, d.width);
            fh = std::max(1u, uint32_t(uint64_t(fw) * d.height / d.width));
        } else {
            fh = std::min(side, d.height);
            fw = std::max(1u, uint32_t(uint64_t(fh) * d.width / d.height));
        }
    }
    if (!fw || !fh) return;
    if (fw > 255 || fh > 255) usage(format("fallback %ux%u: the header stores 8-bit sizes", fw, fh));
    const FormatInfo* fi = format_info(p.format);
    if (!fi->compressed() && !swizzle_representable(fw, fh))
        usage(format("fallback %ux%u is not a power-of-two size, which uncompressed (swizzled) images need", fw, fh));
    if (fi->compressed()) {
        check_dxt_extent(fw, "fallback width");
        check_dxt_extent(fh, "fallback height");
    }
    p.fallback_width = fw;
    p.fallback_height = fh;
    p.fallback_mips = p.nomip ? 1 : full_mip_count(fw, fh);
}

// The format: given, the source's, a VTF source's, or chosen by content.
void plan_format(const af_host* host, const Texture& in, const XtfWriteOptions& opt, const XtfSource* src,
                 XtfWritePlan& p) {
    int32_t vf = 0;
    if (opt.format) {
        vf = *opt.format;
    } else if (src) {
        vf = src->format;
    } else if (auto valve = vtf_source_format(in.meta)) {
        vf = *valve;
    } else {
        const AutoFormat a = auto_xtf_format(host, in);
        vf = a.vtf_format;
        p.one_bit_alpha = a.one_bit_alpha;
    }
    if (vf == VTF_DXT1_ONEBITALPHA) { // stored as DXT1 + ONEBITALPHA, never as id 20
        vf = VTF_DXT1;
        p.one_bit_alpha = true;
    }
    const auto tf = af_format_of(vf);
    if (!tf) usage(format("format id %d is not a VTF format", vf));
    p.vtf_format = vf;
    p.format = *tf;
}

void check_extents(const TextureDesc& d, const XtfWritePlan& p) {
    const FormatInfo* fi = format_info(p.format);
    if (!fi->compressed() && !swizzle_representable(d.width, d.height, d.depth))
        usage(format("%ux%ux%u is not a power-of-two size: uncompressed XTF images (%s) are Xbox-swizzled, which "
                     "only power-of-two sizes can be; resize the texture or write DXT1/DXT3/DXT5",
                     d.width, d.height, d.depth, std::string(vtf_format_name(p.vtf_format)).c_str()));
    if (fi->compressed()) {
        check_dxt_extent(d.width, "width");
        check_dxt_extent(d.height, "height");
    }
}

// NOMIP and the mip count, then the flags: given, or the source's, or the format's alpha flags.
void plan_mips_and_flags(const TextureDesc& d, const XtfWriteOptions& opt, const XtfSource* src, bool same_format,
                         XtfWritePlan& p) {
    const uint32_t full = full_mip_count(d.width, d.height, d.depth);
    if (opt.nomip)
        p.nomip = *opt.nomip || (opt.flags && (*opt.flags & vtfflag::nomip));
    else if (opt.flags)
        p.nomip = *opt.flags & vtfflag::nomip;
    else if (src) // a single-mip file that lacks NOMIP (the vtfpp-repaired quirk) counts as NOMIP
        p.nomip = (src->flags & vtfflag::nomip) || (src->mips == 1 && full > 1);
    p.mips = p.nomip ? 1 : full;

    if (opt.flags)
        p.flags = *opt.flags;
    else if (src) // every bit kept; the alpha bits describe the format, so they go with it
        p.flags = same_format ? src->flags : (src->flags & ~kAlphaFlags) | default_alpha_flags(p.format);
    else
        p.flags = default_alpha_flags(p.format);
}

// The kept fallback is reused only when it has exactly the planned shape.
bool kept_fallback_fits(const TextureDesc& d, const XtfWritePlan& p) {
    TextureDesc fd = d;
    fd.format = p.format;
    fd.width = p.fallback_width;
    fd.height = p.fallback_height;
    fd.depth = 1;
    fd.mips = p.fallback_mips;
    return p.kept->fallback_width == p.fallback_width && p.kept->fallback_height == p.fallback_height &&
           p.kept->fallback_mips == p.fallback_mips && p.kept->fallback.size() == texture_bytes(fd);
}

// Header values: given, else the source's, else the defaults.
void plan_header_values(const XtfWriteOptions& opt, const XtfSource* src, XtfWritePlan& p) {
    p.mip_skip = opt.mip_skip ? *opt.mip_skip : src ? src->mip_skip : 0;
    p.bumpmap_scale = opt.bumpmap_scale ? *opt.bumpmap_scale : src ? src->bumpmap_scale : 1.0f;
    if (opt.reflectivity)
        p.reflectivity = *opt.reflectivity;
    else if (p.kept)
        p.reflectivity = p.kept->reflectivity;
    p.lowres = opt.lowres ? *opt.lowres : src ? (src->lowres_width && src->lowres_height) : true;
    // Another tool may have stored an average colour, or a bigger image: keep
    // it unless the reflectivity it would follow was given anew.
    p.keep_lowres = p.lowres && p.kept && !opt.reflectivity && !p.kept->lowres.empty();
}

} // namespace

XtfWritePlan plan_xtf_write(const af_host* host, const Texture& in, const XtfWriteOptions& opt,
                            const std::optional<XtfSource>& source) {
    const TextureDesc& d = in.desc;
    check_shape(d);
    XtfWritePlan p;
    const XtfSource* src = source ? &*source : nullptr;

    plan_format(host, in, opt, src, p);
    const int32_t vf = p.vtf_format;
    const bool same_format = src && (src->format == VTF_DXT1_ONEBITALPHA ? VTF_DXT1 : src->format) == vf;
    check_extents(d, p);
    plan_mips_and_flags(d, opt, src, same_format, p);

    // The source's derived data describes these pixels only while mip 0 (and,
    // for P8, the palettes) are what the reader handed out, in the same format.
    if (same_format && src->pixels == mip0_digest(in) &&
        (vf != VTF_P8 || src->palettes.size() == size_t(d.layers) * kPaletteBytes))
        p.kept = src;

    plan_fallback(d, opt, src, p);
    if (p.kept && p.fallback_mips) p.keep_fallback = kept_fallback_fits(d, p);
    plan_header_values(opt, src, p);
    return p;
}

} // namespace af::xtf
