#include "texture/format_names.hpp"
#include "texture/information_loss.hpp"
#include "texture/levels.hpp"
#include "texture/texture_ops.hpp"

#include "assetforge/plugin.hpp"
#include "host/texture_io.hpp"

#include <cmath>
#include <cstring>

namespace af::texture {
namespace {

// Stored texels of one surface, 8-bit or float, without a copy: comparing a
// 4096² texture through float copies would need 512 MB.
struct Texels {
    const uint8_t* u8 = nullptr;
    const float* f = nullptr;
    size_t count = 0;
    float operator[](size_t i) const { return f ? f[i] : u8[i] * (1.0f / 255.0f); }
};

Texels texels_of(const Image& img) {
    return img.is_float() ? Texels{nullptr, img.rgba32f.data(), img.texels()}
                          : Texels{img.rgba8.data(), nullptr, img.texels()};
}

// PSNR over the first `channels` of R, G, B: the colour channels the encoded
// format stores. BC5 keeps R and G (a normal map's X and Y; blue decodes to
// 0 and is rebuilt by the shader), BC4 and one-channel formats keep R:
// counting a channel the format drops would report the drop, not the encode.
double psnr_rgb(const Texels& a, const Texels& b, size_t channels) {
    if (a.count != b.count) return 0;
    double se = 0;
    for (size_t i = 0; i < a.count; ++i)
        for (size_t c = 0; c < channels; ++c) {
            double d = double(a[i * 4 + c]) - double(b[i * 4 + c]);
            se += d * d;
        }
    const double mse = se / double(a.count * channels);
    return mse <= 0 ? 99.0 : 10.0 * std::log10(1.0 / mse);
}

// Unsigned data going into a signed format: 0..1 → -1..1, the inverse of
// what decode does, so a normal map edited as a PNG goes back into BC5_SNORM.
Texture unit_to_signed(Ops& ops, const Texture& t) {
    Texture f = host::convert_texture(ops.reg, t, FMT_R32G32B32A32_FLOAT);
    map_colour(reinterpret_cast<float*>(f.data.data()), f.data.size() / sizeof(float), 2.0f, -1.0f);
    return f;
}

} // namespace

MatchTarget read_match_target(Ops& ops, const std::string& path) {
    host::ReadResult r = host::read_texture(ops.reg, path);
    ops.use(ops.reg.container_by_name(r.container).plugin);
    MatchTarget m;
    m.format = r.texture.desc.format;
    m.mips = r.texture.desc.mips;
    m.flags = r.texture.desc.flags & (AF_TEX_SRGB | AF_TEX_LINEAR);
    m.meta = r.texture.meta;
    m.path = path;
    m.texture = std::move(r.texture);
    return m;
}

Encoded encode(Ops& ops, const Texture& t, const EncodeRequest& req) {
    const bool srgb = is_srgb(t);
    std::optional<Image> top;
    auto top_image = [&]() -> const Image& {
        if (!top) top = surface_image(ops, t, 0, 0, 0);
        return *top;
    };
    std::optional<Content> content;
    auto top_content = [&]() -> const Content& {
        if (!content) content = analyse(top_image());
        return *content;
    };

    Encoded e;
    const Texture* src = &t;
    std::optional<Texture> reshaped; // when `match` changes the mip count
    if (req.format == "auto") {
        AutoHints h;
        h.quality = req.quality;
        h.srgb = srgb;
        h.normal_map = t.desc.flags & AF_TEX_NORMAL_MAP;
        h.name = req.name;
        h.grey_in_red = req.grey_in_red;
        const FormatInfo* in_f = format_info(t.desc.format);
        h.float_source = in_f && (in_f->flags & fmtflag::hdr) && !(t.desc.flags & AF_TEX_SRGB);
        const Content& content = top_content();
        h.normal = recognise_normal_map(t, content, req.name, req.normal_map, req.normal_map_why);
        e.normal_map = verdict_text(*h.normal);
        AutoChoice c = choose_format(content, h);
        e.format = c.format;
        e.why = c.why;
    } else if (req.format == "match") {
        if (!req.like) sdk::usage("format: match needs the original to match (like: …)");
        e.format = req.like->format;
        e.why = "matches " + req.like->path;
        const uint32_t want = std::min(req.like->mips, full_mip_count(t.desc.width, t.desc.height, t.desc.depth));
        if (t.desc.mips > want) {
            reshaped = first_levels(t, want);
        } else if (t.desc.mips < want) {
            // The original's mips are remade as its data needs: a normal map
            // (by the one rule) as vectors, its alpha as plain data, never as
            // sRGB colour, which would pull X and Y away from 0.5.
            MipRequest m;
            m.options.count = want;
            m.name = req.name;
            m.normal_map = req.normal_map;
            m.normal_map_why = req.normal_map_why;
            NormalMapVerdict v;
            reshaped = mips(ops, top_level(t), m, &v);
            e.normal_map = verdict_text(v);
        }
        if (reshaped) src = &*reshaped;
    } else if (req.format == "keep") {
        e.format = t.desc.format;
        e.why = "kept";
    } else {
        e.format = format_from_name(req.format, srgb);
        e.why = "requested";
    }

    const FormatInfo* tf = format_info(e.format);
    if (!tf) sdk::unsupported("format id " + std::to_string(e.format));
    if (tf->compressed()) {
        auto codec = ops.reg.codec_for(e.format);
        if (!codec)
            sdk::unsupported("no codec plugin handles " + std::string(tf->name) +
                             " (is the bc plugin installed? see 'assetforge plugins')");
        ops.use(codec.plugin);
    }
    OptionMap opts = req.codec_options;
    opts.emplace("quality", std::string(quality_name(req.quality)));
    const FormatInfo* sf = format_info(src->desc.format);
    if (src->desc.format == e.format) {
        e.texture = *src;
    } else if (tf->is_signed() && sf && !sf->is_signed() && !(sf->flags & fmtflag::hdr)) {
        e.texture = host::convert_texture(ops.reg, unit_to_signed(ops, *src), e.format, opts);
    } else {
        e.texture = host::convert_texture(ops.reg, *src, e.format, opts);
    }
    e.texture.meta = src->meta;
    if (e.format != t.desc.format) {
        const bool normal = ((t.desc.flags | src->desc.flags) & AF_TEX_NORMAL_MAP) || e.normal_map.rfind("yes", 0) == 0;
        e.losses = information_lost(top_content(), format_info(t.desc.format), *tf, normal);
    }
    uint32_t& flags = e.texture.desc.flags;
    flags &= ~AF_TEX_SRGB;
    if (tf->srgb()) flags |= AF_TEX_SRGB, flags &= ~AF_TEX_LINEAR;
    if (req.like) {
        flags = (flags & ~(AF_TEX_SRGB | AF_TEX_LINEAR)) | req.like->flags;
        for (const auto& [k, v] : req.like->meta) e.texture.meta[k] = v; // the writer keeps the original's layout
    }
    if (req.measure) {
        const Image back = surface_image(ops, e.texture, 0, 0, 0);
        const size_t channels = stored_colour_channels(*tf);
        if (with_srgb(src->desc.format, false) == FMT_R8G8B8A8_UNORM) { // the source's own bytes, no copy
            SurfaceRef s = src->surface(0, 0, 0);
            e.psnr_rgb = psnr_rgb(Texels{s.data, nullptr, size_t(s.width) * s.height}, texels_of(back), channels);
        } else {
            e.psnr_rgb = psnr_rgb(texels_of(reshaped ? surface_image(ops, *src, 0, 0, 0) : top_image()),
                                  texels_of(back), channels);
        }
    }
    return e;
}

} // namespace af::texture
