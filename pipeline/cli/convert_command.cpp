// `assetforge convert IN OUT [options]`: the one-off converter modders reach
// for instead of texconv. Any readable input (PNG, DDS, and whatever container
// plugins add) to PNG or to any container that writes (DDS, …).
//
// Choices made here (also in --help):
// - --format auto picks BC6H for float input (BC6H_SF16 when values are
//   negative), BC5 for normal maps (file name ends in _n, _nm, _nrm, _normal or
//   contains "normal", or ≥ 95 % of texels are unit vectors pointing up), BC4
//   for grey opaque images, BC3 for images with alpha (BC3 rather than BC7:
//   every DDS reader and GPU supports it and it encodes fast; ask for bc7 by
//   name), BC1 otherwise. Colour formats get their _SRGB form when the input
//   is sRGB (PNG without gAMA 1.0, or --srgb); normal maps, BC4 and BC6H never.
// - Without --format, PNG input becomes `auto` and other input keeps its format.
// - DDS output gets a full mip chain unless --no-mips; an input that already
//   has mips keeps them unless --mips asks to regenerate from the top level.
// - PNG output is 16-bit for formats with more than 8 bits per channel, float
//   or signed formats; signed values are mapped from -1..1 to 0..1; values
//   above 1 are clamped (with a warning). The sRGB chunk is written for sRGB
//   data, gAMA 1.0 for linear data.
#include "cli/cli_options.hpp"

#include "assetforge/formats.hpp"
#include "assetforge/plugin.hpp"
#include "core/image_ops.hpp"
#include "core/png_io.hpp"
#include "host/host_services.hpp"
#include "host/texture_io.hpp"

#include <tbb/global_control.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>

namespace af::cli {
namespace {

namespace fs = std::filesystem;

enum class Space { Keep, Srgb, Linear };

struct ConvertArgs {
    fs::path in, out;
    std::string format; // "" = default for the input
    std::string quality = "normal";
    std::optional<bool> mips; // --mips / --no-mips
    Space space = Space::Keep;
    std::optional<uint32_t> mip, face, layer;
    bool all_surfaces = false;
    std::string dx10 = "auto";
    bool permissive = false;
    int threads = 0;
    // Image processing (core/image_ops.hpp).
    MipOptions mip_opts;
    bool force_normal_map = false;
    std::optional<std::pair<uint32_t, uint32_t>> resize;
};

std::string lower(std::string s) {
    for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool is_png(const fs::path& p) { return lower(p.extension().string()) == ".png"; }

uint32_t with_srgb(uint32_t fmt, bool srgb) {
    static const std::pair<uint32_t, uint32_t> pairs[] = {
        {FMT_BC1_UNORM, FMT_BC1_UNORM_SRGB},           {FMT_BC2_UNORM, FMT_BC2_UNORM_SRGB},
        {FMT_BC3_UNORM, FMT_BC3_UNORM_SRGB},           {FMT_BC7_UNORM, FMT_BC7_UNORM_SRGB},
        {FMT_R8G8B8A8_UNORM, FMT_R8G8B8A8_UNORM_SRGB}, {FMT_B8G8R8A8_UNORM, FMT_B8G8R8A8_UNORM_SRGB},
        {FMT_B8G8R8X8_UNORM, FMT_B8G8R8X8_UNORM_SRGB},
    };
    for (auto [linear, s] : pairs) {
        if (fmt == linear && srgb) return s;
        if (fmt == s && !srgb) return linear;
    }
    return fmt;
}

// Short names modders type, then any name from the format table.
uint32_t named_format(const std::string& name, bool srgb) {
    static const std::pair<const char*, uint32_t> shorts[] = {
        {"bc1", FMT_BC1_UNORM},        {"dxt1", FMT_BC1_UNORM},       {"bc2", FMT_BC2_UNORM},  {"dxt3", FMT_BC2_UNORM},
        {"bc3", FMT_BC3_UNORM},        {"dxt5", FMT_BC3_UNORM},       {"bc4", FMT_BC4_UNORM},  {"ati1", FMT_BC4_UNORM},
        {"bc5", FMT_BC5_UNORM},        {"ati2", FMT_BC5_UNORM},       {"bc6h", FMT_BC6H_UF16}, {"bc7", FMT_BC7_UNORM},
        {"rgba8", FMT_R8G8B8A8_UNORM}, {"bgra8", FMT_B8G8R8A8_UNORM},
    };
    std::string l = lower(name);
    for (auto [n, f] : shorts)
        if (l == n) return with_srgb(f, srgb);
    if (const FormatInfo* f = format_by_name(name)) return f->id; // a table name is taken literally
    if (l.rfind("dxgi_format_", 0) == 0)
        if (const FormatInfo* f = format_by_name(name.substr(12))) return f->id;
    sdk::usage("unknown --format '" + name +
               "': use bc1, bc2, bc3, bc4, bc5, bc6h, bc7, rgba8, bgra8, auto, keep, or a format-table name such "
               "as BC7_UNORM_SRGB or R16G16B16A16_FLOAT");
}

bool named_like_normal_map(const fs::path& p) {
    std::string s = lower(p.stem().string());
    if (s.find("normal") != std::string::npos) return true;
    for (const char* suffix : {"_n", "_nm", "-nm", "_nrm", "_norm"})
        if (s.size() > std::strlen(suffix) && s.compare(s.size() - std::strlen(suffix), std::string::npos, suffix) == 0)
            return true;
    return false;
}

struct Content {
    bool alpha = false, grey = true, above_one = false, negative = false, unit_vectors = false;
};

Content analyse(const Image& img) {
    Content c;
    uint64_t n = img.texels(), unit = 0;
    double blue = 0;
    for (uint64_t i = 0; i < n; ++i) {
        float r, g, b, a;
        if (img.is_float()) {
            const float* p = &img.rgba32f[i * 4];
            r = p[0], g = p[1], b = p[2], a = p[3];
        } else {
            const uint8_t* p = &img.rgba8[i * 4];
            r = p[0] / 255.f, g = p[1] / 255.f, b = p[2] / 255.f, a = p[3] / 255.f;
        }
        c.alpha |= a < 1.0f;
        c.grey &= std::fabs(r - g) < 1e-6f && std::fabs(g - b) < 1e-6f;
        c.above_one |= r > 1.0f || g > 1.0f || b > 1.0f;
        c.negative |= r < 0.0f || g < 0.0f || b < 0.0f;
        float x = r * 2 - 1, y = g * 2 - 1, z = b * 2 - 1;
        float len = std::sqrt(x * x + y * y + z * z);
        if (len > 0.9f && len < 1.1f && z > -0.01f) ++unit;
        blue += b;
    }
    c.unit_vectors = n && !c.grey && unit >= n * 95 / 100 && blue / double(n) > 0.6;
    return c;
}

// The format `auto` picks, and why (printed with the result).
uint32_t auto_format(const Texture& tex, const Image& top, const fs::path& in, bool srgb, std::string& why) {
    const FormatInfo* f = format_info(tex.desc.format);
    Content c = analyse(top);
    if ((f && (f->flags & fmtflag::hdr)) || c.above_one) {
        why = c.negative ? "float input with negative values" : "float / HDR input";
        return c.negative ? FMT_BC6H_SF16 : FMT_BC6H_UF16;
    }
    if ((tex.desc.flags & AF_TEX_NORMAL_MAP) || named_like_normal_map(in)) {
        why = "normal map (by name)";
        return FMT_BC5_UNORM;
    }
    if (c.unit_vectors) {
        why = "normal map (texels are unit vectors)";
        return FMT_BC5_UNORM;
    }
    if (c.grey && !c.alpha) {
        why = "single channel (grey, opaque)";
        return FMT_BC4_UNORM;
    }
    if (c.alpha) {
        why = "has alpha";
        return with_srgb(FMT_BC3_UNORM, srgb);
    }
    why = "opaque colour";
    return with_srgb(FMT_BC1_UNORM, srgb);
}

bool input_is_srgb(const Texture& t) {
    const FormatInfo* f = format_info(t.desc.format);
    return (f && f->srgb()) || (t.desc.flags & AF_TEX_SRGB);
}

// One surface as a texture of its own (--mip/--face/--layer).
Texture extract_surface(const Texture& t, uint32_t layer, uint32_t face, uint32_t mip) {
    auto range = [](const char* what, uint32_t v, uint32_t n) {
        if (v >= n)
            sdk::fail(AF_ERR_USAGE, AF_NO_OFFSET, sdk::format("--%s %u is out of range: the input has %u", what, v, n));
    };
    range("layer", layer, t.desc.layers);
    range("face", face, t.desc.faces);
    range("mip", mip, t.desc.mips);
    TextureDesc d = t.desc;
    SurfaceRef s = t.surface(layer, face, mip);
    d.width = s.width;
    d.height = s.height;
    d.depth = s.depth;
    d.mips = d.layers = d.faces = 1;
    d.flags &= ~AF_TEX_CUBE;
    Texture out(d);
    std::memcpy(out.data.data(), s.data, s.size);
    if (!t.palette.empty())
        out.palette.assign(t.palette.begin() + size_t(layer) * 1024, t.palette.begin() + size_t(layer + 1) * 1024);
    return out;
}

// Formats whose decoded values span -1..1 (mapped to 0..1 for PNG).
bool signed_format(uint32_t fmt) {
    if (fmt == FMT_BC4_SNORM || fmt == FMT_BC5_SNORM) return true;
    const FormatInfo* f = format_info(fmt);
    if (!f) return false;
    for (const auto& c : f->ch)
        if (c.type == ChannelType::Snorm) return true;
    return false;
}

bool wide_format(uint32_t fmt) {
    const FormatInfo* f = format_info(fmt);
    if (!f) return false;
    if (f->flags & fmtflag::hdr) return true;
    if (fmt == FMT_BC4_SNORM || fmt == FMT_BC5_SNORM) return true;
    for (const auto& c : f->ch)
        if (c.bits > 8 || c.type == ChannelType::Snorm || c.type == ChannelType::Float) return true;
    return false;
}

// Decodes one surface for PNG output: signed data mapped to 0..1, the
// colour-space tag as the data or the user says.
Image png_ready(const host::PluginRegistry& reg, const Texture& t, uint32_t l, uint32_t f, uint32_t m, Space space,
                const host::OptionMap& codec, bool& clamped) {
    Image img = host::decode_surface(reg, t, l, f, m, codec);
    bool snorm = signed_format(t.desc.format);
    if (img.is_float()) {
        for (size_t i = 0; i < img.rgba32f.size(); ++i) {
            float& v = img.rgba32f[i];
            if (snorm && i % 4 != 3) v = v * 0.5f + 0.5f;
            if (v > 1.0f || v < 0.0f) clamped = true;
        }
    }
    if (space == Space::Srgb) img.srgb = true;
    if (space == Space::Linear) img.srgb = false;
    return img;
}

void write_pngs(const host::PluginRegistry& reg, const Texture& t, const ConvertArgs& a, const host::OptionMap& codec) {
    PngWriteOptions po;
    po.bit_depth = wide_format(t.desc.format) ? 16 : 8;
    po.tag_linear = true;
    const FormatInfo* f = format_info(t.desc.format);
    po.drop_alpha = f && !f->has_alpha();
    bool clamped = false;
    if (!a.all_surfaces) {
        Image img = png_ready(reg, t, 0, 0, 0, a.space, codec, clamped);
        write_png_file(a.out, img, po);
        std::printf("%s: %ux%u %s → %s (%d-bit PNG%s)\n", a.in.string().c_str(), img.width, img.height,
                    std::string(f->name).c_str(), a.out.string().c_str(), po.bit_depth,
                    img.srgb ? ", sRGB" : ", linear");
    } else {
        uint32_t n = 0;
        for (uint32_t l = 0; l < t.desc.layers; ++l)
            for (uint32_t fc = 0; fc < t.desc.faces; ++fc)
                for (uint32_t m = 0; m < t.desc.mips; ++m) {
                    Image img = png_ready(reg, t, l, fc, m, a.space, codec, clamped);
                    fs::path p = a.out.parent_path() /
                                 sdk::format("%s_l%u_f%u_m%u.png", a.out.stem().string().c_str(), l, fc, m);
                    write_png_file(p, img, po);
                    ++n;
                }
        std::printf("%s: %u surfaces (%u layers × %u faces × %u mips) → %s_l*_f*_m*.png (%d-bit)\n",
                    a.in.string().c_str(), n, t.desc.layers, t.desc.faces, t.desc.mips,
                    (a.out.parent_path() / a.out.stem()).string().c_str(), po.bit_depth);
    }
    if (clamped) std::fprintf(stderr, "assetforge convert: warning: values outside 0..1 were clamped in the PNG\n");
}

// Decodes the top level of every layer/face and rebuilds the chain with
// af::generate_mips, as an uncompressed texture (RGBA8 or RGBA32F).
Texture regenerate_mips(const host::PluginRegistry& reg, const Texture& t, bool normal_map, bool srgb,
                        const host::OptionMap& codec, MipOptions mo) {
    mo.normal_map = mo.normal_map || normal_map;
    std::vector<std::vector<Image>> chains;
    for (uint32_t l = 0; l < t.desc.layers; ++l)
        for (uint32_t f = 0; f < t.desc.faces; ++f) {
            Image top = host::decode_surface(reg, t, l, f, 0, codec);
            top.srgb = srgb && !normal_map;
            chains.push_back(generate_mips(top, mo));
        }
    const Image& first = chains.front().front();
    TextureDesc d = t.desc;
    d.depth = 1;
    d.flags &= ~AF_TEX_VOLUME;
    d.mips = uint32_t(chains.front().size());
    d.format = first.is_float() ? FMT_R32G32B32A32_FLOAT : (first.srgb ? FMT_R8G8B8A8_UNORM_SRGB : FMT_R8G8B8A8_UNORM);
    Texture out(d);
    size_t i = 0;
    for (uint32_t l = 0; l < d.layers; ++l)
        for (uint32_t f = 0; f < d.faces; ++f, ++i)
            for (uint32_t m = 0; m < d.mips; ++m) {
                const Image& img = chains[i][m];
                SurfaceRef s = out.surface(l, f, m);
                const void* src = img.is_float() ? static_cast<const void*>(img.rgba32f.data()) : img.rgba8.data();
                if (img.is_float() != first.is_float() || s.width != img.width || s.height != img.height)
                    sdk::fail(AF_ERR_INTERNAL, AF_NO_OFFSET, "mip chain shapes differ between faces");
                std::memcpy(s.data, src, s.size);
            }
    return out;
}

// --resize WxH: every layer/face's top level through af::resize; the result
// has one level (mips are rebuilt from it when the output wants them).
Texture resize_texture(const host::PluginRegistry& reg, const Texture& t, uint32_t w, uint32_t h, const ConvertArgs& a,
                       const host::OptionMap& codec) {
    if (t.desc.depth > 1) sdk::unsupported("resizing volume textures");
    ResizeOptions ro = a.mip_opts; // filter, edge, linear light, premultiplied alpha
    std::vector<Image> tops;
    for (uint32_t l = 0; l < t.desc.layers; ++l)
        for (uint32_t f = 0; f < t.desc.faces; ++f) {
            Image top = host::decode_surface(reg, t, l, f, 0, codec);
            if (a.space != Space::Keep) top.srgb = a.space == Space::Srgb;
            tops.push_back(resize(top, w, h, ro));
        }
    TextureDesc d = t.desc;
    d.width = w;
    d.height = h;
    d.mips = 1;
    d.format = tops[0].is_float() ? FMT_R32G32B32A32_FLOAT
                                  : (tops[0].srgb ? FMT_R8G8B8A8_UNORM_SRGB : FMT_R8G8B8A8_UNORM);
    Texture out(d);
    size_t i = 0;
    for (uint32_t l = 0; l < d.layers; ++l)
        for (uint32_t f = 0; f < d.faces; ++f, ++i) {
            SurfaceRef s = out.surface(l, f, 0);
            const Image& img = tops[i];
            if (img.is_float()) std::memcpy(s.data, img.rgba32f.data(), s.size);
            else std::memcpy(s.data, img.rgba8.data(), s.size);
        }
    return out;
}

void write_container(const host::PluginRegistry& reg, const Texture& input, const ConvertArgs& a,
                     const host::OptionMap& codec) {
    bool srgb = a.space == Space::Srgb || (a.space == Space::Keep && input_is_srgb(input));
    std::string fmt_arg = a.format.empty() ? (is_png(a.in) ? "auto" : "keep") : lower(a.format);
    std::string why;
    uint32_t target;
    if (fmt_arg == "keep") {
        target = a.space == Space::Keep ? input.desc.format : with_srgb(input.desc.format, srgb);
        why = "kept";
    } else if (fmt_arg == "auto") {
        Image top = host::decode_surface(reg, input, 0, 0, 0, codec);
        target = auto_format(input, top, a.in, srgb, why);
    } else {
        target = named_format(a.format, srgb);
        why = "requested";
    }
    const FormatInfo* tf = format_info(target);
    bool normal = target == FMT_BC5_UNORM || target == FMT_BC5_SNORM;

    uint32_t full = full_mip_count(input.desc.width, input.desc.height, input.desc.depth);
    bool regenerate = a.mips.value_or(false) || (!a.mips && input.desc.mips == 1 && full > 1);
    if (regenerate && input.desc.depth > 1)
        sdk::unsupported("generating mips for volume textures (use --no-mips, or keep the input's mips)");
    Texture tex = input;
    if (a.mips && !*a.mips && tex.desc.mips > 1) {
        // Keep only the top level of every layer and face.
        TextureDesc d = tex.desc;
        d.mips = 1;
        Texture top(d);
        for (uint32_t l = 0; l < d.layers; ++l)
            for (uint32_t f = 0; f < d.faces; ++f) {
                SurfaceRef s = tex.surface(l, f, 0);
                std::memcpy(top.surface(l, f, 0).data, s.data, s.size);
            }
        top.palette = tex.palette;
        tex = std::move(top);
    } else if (regenerate && full > 1) {
        tex = regenerate_mips(reg, tex, normal || a.force_normal_map, srgb, codec, a.mip_opts);
    }
    if (tex.desc.format != target) tex = host::convert_texture(reg, tex, target, codec);
    tex.desc.flags &= ~AF_TEX_SRGB;
    if (tf->srgb()) tex.desc.flags |= AF_TEX_SRGB;

    host::OptionMap wopts{{"dx10", a.dx10}};
    host::write_texture(reg, a.out, tex, "", wopts);
    std::printf("%s: %ux%u %s → %s: %s (%s), %u mip%s", a.in.string().c_str(), input.desc.width, input.desc.height,
                std::string(format_info(input.desc.format)->name).c_str(), a.out.string().c_str(),
                std::string(tf->name).c_str(), why.c_str(), tex.desc.mips, tex.desc.mips == 1 ? "" : "s");
    if (tex.desc.layers > 1) std::printf(", %u layers", tex.desc.layers);
    if (tex.desc.faces == 6) std::printf(", cube");
    std::printf("\n");
}

int run(Context& ctx, const std::vector<std::string>& args) {
    const std::string usage = "assetforge convert IN OUT [options]";
    po::options_description opts("options");
    opts.add_options()("format", po::value<std::string>(),
                       "bc1|bc2|bc3|bc4|bc5|bc6h|bc7|rgba8|bgra8|auto|keep or a format-table name (DDS output; "
                       "default: auto for PNG input, keep otherwise)")(
        "quality", po::value<std::string>()->default_value("normal"), "encoder effort: fast|normal|high|max")(
        "mips", "generate a full mip chain from the top level (default for DDS output of a single-level input)")(
        "no-mips", "write only the top level")("srgb", "treat the data as sRGB (tags PNGs, picks _SRGB formats)")(
        "linear", "treat the data as linear")("mip", po::value<uint32_t>(), "convert only this mip level")(
        "face", po::value<uint32_t>(), "convert only this cube face (0..5: +X -X +Y -Y +Z -Z)")(
        "layer", po::value<uint32_t>(), "convert only this array layer")(
        "all-surfaces", "PNG output: every layer/face/mip as OUTSTEM_l<L>_f<F>_m<M>.png")(
        "dx10", po::value<std::string>()->default_value("auto"), "DDS header: auto|always|never")(
        "permissive", "read the whole surfaces a truncated input holds")("threads", po::value<int>()->default_value(0),
                                                                         "worker threads (0 = all cores)")(
        "mip-filter", po::value<std::string>(), "mip/resize filter: box|triangle|kaiser|lanczos3|mitchell|point (default kaiser)")(
        "colorspace", po::value<std::string>(), "srgb|linear: how to filter and tag the data (same as --srgb/--linear)")(
        "alpha-coverage", po::value<float>(), "keep the fraction of texels with alpha > REF at every mip level")(
        "normal-map", "treat the input as a normal map (renormalise mips; auto picks BC5)")(
        "wrap", "tiling texture: filters wrap around the edges")("clamp", "filters clamp at the edges (default)")(
        "resize", po::value<std::string>(), "resize the top level to WxH before anything else")(
        "in", po::value<std::string>(), "input file")("out", po::value<std::string>(), "output file");
    po::positional_options_description pos;
    pos.add("in", 1).add("out", 1);
    po::variables_map vm;
    if (auto rc = parse_args(usage, args, opts, pos, vm)) return *rc;
    auto fail_usage = [&](const std::string& msg) {
        std::fprintf(stderr, "assetforge convert: %s\nusage: %s (see --help)\n", msg.c_str(), usage.c_str());
        return kExitUsage;
    };
    if (!vm.count("in") || !vm.count("out")) return fail_usage("needs an input and an output file");
    ConvertArgs a;
    a.in = vm["in"].as<std::string>();
    a.out = vm["out"].as<std::string>();
    if (vm.count("format")) a.format = vm["format"].as<std::string>();
    a.quality = vm["quality"].as<std::string>();
    if (a.quality != "fast" && a.quality != "normal" && a.quality != "high" && a.quality != "max")
        return fail_usage("--quality must be fast, normal, high or max");
    if (vm.count("mips") && vm.count("no-mips")) return fail_usage("--mips and --no-mips exclude each other");
    if (vm.count("mips")) a.mips = true;
    if (vm.count("no-mips")) a.mips = false;
    if (vm.count("srgb") && vm.count("linear")) return fail_usage("--srgb and --linear exclude each other");
    if (vm.count("srgb")) a.space = Space::Srgb;
    if (vm.count("linear")) a.space = Space::Linear;
    if (vm.count("mip")) a.mip = vm["mip"].as<uint32_t>();
    if (vm.count("face")) a.face = vm["face"].as<uint32_t>();
    if (vm.count("layer")) a.layer = vm["layer"].as<uint32_t>();
    a.all_surfaces = vm.count("all-surfaces");
    a.dx10 = vm["dx10"].as<std::string>();
    if (a.dx10 != "auto" && a.dx10 != "always" && a.dx10 != "never")
        return fail_usage("--dx10 must be auto, always or never");
    a.permissive = vm.count("permissive");
    try {
        if (vm.count("mip-filter")) a.mip_opts.filter = parse_filter(vm["mip-filter"].as<std::string>());
    } catch (const sdk::Error& e) {
        return fail_usage(e.what());
    }
    if (vm.count("colorspace")) {
        std::string cs = lower(vm["colorspace"].as<std::string>());
        if (cs != "srgb" && cs != "linear") return fail_usage("--colorspace must be srgb or linear");
        if ((cs == "srgb" && vm.count("linear")) || (cs == "linear" && vm.count("srgb")))
            return fail_usage("--colorspace contradicts --srgb/--linear");
        a.space = cs == "srgb" ? Space::Srgb : Space::Linear;
    }
    if (vm.count("alpha-coverage")) {
        float ref = vm["alpha-coverage"].as<float>();
        if (!(ref >= 0.0f && ref <= 1.0f)) return fail_usage("--alpha-coverage takes a reference alpha in 0..1");
        a.mip_opts.alpha_coverage_ref = ref;
    }
    a.force_normal_map = vm.count("normal-map");
    a.mip_opts.normal_map = a.force_normal_map;
    if (vm.count("wrap") && vm.count("clamp")) return fail_usage("--wrap and --clamp exclude each other");
    if (vm.count("wrap")) a.mip_opts.edge = Edge::Wrap;
    if (vm.count("resize")) {
        unsigned w = 0, h = 0;
        char x = 0, extra = 0;
        std::string r = vm["resize"].as<std::string>();
        if (std::sscanf(r.c_str(), "%u%c%u%c", &w, &x, &h, &extra) != 3 || (x != 'x' && x != 'X') || !w || !h ||
            w > 65536 || h > 65536)
            return fail_usage("--resize takes WxH, e.g. 1024x512");
        a.resize = std::make_pair(uint32_t(w), uint32_t(h));
    }
    a.threads = vm["threads"].as<int>();
    if (a.threads < 0) return fail_usage("--threads must be 0 (all cores) or more");
    bool png_out = is_png(a.out);
    if (png_out && a.format.size() && lower(a.format) != "keep")
        return fail_usage("--format applies to container output (DDS); PNG output is decoded");
    if (png_out && a.mips) return fail_usage("--mips/--no-mips apply to container output; use --mip or --all-surfaces");
    if (!png_out && a.all_surfaces) return fail_usage("--all-surfaces writes PNGs: give an OUT ending in .png");
    if (a.all_surfaces && (a.mip || a.face || a.layer))
        return fail_usage("--all-surfaces writes every surface; drop --mip/--face/--layer");

    std::optional<tbb::global_control> threads;
    if (a.threads > 0) {
        threads.emplace(tbb::global_control::max_allowed_parallelism, size_t(a.threads));
        host::settings().threads = a.threads;
    }
    host::OptionMap codec{{"quality", a.quality}};
    try {
        host::OptionMap ropts;
        if (a.permissive) ropts["permissive"] = "true";
        host::ReadResult r = host::read_texture(ctx.registry, a.in, ropts);
        for (const auto& w : r.warnings)
            std::fprintf(stderr, "assetforge convert: warning: %s: %s%s\n", a.in.string().c_str(),
                         w.offset == AF_NO_OFFSET ? "" : ("offset " + std::to_string(w.offset) + ": ").c_str(),
                         w.message.c_str());
        Texture tex = std::move(r.texture);
        if (a.mip || a.face || a.layer)
            tex = extract_surface(tex, a.layer.value_or(0), a.face.value_or(0), a.mip.value_or(0));
        if (a.force_normal_map) tex.desc.flags |= AF_TEX_NORMAL_MAP;
        if (a.resize) tex = resize_texture(ctx.registry, tex, a.resize->first, a.resize->second, a, codec);
        if (png_out)
            write_pngs(ctx.registry, tex, a, codec);
        else
            write_container(ctx.registry, tex, a, codec);
    } catch (const sdk::Error& e) {
        std::string msg = e.what();
        std::fprintf(stderr, "assetforge convert: %s\n", msg.c_str());
        return e.status() == AF_ERR_USAGE ? kExitUsage : kExitInputFailed;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "assetforge convert: %s: %s\n", a.in.string().c_str(), e.what());
        return kExitInputFailed;
    }
    return kExitOk;
}

RegisterCommand reg{"convert", "Convert a texture: PNG/DDS/… to PNG or DDS (BC1–BC7, mips, sRGB)", run};

} // namespace
} // namespace af::cli
