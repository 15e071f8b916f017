#include "texture/format_names.hpp"
#include "texture/image_diff.hpp"
#include "texture/information_loss.hpp"
#include "texture/levels.hpp"
#include "texture/texture_ops.hpp"

#include "assetforge/plugin.hpp"
#include "host/texture_io.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>

namespace af::texture {
namespace {

// Unsigned data going into a signed format: 0..1 → -1..1, the inverse of
// what decode does, so a normal map edited as a PNG goes back into BC5_SNORM.
Texture unit_to_signed(Ops& ops, const Texture& t) {
    Texture f = host::convert_texture(ops.reg, t, FMT_R32G32B32A32_FLOAT);
    map_channels(reinterpret_cast<float*>(f.data.data()), f.data.size() / sizeof(float), 2.0f, -1.0f);
    return f;
}

// The source's top level, decoded once and analysed once, whichever of the
// choice, the losses and the measure asks first.
struct Top {
    Ops& ops;
    const Texture& t;
    std::optional<Texture> image{};
    std::optional<Content> content_{};
    const Texture& img() {
        if (!image) image = measured_image(ops, t, 0, 0, 0);
        return *image;
    }
    const Content& content() {
        if (!content_) content_ = analyse(img());
        return *content_;
    }
};

void choose_auto(Top& top, const EncodeRequest& req, Encoded& e) {
    const Texture& t = top.t;
    AutoHints h;
    h.quality = req.quality;
    h.srgb = is_srgb(t);
    h.normal_map = t.desc.flags & AF_TEX_NORMAL_MAP;
    h.name = req.name;
    h.grey_in_red = req.grey_in_red;
    const FormatInfo* in_f = format_info(t.desc.format);
    h.float_source = in_f && (in_f->flags & fmtflag::hdr) && !(t.desc.flags & AF_TEX_SRGB);
    h.normal = recognise_normal_map(t, top.content(), req.name, req.normal_map, req.normal_map_why);
    e.normal_map = *h.normal;
    AutoChoice c = choose_format(top.content(), h);
    e.format = c.format;
    e.why = c.why;
}

// `match`: the original's format and mip count. Returns the texture reshaped
// to that count when it differs.
std::optional<Texture> choose_match(Ops& ops, const Texture& t, const EncodeRequest& req, Encoded& e) {
    if (!req.like) sdk::usage("format: match needs the original to match (like: …)");
    check_match_surfaces(t, *req.like, req.name, req.from_set, req.authored_mips);
    e.format = req.like->format;
    e.why = "matches " + req.like->path;
    if (req.authored_mips) {
        check_match_levels(t, *req.like, req.name);
        return std::nullopt; // the levels as drawn, each encoded as it is
    }
    const uint32_t want = std::min(req.like->mips, full_mip_count(t.desc.width, t.desc.height, t.desc.depth));
    if (t.desc.mips > want) return first_levels(t, want);
    if (t.desc.mips == want) return std::nullopt;
    // The original's mips are remade as its data needs: a normal map (by the
    // one rule) as vectors, its alpha as plain data, never as sRGB colour,
    // which would pull X and Y away from 0.5.
    MipRequest m;
    m.options.count = want;
    m.name = req.name;
    m.normal_map = req.normal_map;
    m.normal_map_why = req.normal_map_why;
    TopLevel top;
    Texture out = mips(ops, t, m, &top); // mips reads level 0 only: no copy of the top level first
    e.normal_map = top.verdict;
    return out;
}

const FormatInfo& target_format(Ops& ops, uint32_t format) {
    const FormatInfo* tf = format_info(format);
    if (!tf) sdk::unsupported("format id " + std::to_string(format));
    if (tf->compressed()) {
        auto codec = ops.reg.codec_for(format);
        if (!codec)
            sdk::unsupported("no codec plugin handles " + std::string(tf->name) +
                             " (is the bc plugin installed? see 'assetforge plugins')");
        ops.use(codec.plugin);
    }
    return *tf;
}

Texture convert_to(Ops& ops, const Texture& src, const FormatInfo& tf, OptionMap opts, Quality quality) {
    opts.emplace("quality", std::string(quality_name(quality)));
    const FormatInfo* sf = format_info(src.desc.format);
    if (src.desc.format == tf.id) return src;
    if (tf.is_signed() && sf && !sf->is_signed() && !(sf->flags & fmtflag::hdr))
        return host::convert_texture(ops.reg, unit_to_signed(ops, src), tf.id, opts);
    return host::convert_texture(ops.reg, src, tf.id, opts);
}

// Colour tags of the result: the format's, or the original's under `match`
// (whose meta the writer also keeps, for the original's layout).
void tag_result(Encoded& e, const FormatInfo& tf, const MatchTarget* like) {
    uint32_t& flags = e.texture.desc.flags;
    flags &= ~AF_TEX_SRGB;
    if (tf.srgb()) flags |= AF_TEX_SRGB, flags &= ~AF_TEX_LINEAR;
    if (!like) return;
    flags = (flags & ~(AF_TEX_SRGB | AF_TEX_LINEAR)) | like->flags;
    for (const auto& [k, v] : like->meta) e.texture.meta[k] = v;
}

// The one rule's verdict for the loss check, asked whichever route ran: a
// `match` that keeps the mip count or a named format asks it here (it used to
// be asked only when mips were made, so a 1-mip BC5 original was "not a normal
// map" while `info --normal-map` said it was). Under `match` the original
// counts too (read only where the verdict matters: a format storing X and Y
// only): what the game uses as a normal map is one, edited or not.
bool is_normal_map(Top& top, const EncodeRequest& req, const FormatInfo& tf, Encoded& e) {
    if (e.normal_map) return e.normal_map->yes;
    NormalMapVerdict v = normal_map_of(top.ops, top.t, req.name, req.normal_map, req.normal_map_why, &top.content());
    const bool matters = std::popcount(stored_colour(tf)) == 2; // blue dropped or rebuilt by the shader
    if (!v.yes && req.like && req.normal_map == NormalMapMode::Auto && matters) {
        const NormalMapVerdict original = normal_map_of(top.ops, req.like->texture, req.like->path);
        if (original.yes) v = {true, "the original " + req.like->path + " is one (" + original.rule + ")"};
    }
    if (req.format.mode == EncodeMode::Match && (v.yes || matters)) e.normal_map = v; // reported where it counts
    return v.yes;
}

// The depth the losses are counted from. Under `match`, no deeper than the
// original: a signed or float original exports as a 16-bit PNG, and storing
// an edit of it back in the original's own format loses nothing the game had.
const FormatInfo* loss_baseline(const Texture& t, const EncodeRequest& req) {
    const FormatInfo* from = format_info(t.desc.format);
    const FormatInfo* original = req.like ? format_info(req.like->format) : nullptr;
    return from && original && precision(*original) < precision(*from) ? original : from;
}

// Under `match`, HDR the original held that the input lacks: an edit of its
// PNG export, which clipped at 1, bakes the clip in when stored back.
std::string hdr_lost(Top& top, const EncodeRequest& req) {
    const FormatInfo* of = req.like ? format_info(req.like->format) : nullptr;
    if (!of || !(of->flags & fmtflag::hdr) || top.content().above_one || top.content().negative) return "";
    const Texture original = measured_image(top.ops, req.like->texture, 0, 0, 0);
    const std::string clip = values_clipped({original.surface(0, 0, 0).stacked()}, "the input");
    return clip.empty() ? "" : "the original " + req.like->path + " holds HDR the input lacks: " + clip;
}

// PSNR of the top level over the colour channels the format stores (a drop
// is a loss, reported as one, not the encode's error); 99 when identical.
// With alpha in the source, also the figure weighted by it (colour under transparent texels not counted).
void measure(Top& top, const Texture& src, bool reshaped, const FormatInfo& tf, Encoded& e) {
    const Texture back = measured_image(top.ops, e.texture, 0, 0, 0);
    const DiffOptions opt{.ssim = false, .psnr_channels = stored_colour(tf)};
    ImageDiff d;
    const ImageView s = src.surface(0, 0, 0).stacked();
    if (s.is_rgba()) { // the source's own bytes, no copy
        d = diff_images(s, back.surface(0, 0, 0), opt);
    } else if (reshaped) {
        d = diff_images(measured_image(top.ops, src, 0, 0, 0).surface(0, 0, 0), back.surface(0, 0, 0), opt);
    } else {
        d = diff_images(top.img().surface(0, 0, 0), back.surface(0, 0, 0), opt);
    }
    e.psnr_rgb = d.psnr_rgb.value_or(99.0);
    if (d.has_alpha) e.psnr_rgb_alpha_weighted = d.psnr_rgb_alpha_weighted.value_or(99.0);
}

} // namespace

EncodeFormat parse_encode_format(std::string_view text) {
    std::string word(text);
    std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (word == "auto") return {EncodeMode::Auto, {}};
    if (word == "match") return {EncodeMode::Match, {}};
    if (word == "keep") return {EncodeMode::Keep, {}};
    return {EncodeMode::Named, named_format(text)};
}

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
    Top top{ops, t};
    if (req.known_top && req.known_top->describes(t)) top.content_ = req.known_top->content;
    Encoded e;
    std::optional<Texture> reshaped; // when `match` changes the mip count
    switch (req.format.mode) {
    case EncodeMode::Auto:
        choose_auto(top, req, e);
        break;
    case EncodeMode::Match:
        reshaped = choose_match(ops, t, req, e);
        break;
    case EncodeMode::Keep:
        e.format = t.desc.format;
        e.why = "kept";
        break;
    case EncodeMode::Named:
        e.format = req.format.named.for_data(is_srgb(t));
        e.why = "requested";
        break;
    }
    const Texture& src = reshaped ? *reshaped : t;
    const FormatInfo& tf = target_format(ops, e.format);
    e.texture = convert_to(ops, src, tf, req.codec_options, req.quality);
    e.texture.meta = src.meta;
    if (e.format != t.desc.format) {
        const bool normal = ((t.desc.flags | src.desc.flags) & AF_TEX_NORMAL_MAP) || is_normal_map(top, req, tf, e);
        e.losses = information_lost(top.content(), loss_baseline(t, req), tf, normal);
        if (std::string l = hdr_lost(top, req); !l.empty()) e.losses.push_back(std::move(l));
    }
    tag_result(e, tf, req.like);
    if (req.measure) measure(top, src, reshaped.has_value(), tf, e);
    return e;
}

} // namespace af::texture
