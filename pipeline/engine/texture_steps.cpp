// Texture steps, run through the plugin host (containers and codecs) and the
// core image operations.
#include "engine/texture_steps.hpp"

#include "assetforge/formats.hpp"
#include "core/image_ops.hpp"
#include "core/pixel_convert.hpp"
#include "engine/plugin_params.hpp"
#include "host/texture_io.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace af::engine {

std::string plugin_identity(const host::LoadedPlugin& p) {
    return p.name + "@" + p.version + "#" + p.binary_hash.hex().substr(0, 16);
}

namespace {

using host::PluginRegistry;

void use(std::vector<std::string>& tools, const host::LoadedPlugin* p) {
    if (p) tools.push_back(plugin_identity(*p));
}

host::OptionMap options_except(const Params& p, std::initializer_list<std::string_view> skip) {
    host::OptionMap o;
    for (const auto& [k, v] : p)
        if (std::find(skip.begin(), skip.end(), k) == skip.end() && !v.empty()) o[k] = v;
    return o;
}

bool truthy(const std::string& v) { return v == "true" || v == "yes" || v == "on" || v == "1"; }

uint32_t parse_uint(const Params& p, const std::string& key, uint32_t lo, uint32_t hi) {
    const std::string& v = p.at(key);
    char* end = nullptr;
    unsigned long long x = strtoull(v.c_str(), &end, 10);
    if (v.empty() || *end || x < lo || x > hi)
        throw std::runtime_error("parameter " + key + ": expected an integer in [" + std::to_string(lo) + ", " +
                                 std::to_string(hi) + "], got '" + v + "'");
    return uint32_t(x);
}

std::shared_ptr<const Texture> need_texture(const Item& it) {
    if (!it.texture) throw std::runtime_error("expected a texture item");
    return it.texture;
}

// Every (layer, face) top surface as an Image, decoding through codecs.
std::vector<Image> top_images(const PluginRegistry& reg, const Texture& t, std::vector<std::string>& tools) {
    const FormatInfo* fi = format_info(t.desc.format);
    if (fi && fi->compressed()) use(tools, reg.codec_for(t.desc.format).plugin);
    std::vector<Image> v;
    for (uint32_t l = 0; l < t.desc.layers; ++l)
        for (uint32_t f = 0; f < t.desc.faces; ++f) v.push_back(host::decode_surface(reg, t, l, f, 0));
    return v;
}

// levels[l*faces + f][m] → RGBA8 (sRGB-tagged if the images are) or RGBA32F texture.
std::shared_ptr<Texture> texture_from_levels(const Texture& like, const std::vector<std::vector<Image>>& levels) {
    const Image& top = levels.at(0).at(0);
    TextureDesc d = like.desc;
    d.width = top.width;
    d.height = top.height;
    d.depth = 1;
    d.mips = uint32_t(levels[0].size());
    d.format = top.is_float() ? FMT_R32G32B32A32_FLOAT : top.srgb ? FMT_R8G8B8A8_UNORM_SRGB : FMT_R8G8B8A8_UNORM;
    d.flags = (d.flags & ~AF_TEX_SRGB) | (top.srgb ? AF_TEX_SRGB : 0);
    auto t = std::make_shared<Texture>(d);
    t->meta = like.meta;
    for (uint32_t l = 0; l < d.layers; ++l)
        for (uint32_t f = 0; f < d.faces; ++f)
            for (uint32_t m = 0; m < d.mips; ++m) {
                const Image& img = levels[l * d.faces + f][m];
                auto s = t->surface(l, f, m);
                if (img.is_float())
                    memcpy(s.data, img.rgba32f.data(), s.size);
                else
                    memcpy(s.data, img.rgba8.data(), s.size);
            }
    return t;
}

Item with_texture(Item it, std::shared_ptr<const Texture> t) {
    it.texture = std::move(t);
    it.bytes.reset();
    return it;
}

// ---- auto format choice ------------------------------------------------

struct Content {
    bool hdr = false, opaque = true, binary_alpha = true, grey = true, normal_like = true;
};

Content analyse(const Image& img) {
    Content c;
    Image f = img.is_float() ? img : to_float(img);
    size_t n = f.texels();
    double normal_err = 0;
    for (size_t i = 0; i < n; ++i) {
        const float* p = &f.rgba32f[i * 4];
        if (p[0] > 1.0f || p[1] > 1.0f || p[2] > 1.0f || p[0] < 0 || p[1] < 0 || p[2] < 0) c.hdr = true;
        if (p[3] < 0.999f) c.opaque = false;
        if (p[3] > 0.01f && p[3] < 0.99f) c.binary_alpha = false;
        if (std::fabs(p[0] - p[1]) > 0.01f || std::fabs(p[1] - p[2]) > 0.01f) c.grey = false;
        float x = p[0] * 2 - 1, y = p[1] * 2 - 1, z = p[2] * 2 - 1;
        normal_err += std::fabs(std::sqrt(x * x + y * y + z * z) - 1.0f);
    }
    // Tangent-space normal maps: unit-length vectors pointing out of the surface.
    c.normal_like = n > 0 && normal_err / double(n) < 0.05 && !c.grey;
    if (!img.is_float()) c.hdr = false;
    return c;
}

uint32_t auto_format(const Texture& t, const Image& top, const std::string& quality, nlohmann::json& metrics) {
    Content c = analyse(top);
    bool srgb = top.srgb || (t.desc.flags & AF_TEX_SRGB);
    uint32_t fmt;
    std::string why;
    if (c.hdr)
        fmt = FMT_BC6H_UF16, why = "HDR values";
    else if ((t.desc.flags & AF_TEX_NORMAL_MAP) || (c.normal_like && c.opaque))
        fmt = FMT_BC5_UNORM, why = "tangent-space normal map";
    else if (c.grey && c.opaque)
        fmt = FMT_BC4_UNORM, why = "greyscale, opaque";
    else if (c.opaque)
        fmt = quality == "high" || quality == "max" ? (srgb ? FMT_BC7_UNORM_SRGB : FMT_BC7_UNORM)
                                                    : (srgb ? FMT_BC1_UNORM_SRGB : FMT_BC1_UNORM),
        why = "colour, opaque";
    else if (quality == "fast")
        fmt = srgb ? FMT_BC3_UNORM_SRGB : FMT_BC3_UNORM, why = "colour with alpha";
    else
        fmt = srgb ? FMT_BC7_UNORM_SRGB : FMT_BC7_UNORM, why = "colour with alpha";
    metrics["auto_format"] = std::string(format_info(fmt)->name);
    metrics["auto_reason"] = why;
    return fmt;
}

struct Alias {
    const char* name;
    uint32_t linear, srgb;
};
const Alias kFormatAliases[] = {
    {"bc1", FMT_BC1_UNORM, FMT_BC1_UNORM_SRGB},
    {"bc2", FMT_BC2_UNORM, FMT_BC2_UNORM_SRGB},
    {"bc3", FMT_BC3_UNORM, FMT_BC3_UNORM_SRGB},
    {"bc4", FMT_BC4_UNORM, FMT_BC4_UNORM},
    {"bc5", FMT_BC5_UNORM, FMT_BC5_UNORM},
    {"bc6h", FMT_BC6H_UF16, FMT_BC6H_UF16},
    {"bc7", FMT_BC7_UNORM, FMT_BC7_UNORM_SRGB},
    {"rgba8", FMT_R8G8B8A8_UNORM, FMT_R8G8B8A8_UNORM_SRGB},
    {"bgra8", FMT_B8G8R8A8_UNORM, FMT_B8G8R8A8_UNORM_SRGB},
    {"rgba32f", FMT_R32G32B32A32_FLOAT, FMT_R32G32B32A32_FLOAT},
    {"rgba16f", FMT_R16G16B16A16_FLOAT, FMT_R16G16B16A16_FLOAT},
};

uint32_t named_format(const std::string& name, bool srgb) {
    std::string n = name;
    std::transform(n.begin(), n.end(), n.begin(), ::tolower);
    for (const auto& a : kFormatAliases)
        if (n == a.name) return srgb ? a.srgb : a.linear;
    if (const FormatInfo* fi = format_by_name(name)) return fi->id;
    std::string list;
    for (const auto& a : kFormatAliases) list += std::string(list.empty() ? "" : ", ") + a.name;
    throw std::runtime_error("unknown format '" + name + "'; use auto, " + list +
                             " or a DXGI name such as R8G8B8A8_UNORM");
}

double psnr_rgb(const Image& a, const Image& b) {
    Image fa = a.is_float() ? a : to_float(a), fb = b.is_float() ? b : to_float(b);
    if (fa.width != fb.width || fa.height != fb.height) return 0;
    double se = 0;
    size_t n = fa.texels();
    for (size_t i = 0; i < n; ++i)
        for (int c = 0; c < 3; ++c) {
            double d = double(fa.rgba32f[i * 4 + c]) - double(fb.rgba32f[i * 4 + c]);
            se += d * d;
        }
    double mse = se / double(n * 3);
    return mse <= 0 ? 99.0 : 10.0 * std::log10(1.0 / mse);
}

// ---- parameters ----------------------------------------------------------

// `container` of read/write: the name of a loaded container that can.
ParamSpec container_param(const PluginRegistry& reg, uint32_t cap, std::string doc) {
    ParamSpec p = text_param("container", "", std::move(doc));
    for (const auto& pl : reg.plugins())
        for (const auto& c : pl->containers)
            if (c.caps & cap) p.choices.emplace_back(c.name);
    if (!p.choices.empty()) p.type = ParamType::Enum;
    return p;
}

ParamSpec format_param() {
    ParamSpec p = enum_param("format", "auto", {"auto"}, "auto, bc1..bc7, bc6h, rgba8, or a DXGI format name");
    for (const auto& a : kFormatAliases) p.choices.emplace_back(a.name);
    p.ignore_case = true;
    p.also_valid = [](const std::string& v) { return format_by_name(v) != nullptr; };
    p.also_valid_doc = "a DXGI format name such as R8G8B8A8_UNORM";
    return p;
}

// The container `write` will use: named, or by the output's extension as the writer picks it.
PassThrough write_options(const PluginRegistry& reg, const Params& own, std::string ext) {
    std::string container = own.count("container") ? own.at("container") : "";
    std::transform(ext.begin(), ext.end(), ext.begin(), ::tolower);
    if (container.empty() && ext == ".png") {
        container = "png";
    } else if (container.empty() && !ext.empty()) {
        if (auto c = reg.container_for_extension(ext)) container = c.item->name;
    }
    return container_write_options(reg, container);
}

// The codec `encode` will use when the format names one, else every codec's.
PassThrough encode_options(const PluginRegistry& reg, const Params& own) {
    const af_codec* codec = nullptr;
    try {
        const FormatInfo* fi = format_info(named_format(own.at("format"), false));
        if (fi && fi->compressed()) codec = reg.codec_for(fi->id).item;
    } catch (const std::exception&) {
        // "auto" and unknown names: the codec is chosen per texture
    }
    return codec_encode_options(reg, codec);
}

// ---- the steps ---------------------------------------------------------

void add_steps(StepTable& t, const PluginRegistry& reg) {
    const PluginRegistry* r = &reg;
    const std::vector<std::string> filters = {"box", "triangle", "kaiser", "lanczos3", "mitchell", "point"};
    const std::vector<std::string> none;

    t.add({.name = "read",
           .description =
               "reads bytes into a texture through the container that claims them (implicit before texture steps)",
           .params = {container_param(reg, AF_CAN_READ, "force a container by name")},
           .run =
               [r](StepContext& ctx, std::vector<Item> items) {
                   std::vector<Item> out;
                   for (auto& it : items) {
                       if (it.is_texture()) {
                           out.push_back(std::move(it));
                           continue;
                       }
                       auto res = host::read_texture_bytes(*r, it.name, *it.bytes, options_except(ctx.params, {}));
                       use(ctx.tools, r->container_by_name(res.container).plugin);
                       auto tex = std::make_shared<Texture>(std::move(res.texture));
                       for (const auto& [k, v] : tex->meta) it.meta.emplace(k, v);
                       out.push_back(with_texture(std::move(it), std::move(tex)));
                   }
                   return out;
               },
           .pass_through = [r](const Params&, const std::string&) { return container_read_options(*r); },
           .meta_keys = container_meta_keys(reg)});

    t.add({.name = "decode",
           .description = "converts a texture to uncompressed RGBA8 (or RGBA32F for float formats)",
           .params = {enum_param("to", "auto", {"auto", "rgba8", "rgba32f"}, "target pixel type")},
           .takes_texture = true,
           .run =
               [r](StepContext& ctx, std::vector<Item> items) {
                   std::vector<Item> out;
                   for (auto& it : items) {
                       auto tex = need_texture(it);
                       const FormatInfo* fi = format_info(tex->desc.format);
                       if (!fi) throw std::runtime_error("unknown format id " + std::to_string(tex->desc.format));
                       std::string to = ctx.params.at("to");
                       bool as_float = to == "rgba32f" || (to == "auto" && (fi->flags & fmtflag::hdr));
                       bool srgb = fi->srgb() || (tex->desc.flags & AF_TEX_SRGB);
                       uint32_t target = as_float ? FMT_R32G32B32A32_FLOAT
                                         : srgb   ? FMT_R8G8B8A8_UNORM_SRGB
                                                  : FMT_R8G8B8A8_UNORM;
                       if (fi->compressed()) use(ctx.tools, r->codec_for(tex->desc.format).plugin);
                       if (tex->desc.format == target) {
                           out.push_back(std::move(it));
                           continue;
                       }
                       auto conv = std::make_shared<Texture>(host::convert_texture(*r, *tex, target));
                       conv->meta = tex->meta;
                       out.push_back(with_texture(std::move(it), std::move(conv)));
                   }
                   return out;
               },
           .meta_keys = none});

    t.add(
        {.name = "encode",
         .description = "converts to a pixel format; 'auto' picks BC1/BC3/BC4/BC5/BC6H/BC7 from the content",
         .params = {format_param(), enum_param("quality", "normal", {"fast", "normal", "high", "max"}, "codec effort"),
                    bool_param("metrics", "true", "decode the result again and report PSNR of the top level")},
         .takes_texture = true,
         .run =
             [r](StepContext& ctx, std::vector<Item> items) {
                 std::vector<Item> out;
                 for (auto& it : items) {
                     auto tex = need_texture(it);
                     auto tops = top_images(*r, *tex, ctx.tools);
                     const std::string& f = ctx.params.at("format");
                     bool srgb = tops[0].srgb || (tex->desc.flags & AF_TEX_SRGB);
                     uint32_t fmt = f == "auto" ? auto_format(*tex, tops[0], ctx.params.at("quality"), ctx.metrics)
                                                : named_format(f, srgb);
                     if (format_info(fmt)->compressed()) {
                         auto codec = r->codec_for(fmt);
                         if (!codec)
                             throw std::runtime_error("no codec plugin handles " + std::string(format_info(fmt)->name) +
                                                      " (is the bc plugin installed? see 'assetforge plugins')");
                         use(ctx.tools, codec.plugin);
                     }
                     auto opts = options_except(ctx.params, {"format", "metrics"});
                     auto conv = std::make_shared<Texture>(host::convert_texture(*r, *tex, fmt, opts));
                     conv->meta = tex->meta;
                     if (ctx.params.at("metrics") == "true") {
                         Image back = host::decode_surface(*r, *conv, 0, 0, 0);
                         ctx.metrics["psnr_rgb"] = psnr_rgb(tops[0], back);
                     }
                     ctx.metrics["format"] = std::string(format_info(fmt)->name);
                     out.push_back(with_texture(std::move(it), std::move(conv)));
                 }
                 return out;
             },
         .pass_through = [r](const Params& own, const std::string&) { return encode_options(*r, own); },
         .meta_keys = none});

    t.add({.name = "mips",
           .description = "generates the mip chain from the top level",
           .params = {enum_param("filter", "kaiser", filters, "downsampling filter"),
                      enum_param("colorspace", "auto", {"auto", "srgb", "linear"}, "filter sRGB data in linear light"),
                      number_param("alpha_coverage", "", 0, 1,
                                   "keep the fraction of alpha above this reference (0..1) at every level"),
                      bool_param("normal_map", "false", "renormalise texels of a tangent-space normal map"),
                      enum_param("edge", "clamp", {"clamp", "wrap"}, "how the filter treats borders"),
                      int_param("count", "0", 0, 32, "levels to make (0 = full chain)"),
                      int_param("min_size", "1", 1, 1 << 20, "stop before a level whose larger side is below this")},
           .takes_texture = true,
           .run =
               [r](StepContext& ctx, std::vector<Item> items) {
                   const Params& p = ctx.params;
                   MipOptions mo;
                   mo.filter = parse_filter(p.at("filter"));
                   mo.edge = parse_edge(p.at("edge"));
                   mo.normal_map = truthy(p.at("normal_map"));
                   mo.count = parse_uint(p, "count", 0, 32);
                   mo.min_size = parse_uint(p, "min_size", 1, 1u << 20);
                   if (p.count("alpha_coverage")) mo.alpha_coverage_ref = std::stof(p.at("alpha_coverage"));
                   std::vector<Item> out;
                   for (auto& it : items) {
                       auto tex = need_texture(it);
                       std::vector<std::vector<Image>> levels;
                       for (auto img : top_images(*r, *tex, ctx.tools)) {
                           if (p.at("colorspace") == "srgb") img.srgb = true;
                           if (p.at("colorspace") == "linear") img.srgb = false;
                           levels.push_back(generate_mips(img, mo));
                       }
                       auto nt = texture_from_levels(*tex, levels);
                       if (mo.normal_map) nt->desc.flags |= AF_TEX_NORMAL_MAP;
                       out.push_back(with_texture(std::move(it), std::move(nt)));
                   }
                   return out;
               },
           .meta_keys = none});

    t.add({.name = "resize",
           .description = "resizes the top level (later mips are dropped: run mips afterwards)",
           .params = {int_param("width", "0", 0, 65536, "target width (0: from height and aspect)"),
                      int_param("height", "0", 0, 65536, "target height (0: from width and aspect)"),
                      number_param("scale", "", 0, 64, "factor instead of width/height", true),
                      int_param("max_size", "0", 0, 65536, "shrink only, so the larger side is at most this"),
                      enum_param("filter", "kaiser", filters, "resampling filter"),
                      enum_param("edge", "clamp", {"clamp", "wrap"}, "border handling")},
           .takes_texture = true,
           .run =
               [r](StepContext& ctx, std::vector<Item> items) {
                   const Params& p = ctx.params;
                   ResizeOptions ro;
                   ro.filter = parse_filter(p.at("filter"));
                   ro.edge = parse_edge(p.at("edge"));
                   uint32_t w = parse_uint(p, "width", 0, 65536), h = parse_uint(p, "height", 0, 65536);
                   uint32_t maxs = parse_uint(p, "max_size", 0, 65536);
                   std::vector<Item> out;
                   for (auto& it : items) {
                       auto tex = need_texture(it);
                       std::vector<std::vector<Image>> levels;
                       for (auto& img : top_images(*r, *tex, ctx.tools)) {
                           double sw = img.width, sh = img.height;
                           uint32_t tw = w, th = h;
                           if (p.count("scale")) {
                               double s = std::stod(p.at("scale"));
                               if (!(s > 0 && s <= 64)) throw std::runtime_error("resize: scale must be in (0, 64]");
                               tw = uint32_t(std::max(1.0, std::round(sw * s)));
                               th = uint32_t(std::max(1.0, std::round(sh * s)));
                           } else if (maxs) {
                               double s = std::min(1.0, double(maxs) / std::max(sw, sh));
                               tw = uint32_t(std::max(1.0, std::round(sw * s)));
                               th = uint32_t(std::max(1.0, std::round(sh * s)));
                           } else if (!tw && !th) {
                               throw std::runtime_error("resize: give width, height, scale or max_size");
                           } else if (!tw) {
                               tw = uint32_t(std::max(1.0, std::round(sw * th / sh)));
                           } else if (!th) {
                               th = uint32_t(std::max(1.0, std::round(sh * tw / sw)));
                           }
                           levels.push_back({tw == img.width && th == img.height ? img : resize(img, tw, th, ro)});
                       }
                       out.push_back(with_texture(std::move(it), texture_from_levels(*tex, levels)));
                   }
                   return out;
               },
           .meta_keys = none});

    t.add({.name = "channels",
           .description = "rearranges channels: 'map: bgra', 'rrr1' (r g b a, 0 or 1 per output channel)",
           .params = {text_param("map", "rgba", "four letters from r, g, b, a, 0, 1")},
           .takes_texture = true,
           .run =
               [r](StepContext& ctx, std::vector<Item> items) {
                   const std::string& m = ctx.params.at("map");
                   if (m.size() != 4 || m.find_first_not_of("rgba01") != std::string::npos)
                       throw std::runtime_error("channels: map '" + m + "' must be four letters from r, g, b, a, 0, 1");
                   std::vector<Item> out;
                   for (auto& it : items) {
                       auto tex = need_texture(it);
                       std::vector<std::vector<Image>> levels;
                       for (uint32_t l = 0; l < tex->desc.layers; ++l)
                           for (uint32_t f = 0; f < tex->desc.faces; ++f) {
                               std::vector<Image> chain;
                               for (uint32_t mip = 0; mip < tex->desc.mips; ++mip) {
                                   Image img = to_float(host::decode_surface(*r, *tex, l, f, mip));
                                   for (size_t i = 0; i < img.texels(); ++i) {
                                       float in[4], *px = &img.rgba32f[i * 4];
                                       std::copy(px, px + 4, in);
                                       for (int c = 0; c < 4; ++c) {
                                           char s = m[size_t(c)];
                                           px[c] = s == '0' ? 0.f : s == '1' ? 1.f : in[std::string("rgba").find(s)];
                                       }
                                   }
                                   const FormatInfo* fi = format_info(tex->desc.format);
                                   chain.push_back(fi && (fi->flags & fmtflag::hdr) ? img : to_rgba8(img));
                               }
                               levels.push_back(std::move(chain));
                           }
                       out.push_back(with_texture(std::move(it), texture_from_levels(*tex, levels)));
                   }
                   return out;
               },
           .meta_keys = none});

    t.add({.name = "write",
           .description = "chooses the output container (default: by the output's extension) and its options",
           .params = {container_param(reg, AF_CAN_WRITE, "container name, e.g. dds, png, vtf")},
           .takes_texture = true,
           .run =
               [](StepContext& ctx, std::vector<Item> items) {
                   for (auto& it : items) {
                       it.container = ctx.params.count("container") ? ctx.params.at("container") : "";
                       it.write_options = options_except(ctx.params, {"container"});
                   }
                   return items;
               },
           .pass_through = [r](const Params& own,
                               const std::string& output_ext) { return write_options(*r, own, output_ext); },
           .meta_keys = none});

    t.add({.name = "extract",
           .description = "splits a texture into items, one per layer, face or mip ({layer} {face} {mip} in output)",
           .params = {enum_param("what", "surfaces", {"layers", "faces", "mips", "surfaces"}, "what one item holds")},
           .takes_texture = true,
           .run =
               [](StepContext& ctx, std::vector<Item> items) {
                   const std::string& what = ctx.params.at("what");
                   std::vector<Item> out;
                   for (auto& it : items) {
                       auto tex = need_texture(it);
                       const TextureDesc& d = tex->desc;
                       bool by_layer = what != "faces" && what != "mips", by_face = what != "layers" && what != "mips",
                            by_mip = what == "mips" || what == "surfaces";
                       for (uint32_t l = 0; l < (by_layer ? d.layers : 1); ++l)
                           for (uint32_t f = 0; f < (by_face ? d.faces : 1); ++f)
                               for (uint32_t m = 0; m < (by_mip ? d.mips : 1); ++m) {
                                   TextureDesc nd = d;
                                   if (by_layer) nd.layers = 1;
                                   if (by_face) nd.faces = 1, nd.flags &= ~AF_TEX_CUBE;
                                   if (by_mip)
                                       nd.mips = 1, nd.width = mip_extent(d.width, m),
                                       nd.height = mip_extent(d.height, m), nd.depth = mip_extent(d.depth, m);
                                   auto nt = std::make_shared<Texture>(nd);
                                   nt->meta = tex->meta;
                                   for (uint32_t L = 0; L < nd.layers; ++L)
                                       for (uint32_t F = 0; F < nd.faces; ++F)
                                           for (uint32_t M = 0; M < nd.mips; ++M) {
                                               auto src =
                                                   tex->surface(by_layer ? l : L, by_face ? f : F, by_mip ? m : M);
                                               auto dst = nt->surface(L, F, M);
                                               memcpy(dst.data, src.data, dst.size);
                                           }
                                   if (tex->desc.format == FMT_P8 && by_layer)
                                       nt->palette.assign(tex->palette.begin() + l * 1024,
                                                          tex->palette.begin() + (l + 1) * 1024);
                                   Item ni = it;
                                   ni.texture = nt;
                                   if (by_layer) ni.meta["layer"] = std::to_string(l);
                                   if (by_face) ni.meta["face"] = std::to_string(f);
                                   if (by_mip) ni.meta["mip"] = std::to_string(m), ni.meta["level"] = std::to_string(m);
                                   out.push_back(std::move(ni));
                               }
                   }
                   return out;
               },
           .meta_keys = std::vector<std::string>{"layer", "face", "mip", "level"}});
}

} // namespace

void add_texture_steps(StepTable& table, const PluginRegistry& reg) {
    add_steps(table, reg);
    table.keeps_names({"read", "decode", "encode", "mips", "resize", "channels", "write"});
    const PluginRegistry* r = &reg;
    table.reader_meta_keys = container_meta_keys(reg);
    table.reader = [r](const Item& it, std::vector<std::string>& tools) {
        auto res = host::read_texture_bytes(*r, it.name, *it.bytes);
        use(tools, r->container_by_name(res.container).plugin);
        Item out = it;
        auto tex = std::make_shared<Texture>(std::move(res.texture));
        for (const auto& [k, v] : tex->meta) out.meta.emplace(k, v);
        return with_texture(std::move(out), std::move(tex));
    };
    table.writer = [r](const Item& it, const std::filesystem::path& path, std::vector<std::string>& tools) {
        std::string container = it.container;
        if (container.empty()) {
            std::string ext = path.extension().string();
            std::transform(ext.begin(), ext.end(), ext.begin(), ::tolower);
            if (ext == ".png")
                container = "png";
            else if (auto c = r->container_for_extension(ext))
                container = c.item->name;
            else
                throw std::runtime_error("no container writes '" + ext + "' files; add 'write: {container: …}' or " +
                                         "see 'assetforge plugins'");
        }
        use(tools, r->container_by_name(container).plugin);
        return host::encode_texture(*r, container, *it.texture, it.write_options);
    };
}

} // namespace af::engine
