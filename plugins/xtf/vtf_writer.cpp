// VTF 7.2 writer and the VTF ⇄ XTF conversions of spec §13.
#include "vtf_file.hpp"

#include "auto_format.hpp"
#include "reflectivity.hpp"
#include "resampling.hpp"
#include "surface_codec.hpp"
#include "vtf_formats.hpp"

#include "assetforge/bytes.hpp"
#include "assetforge/plugin.hpp"

#include <cstring>

namespace af::xtf {

using sdk::format;
using sdk::usage;

const sdk::ParamTable& vtf_write_params() {
    static const sdk::ParamTable t{
        vtf_format_param("VTF format name, or auto: from the texture's format"),
        sdk::integer("flags", 0, 0xFFFFFFFFll, "VTF flags as given (Xbox and 7.3+ bits are cleared)"),
        sdk::boolean("nomip", "write the top level only").def("false"),
        sdk::one_of("thumbnail", {"auto", "on", "off"}, "DXT1 thumbnail: when the codec is there, always, never")
            .def("auto"),
        reflectivity_param(),
        sdk::number("bumpscale", "bump map scale (header field)").def("1"),
        filter_param(),
    };
    return t;
}

namespace {

constexpr uint32_t kVtf72HeaderSize = 80;
constexpr uint32_t kThumbnailSide = 16;

// The top slice of a volume picture (slices are stacked vertically).
Texture first_slice(const Texture& vol, uint32_t height) {
    Texture out = vol;
    out.desc.height = height;
    out.data.resize(texture_bytes(out.desc));
    return out;
}

// A DXT1 thumbnail of mip 0 of frame 0, largest side 16, or nothing when the
// BC codec is not there (auto) — never an invented placeholder.
std::vector<uint8_t> make_thumbnail(const af_host* host, const Texture& t, const std::string& mode, uint8_t& w,
                                    uint8_t& h) {
    w = h = 0;
    if (mode == "off") return {};
    const uint32_t tw =
        t.desc.width >= t.desc.height
            ? std::min(kThumbnailSide, t.desc.width)
            : std::max(1u, uint32_t(uint64_t(std::min(kThumbnailSide, t.desc.height)) * t.desc.width / t.desc.height));
    const uint32_t th = t.desc.width >= t.desc.height
                            ? std::max(1u, uint32_t(uint64_t(tw) * t.desc.height / t.desc.width))
                            : std::min(kThumbnailSide, t.desc.height);
    try {
        Texture top = decode_surface(host, t, 0, 0, 0);
        if (t.desc.depth > 1) top = first_slice(top, t.desc.height);
        // Kaiser in the stored values: what the thumbnail has always been.
        const ResampleSettings thumb{.filter = AF_FILTER_KAISER, .premultiply_alpha = true, .linear_light = false};
        const Texture small = resample(host, top, tw, th, thumb);
        std::vector<uint8_t> out(surface_bytes(FMT_BC1_UNORM, tw, th));
        encode_surface(host, small, FMT_BC1_UNORM, out.data(), out.size(), tw, th, 1);
        w = uint8_t(tw);
        h = uint8_t(th);
        return out;
    } catch (const sdk::Error& e) {
        if (mode == "on" || e.status() != AF_ERR_UNSUPPORTED) throw;
        if (host && host->log)
            host->log(AF_LOG_DEBUG, ("vtf: writing the file without a thumbnail: " + std::string(e.what())).c_str());
        return {};
    }
}

} // namespace

VtfWriteOptions parse_vtf_write_options(const af_options* options) {
    sdk::Options o(options);
    VtfWriteOptions w;
    if (auto v = o.get("format"); v && *v != "auto") {
        auto id = vtf_format_by_name(*v);
        if (!id)
            usage(format("option format: '%.*s' is not a VTF format name (BGRA8888, DXT1, DXT5, …)", int(v->size()),
                         v->data()));
        w.format = *id;
    }
    if (o.get("flags")) w.flags = uint32_t(o.integer("flags", 0, 0, 0xFFFFFFFFll));
    w.nomip = o.flag("nomip", w.nomip);
    w.thumbnail = o.choice("thumbnail", "auto", {"auto", "on", "off"});
    w.bumpmap_scale = float(o.number("bumpscale", 1.0));
    if (auto v = o.get("filter")) w.filter = parse_filter(*v);
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

namespace {

// The VTF format the file will hold, and whether its DXT1 carries 1-bit alpha.
struct VtfFormatChoice {
    int32_t vf = 0;
    bool one_bit = false;
};

VtfFormatChoice choose_vtf_format(const af_host* host, const Texture& in, const VtfWriteOptions& opt) {
    const TextureDesc& d = in.desc;
    VtfFormatChoice c;
    if (opt.format) {
        c.vf = *opt.format;
    } else if (in.meta.count("vtf_format") || in.meta.count("xtf_format")) {
        // A texture read from a VTF or an XTF keeps its format (a re-save must not re-encode).
        c.vf = int32_t(auto_vtf_format(d.format == FMT_P8 ? FMT_B8G8R8A8_UNORM : d.format));
    } else {
        // Anything else is chosen as for XTF: DXT by the alpha it holds, float kept as float.
        const AutoFormat a = d.format == FMT_P8 ? auto_by_content(host, in) : auto_xtf_format(host, in);
        c.vf = a.vtf_format;
        c.one_bit = a.one_bit_alpha;
    }
    if (c.vf == VTF_DXT1_ONEBITALPHA) {
        c.vf = VTF_DXT1;
        c.one_bit = true;
    }
    if (c.vf == VTF_P8) usage("VTF cannot store P8 (no palette in the file); pick another format");
    return c;
}

// Given flags, or alpha flags from the format; the shape bits always follow the texture.
uint32_t vtf_flags(const VtfWriteOptions& opt, const TextureDesc& d, uint32_t tf, uint32_t mips, bool one_bit) {
    const FormatInfo* fi = format_info(tf);
    uint32_t flags = 0;
    if (opt.flags) {
        flags = *opt.flags;
    } else if (fi->has_alpha() && tf != FMT_BC1_UNORM) {
        flags = (fi->layout == Layout::Plain && fi->ch[3].bits == 1) ? vtfflag::onebitalpha : vtfflag::eightbitalpha;
    }
    flags &= vtfflag::vtf72_mask; // Xbox-only and 7.3+ bits mean other things in 7.2
    flags &= ~(vtfflag::envmap | vtfflag::nomip);
    if (d.faces == 6) flags |= vtfflag::envmap;
    if (mips == 1) flags |= vtfflag::nomip;
    if (one_bit) flags |= vtfflag::onebitalpha;
    return flags;
}

// What the header says beyond the texture's own extents.
struct VtfHeaderFields {
    uint32_t flags;
    std::array<float, 3> refl;
    float bumpmap_scale;
    int32_t vf;
    uint32_t mips;
    bool has_thumb;
    uint8_t tw, th;
};

// VTF 7.2 header, field after field (byte offsets in the comments).
void write_vtf72_header(const TextureDesc& d, const VtfHeaderFields& f, sdk::ByteWriter& w) {
    w.append("VTF\0", 4);
    w.u32(7); // 4: version 7.2
    w.u32(2);
    w.u32(kVtf72HeaderSize);
    w.u16(uint16_t(d.width)); // 16
    w.u16(uint16_t(d.height));
    w.u32(f.flags); // 20
    w.u16(uint16_t(d.layers));
    // 26: 7.1–7.4 readers expect a seventh (spheremap) face unless the start frame is 0xFFFF.
    w.u16(d.faces == 6 ? 0xFFFF : 0);
    w.fill(0, 4);
    for (int i = 0; i < 3; ++i) w.f32(f.refl[i]); // 32
    w.fill(0, 4);
    w.f32(f.bumpmap_scale); // 48
    w.u32(uint32_t(f.vf));
    w.u8(uint8_t(f.mips)); // 56
    w.u32(f.has_thumb ? uint32_t(VTF_DXT1) : 0xFFFFFFFFu);
    w.u8(f.tw); // 61
    w.u8(f.th);
    w.u16(uint16_t(d.depth)); // 63
    w.fill(0, kVtf72HeaderSize - w.size());
}

} // namespace

std::vector<uint8_t> write_vtf(const af_host* host, const Texture& in, const VtfWriteOptions& opt) {
    const TextureDesc& d = in.desc;
    if (d.faces != 1 && d.faces != 6)
        usage(format("VTF holds 1 face or a 6-face cubemap, the texture has %u", d.faces));
    if (d.width > 65535 || d.height > 65535 || d.depth > 65535 || d.layers > 65535)
        usage("VTF extents and frame counts are 16-bit");
    const VtfFormatChoice choice = choose_vtf_format(host, in, opt);
    const auto tfo = af_format_of(choice.vf);
    if (!tfo) usage(format("format id %d is not a VTF format", choice.vf));
    const uint32_t tf = *tfo;
    if (format_info(tf)->compressed() && ((d.width % 4 && d.width > 2) || (d.height % 4 && d.height > 2)))
        usage(format("%ux%u: DXT VTF images need sizes that are multiples of 4", d.width, d.height));
    const bool nomip = opt.nomip || (opt.flags && (*opt.flags & vtfflag::nomip));
    const uint32_t mips = nomip ? 1 : (d.mips > 1 ? d.mips : full_mip_count(d.width, d.height, d.depth));

    XtfWriteOptions conv;
    conv.resampling.filter = opt.filter;
    const Texture img = convert_texture(host, in, tf, mips, conv);

    VtfHeaderFields f;
    f.flags = vtf_flags(opt, d, tf, mips, choice.one_bit);
    f.refl = opt.reflectivity ? *opt.reflectivity : compute_reflectivity(host, img);
    f.bumpmap_scale = opt.bumpmap_scale;
    f.vf = choice.vf;
    f.mips = mips;
    f.tw = f.th = 0;
    const std::vector<uint8_t> thumb = make_thumbnail(host, img, opt.thumbnail, f.tw, f.th);
    f.has_thumb = !thumb.empty();

    sdk::ByteWriter w(kVtf72HeaderSize + thumb.size() + img.data.size());
    write_vtf72_header(d, f, w);
    w.append(thumb);
    for (int m = int(mips) - 1; m >= 0; --m)
        for (uint32_t fr = 0; fr < d.layers; ++fr)
            for (uint32_t face = 0; face < d.faces; ++face) {
                ImageView s = img.surface(fr, face, uint32_t(m));
                w.append(s.data, s.size);
            }
    return std::move(w).bytes();
}

std::vector<uint8_t> vtf_to_xtf(const af_host* host, const VtfFile& vtf, XtfWriteOptions opt) {
    const VtfHeader& h = vtf.header;
    uint32_t flags = h.flags & vtfflag::vtf72_mask;
    if (h.version_minor >= 4) flags &= ~0x40u; // SRGB in 7.4+, NOCOMPRESS before
    if (!opt.flags) opt.flags = flags;
    // XTF holds a full chain or one mip: a partial PC chain is rebuilt from mip 0.
    const Texture& src = vtf.image;
    Texture top;
    const Texture* t = &src;
    if (src.desc.mips == 1) {
        opt.nomip = true;
    } else if (src.desc.mips < full_mip_count(src.desc.width, src.desc.height, src.desc.depth)) {
        TextureDesc d = src.desc;
        d.mips = 1;
        top = Texture(d);
        for (uint32_t l = 0; l < d.layers; ++l)
            for (uint32_t f = 0; f < d.faces; ++f) {
                ImageView a = src.surface(l, f, 0), b = top.surface(l, f, 0);
                std::memcpy(b.data, a.data, a.size);
            }
        t = &top;
    }
    if (!opt.reflectivity)
        opt.reflectivity = std::array<float, 3>{h.reflectivity[0], h.reflectivity[1], h.reflectivity[2]};
    opt.bumpmap_scale = h.bumpmap_scale;
    if (!opt.format) opt.format = h.image_format == VTF_DXT1_ONEBITALPHA ? VTF_DXT1 : h.image_format;
    return write_xtf(host, *t, opt);
}

std::vector<uint8_t> xtf_to_vtf(const af_host* host, const XtfFile& xtf, VtfWriteOptions opt) {
    const XtfHeader& h = xtf.header;
    if (!opt.flags) opt.flags = h.flags & ~vtfflag::xbox_only;
    if (!opt.reflectivity)
        opt.reflectivity = std::array<float, 3>{h.reflectivity[0], h.reflectivity[1], h.reflectivity[2]};
    opt.bumpmap_scale = h.bumpmap_scale;
    if (h.image_format == VTF_P8) {
        if (!opt.format) opt.format = VTF_BGRA8888;
        return write_vtf(host, expand_palette(xtf.image), opt);
    }
    if (!opt.format) opt.format = h.image_format; // a conversion keeps the XTF's format (spec §13)
    return write_vtf(host, xtf.image, opt);
}

} // namespace af::xtf
