// The texture steps: parameter parsing around the texture operations
// (texture/texture_ops.hpp), which `convert` calls too.
#include "steps/texture_steps.hpp"

#include "assetforge/formats.hpp"
#include "base/glob.hpp"
#include "base/output_template.hpp"
#include "host/declared_dims.hpp"
#include "host/texture_io.hpp"
#include "steps/action_notes.hpp"
#include "steps/plugin_params.hpp"
#include "texture/format_names.hpp"
#include "texture/information_loss.hpp"
#include "texture/levels.hpp"
#include "texture/texture_ops.hpp"
#include "texture/unedited_export.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <fstream>
#include <stdexcept>

namespace af::engine {

namespace {

using host::PluginRegistry;
namespace tx = af::texture;

std::string lower_ext(const std::filesystem::path& p) {
    std::string ext = p.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), ::tolower);
    return ext;
}

void use(std::vector<std::string>& tools, const host::LoadedPlugin* p) {
    if (p) tools.push_back(plugin_identity(*p));
}

// Texture operations for one step run; the plugins they used go into the action's tools.
struct StepOps {
    tx::Ops ops;
    std::vector<std::string>& tools;
    StepOps(const PluginRegistry& reg, std::vector<std::string>& t) : ops{reg}, tools(t) {}
    ~StepOps() {
        for (auto* p : ops.used) use(tools, p);
    }
};

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

const Texture& need_texture(const Item& it) {
    if (!it.texture) throw std::runtime_error("expected a texture item");
    return *it.texture;
}

Item with_texture(Item it, Texture t) {
    it.texture = std::make_shared<const Texture>(std::move(t));
    it.bytes.reset();
    return it;
}

// Applies `op` to every item's texture.
template <class Op> std::vector<Item> each(std::vector<Item> items, Op op) {
    std::vector<Item> out;
    out.reserve(items.size());
    for (auto& it : items) out.push_back(with_texture(it, op(it, need_texture(it))));
    return out;
}

tx::ColourTag colour_tag(const std::string& v) {
    return v == "srgb" ? tx::ColourTag::Srgb : v == "linear" ? tx::ColourTag::Linear : tx::ColourTag::Keep;
}

// `like`: a path or a template over the item's name ("orig/{dir}/{stem}.dds").
std::string like_path(const std::string& like, const Item& it, const std::filesystem::path& base) {
    std::filesystem::path p =
        like.find('{') == std::string::npos
            ? std::filesystem::path(like)
            : std::filesystem::path(OutputTemplate::parse(like).expand(template_values(it.name, it.meta, "")));
    if (p.is_relative()) p = base / p;
    return p.lexically_normal().string();
}

// `normal_maps` patterns (the step's own or the job's): the user's yes or no
// for this item, or auto.
tx::NormalMapOverride normal_map_override(const Params& p, const Item& it) {
    auto n = p.find("normal_maps");
    if (n == p.end() || n->second.empty()) return {};
    return tx::normal_map_override(tx::split_patterns(n->second), it.name, &glob_match);
}

// What the encode discarded, as the build's warnings (printed, and carried
// into every report).
void add_warnings(nlohmann::json& metrics, const std::vector<std::string>& lines) {
    for (const auto& l : lines) metrics["warnings"].push_back(l);
}

// A container whose writer takes a `format` option (XTF, VTF) encodes to a
// format of its own choosing.
bool picks_own_format(const af_container* c) {
    if (!c || c->struct_size < offsetof(af_container, write_option_count) + sizeof(uint32_t)) return false;
    for (uint32_t i = 0; i < c->write_option_count; ++i)
        if (c->write_options[i] && std::string_view(c->write_options[i]->name) == "format") return true;
    return false;
}

// ---- parameters ----------------------------------------------------------

ParamSpec normal_maps_param() {
    ParamSpec p = text_param("normal_maps", "",
                             "patterns of item names that are normal maps (\"!pattern\": are not); the last match "
                             "decides over the name and texel rule (also a job key)");
    p.type = ParamType::List;
    return p;
}

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
    ParamSpec p = enum_param("format", "auto", {"auto", "match"},
                             "auto (docs/auto-format.md), match (the original named by `like`), a short name "
                             "(bc1…bc7, dxt1/3/5, ati1/ati2, rgba8, …), a VTF name or a format-table name");
    for (const auto& n : tx::short_format_names()) p.choices.push_back(n);
    p.ignore_case = true;
    p.also_valid = [](const std::string& v) { return tx::parse_format_name(v, false).has_value(); };
    p.also_valid_doc = "a VTF name such as BGRA8888 or a format-table name such as BC7_UNORM_SRGB";
    return p;
}

// The container `write` will use: named, or by the output's extension as the writer picks it.
PassThrough write_options(const PluginRegistry& reg, const Params& own, const std::string& ext) {
    const std::string named = own.count("container") ? own.at("container") : "";
    auto c = host::output_container(reg, named, ext);
    return container_write_options(reg, named.empty() && c ? c.item->name : named);
}

// The codec `encode` will use when the format names one, else every codec's.
PassThrough encode_options(const PluginRegistry& reg, const Params& own) {
    const af_codec* codec = nullptr;
    if (auto f = tx::parse_format_name(own.at("format"), false))
        if (const FormatInfo* fi = format_info(*f); fi && fi->compressed()) codec = reg.codec_for(fi->id).item;
    return codec_encode_options(reg, codec);
}

const std::vector<std::string> kFilters = {"box", "triangle", "kaiser", "lanczos3", "mitchell", "point"};

// ---- the steps ---------------------------------------------------------

StepDef read_step(const PluginRegistry& reg) {
    const PluginRegistry* r = &reg;
    return {.name = "read",
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
                        for (const auto& [k, v] : res.texture.meta) it.meta.emplace(k, v);
                        out.push_back(with_texture(std::move(it), std::move(res.texture)));
                    }
                    return out;
                },
            .pass_through = [r](const Params&, const std::string&) { return container_read_options(*r); },
            .meta_keys = container_meta_keys(reg)};
}

StepDef decode_step(const PluginRegistry& reg) {
    const PluginRegistry* r = &reg;
    return {.name = "decode",
            .description = "converts a texture to RGBA8, or RGBA32F for formats with more range (signed data mapped "
                           "to 0..1)",
            .params = {enum_param("to", "auto", {"auto", "rgba8", "rgba32f"}, "target pixel type")},
            .takes_texture = true,
            .run =
                [r](StepContext& ctx, std::vector<Item> items) {
                    StepOps so(*r, ctx.tools);
                    const std::string& to = ctx.params.at("to");
                    auto target = to == "rgba8"     ? tx::DecodeTo::Rgba8
                                  : to == "rgba32f" ? tx::DecodeTo::Rgba32f
                                                    : tx::DecodeTo::Auto;
                    return each(std::move(items), [&](const Item&, const Texture& t) {
                        tx::Decoded d = tx::decode(so.ops, t, target);
                        if (!d.note.empty()) ctx.metrics["note"] = d.note;
                        return std::move(d.texture);
                    });
                },
            .meta_keys = std::vector<std::string>{}};
}

// The request's normal-map say for one item: the job's pattern, else the
// rule a `mips` step of this action already reported (a name token, the
// texels), not "marked".
void normal_map_say(tx::EncodeRequest& req, const StepContext& ctx, const Item& it, const Texture& t) {
    const tx::NormalMapOverride says = normal_map_override(ctx.params, it);
    req.normal_map = says.mode;
    req.normal_map_why = says.why;
    if (says.mode != tx::NormalMapMode::Auto || !ctx.metrics.contains("normal_map") ||
        !ctx.metrics["normal_map"].is_string())
        return;
    const std::string before = ctx.metrics["normal_map"].get<std::string>();
    if (before.rfind("yes: ", 0) == 0 && (t.desc.flags & AF_TEX_NORMAL_MAP))
        req.normal_map = tx::NormalMapMode::Yes, req.normal_map_why = before.substr(5);
}

// `unedited: original`: the original's own bytes, nothing edited and nothing lost to a new encode.
Item original_bytes(Item it, const std::string& original, const tx::MatchTarget& target, StepContext& ctx) {
    std::ifstream in(original, std::ios::binary);
    auto bytes =
        std::make_shared<std::vector<uint8_t>>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) throw std::runtime_error(original + ": cannot read");
    ctx.metrics["format"] = std::string(format_info(target.format)->name);
    ctx.metrics["format_reason"] = "unedited: the original's bytes";
    it.texture.reset();
    it.bytes = std::move(bytes);
    return it;
}

tx::EncodeRequest encode_request(const Params& p) {
    tx::EncodeRequest req;
    req.format = tx::parse_encode_format(p.at("format"));
    req.quality = tx::parse_quality(p.at("quality"));
    req.grey_in_red = p.at("grey") == "red";
    req.measure = p.at("metrics") == "true";
    req.codec_options = options_except(p, {"format", "metrics", "like", "grey", "quality", "unedited", "normal_maps"});
    return req;
}

std::vector<Item> run_encode(const PluginRegistry& reg, StepContext& ctx, std::vector<Item> items) {
    StepOps so(reg, ctx.tools);
    tx::EncodeRequest req = encode_request(ctx.params);
    const bool match = req.format.mode == tx::EncodeMode::Match;
    const std::string like = ctx.params.count("like") ? ctx.params.at("like") : "";
    if (match && like.empty()) throw std::runtime_error("encode: format: match needs `like:` naming the original");
    const bool keep_unedited = ctx.params.count("unedited") && ctx.params.at("unedited") == "original";
    if (keep_unedited && like.empty())
        throw std::runtime_error("encode: unedited: original needs `like:` naming the original");
    std::vector<Item> out;
    for (auto& it : items) {
        const Texture& t = need_texture(it);
        req.name = it.name;
        normal_map_say(req, ctx, it, t);
        std::optional<tx::MatchTarget> target;
        const std::string original = like.empty() ? "" : like_path(like, it, ctx.base_dir);
        if (match || keep_unedited) target = tx::read_match_target(so.ops, original);
        if (keep_unedited && tx::unedited_export(so.ops, t, target->texture)) {
            out.push_back(original_bytes(std::move(it), original, *target, ctx));
            continue;
        }
        req.like = match ? &*target : nullptr;
        tx::Encoded e = tx::encode(so.ops, t, req);
        ctx.metrics["format"] = std::string(format_info(e.format)->name);
        ctx.metrics["format_reason"] = e.why;
        if (!e.normal_map.empty()) ctx.metrics["normal_map"] = e.normal_map;
        add_warnings(ctx.metrics, e.losses);
        if (e.psnr_rgb) ctx.metrics["psnr_rgb"] = *e.psnr_rgb;
        if (e.psnr_rgb_alpha_weighted) ctx.metrics["psnr_rgb_alpha_weighted"] = *e.psnr_rgb_alpha_weighted;
        out.push_back(with_texture(it, std::move(e.texture)));
    }
    return out;
}

StepDef encode_step(const PluginRegistry& reg) {
    const PluginRegistry* r = &reg;
    ParamSpec like = text_param("like", "",
                                "format: match reads the original here: a path or a template over the input's name, "
                                "e.g. \"original/{dir}/{stem}.dds\"");
    like.type = ParamType::File;
    return {.name = "encode",
            .description =
                "converts to a pixel format; 'auto' picks by content (docs/auto-format.md), 'match' copies an "
                "original's format, mip count and header kind",
            .params = {format_param(),
                       enum_param("quality", "normal", {"fast", "normal", "high", "max"}, "codec effort"), like,
                       enum_param("grey", "rgb", {"rgb", "red"},
                                  "red: the shader reads greyscale data from red alone, so auto may store it as BC4"),
                       bool_param("metrics", "true", "decode the result again and report PSNR of the top level"),
                       enum_param("unedited", "encode", {"encode", "original"},
                                  "original: an input still exactly as exporting the `like` original made it "
                                  "(not edited) gives the original's bytes, not a new encode"),
                       normal_maps_param()},
            .takes_texture = true,
            .run = [r](StepContext& ctx, std::vector<Item> items) { return run_encode(*r, ctx, std::move(items)); },
            .pass_through = [r](const Params& own, const std::string&) { return encode_options(*r, own); },
            .meta_keys = std::vector<std::string>{}};
}

ParamSpec normal_map_param() {
    ParamSpec p = enum_param("normal_map", "auto", {"auto", "true", "false"},
                             "filter as tangent-space normals (renormalised); auto: the texture's flag, a "
                             "`normal_maps` pattern, a name token (norm, normal, nrm, nmap, _n, _nm) or the texels "
                             "(docs/auto-format.md)");
    p.ignore_case = true;
    return p;
}

MipOptions mip_options(const Params& p) {
    MipOptions mo;
    mo.filter = parse_filter(p.at("filter"));
    mo.edge = parse_edge(p.at("edge"));
    mo.count = parse_uint(p, "count", 0, 32);
    mo.min_size = parse_uint(p, "min_size", 1, 1u << 20);
    if (p.count("alpha_coverage")) mo.alpha_coverage_ref = std::stof(p.at("alpha_coverage"));
    return mo;
}

StepDef mips_step(const PluginRegistry& reg) {
    const PluginRegistry* r = &reg;
    return {.name = "mips",
            .description = "generates the mip chain from the top level",
            .params = {enum_param("filter", "kaiser", kFilters, "downsampling filter"),
                       enum_param("colorspace", "auto", {"auto", "srgb", "linear"},
                                  "auto: as the data is tagged; sRGB data is filtered in linear light"),
                       number_param("alpha_coverage", "", 0, 1,
                                    "keep the fraction of alpha above this reference (0..1) at every level"),
                       normal_map_param(),
                       enum_param("edge", "clamp", {"clamp", "wrap"}, "how the filter treats borders"),
                       int_param("count", "0", 0, 32, "levels to make (0 = full chain)"),
                       int_param("min_size", "1", 1, 1 << 20, "stop before a level whose larger side is below this"),
                       normal_maps_param()},
            .takes_texture = true,
            .run =
                [r](StepContext& ctx, std::vector<Item> items) {
                    StepOps so(*r, ctx.tools);
                    const Params& p = ctx.params;
                    tx::MipRequest req;
                    req.options = mip_options(p);
                    const std::string& nm = p.at("normal_map");
                    req.normal_map = nm == "auto" ? tx::NormalMapMode::Auto
                                     : truthy(nm) ? tx::NormalMapMode::Yes
                                                  : tx::NormalMapMode::No;
                    req.colour = colour_tag(p.at("colorspace"));
                    return each(std::move(items), [&](const Item& it, const Texture& t) {
                        tx::MipRequest one = req;
                        one.name = it.name;
                        if (req.normal_map == tx::NormalMapMode::Auto) {
                            const tx::NormalMapOverride says = normal_map_override(p, it);
                            one.normal_map = says.mode;
                            one.normal_map_why = says.why;
                        }
                        tx::NormalMapVerdict v;
                        Texture out = tx::mips(so.ops, t, one, &v);
                        ctx.metrics["normal_map"] = tx::verdict_text(v);
                        return out;
                    });
                },
            .meta_keys = std::vector<std::string>{}};
}

StepDef resize_step(const PluginRegistry& reg) {
    const PluginRegistry* r = &reg;
    return {.name = "resize",
            .description = "resizes the top level (later mips are dropped: run mips afterwards)",
            .params = {int_param("width", "0", 0, 65536, "target width (0: from height and aspect)"),
                       int_param("height", "0", 0, 65536, "target height (0: from width and aspect)"),
                       number_param("scale", "", 0, 64, "factor instead of width/height", true),
                       int_param("max_size", "0", 0, 65536, "shrink only, so the larger side is at most this"),
                       enum_param("filter", "kaiser", kFilters, "resampling filter"),
                       enum_param("edge", "clamp", {"clamp", "wrap"}, "border handling")},
            .takes_texture = true,
            .run =
                [r](StepContext& ctx, std::vector<Item> items) {
                    StepOps so(*r, ctx.tools);
                    const Params& p = ctx.params;
                    ResizeOptions ro;
                    ro.filter = parse_filter(p.at("filter"));
                    ro.edge = parse_edge(p.at("edge"));
                    uint32_t w = parse_uint(p, "width", 0, 65536), h = parse_uint(p, "height", 0, 65536);
                    uint32_t maxs = parse_uint(p, "max_size", 0, 65536);
                    return each(std::move(items), [&](const Item&, const Texture& t) {
                        double sw = t.desc.width, sh = t.desc.height;
                        uint32_t tw = w, th = h;
                        auto scaled = [&](double s) {
                            tw = uint32_t(std::max(1.0, std::round(sw * s)));
                            th = uint32_t(std::max(1.0, std::round(sh * s)));
                        };
                        if (p.count("scale")) {
                            scaled(std::stod(p.at("scale")));
                        } else if (maxs) {
                            scaled(std::min(1.0, double(maxs) / std::max(sw, sh)));
                        } else if (!tw && !th) {
                            throw std::runtime_error("resize: give width, height, scale or max_size");
                        } else if (!tw) {
                            tw = uint32_t(std::max(1.0, std::round(sw * th / sh)));
                        } else if (!th) {
                            th = uint32_t(std::max(1.0, std::round(sh * tw / sw)));
                        }
                        return tx::resize(so.ops, t, tw, th, ro);
                    });
                },
            .meta_keys = std::vector<std::string>{}};
}

StepDef channels_step(const PluginRegistry& reg) {
    const PluginRegistry* r = &reg;
    return {.name = "channels",
            .description = "rearranges channels: 'map: bgra', 'rrr1' (r g b a, 0 or 1 per output channel)",
            .params = {text_param("map", "rgba", "four letters from r, g, b, a, 0, 1")},
            .takes_texture = true,
            .run =
                [r](StepContext& ctx, std::vector<Item> items) {
                    StepOps so(*r, ctx.tools);
                    const std::string& m = ctx.params.at("map");
                    return each(std::move(items),
                                [&](const Item&, const Texture& t) { return tx::channels(so.ops, t, m); });
                },
            .meta_keys = std::vector<std::string>{}};
}

StepDef write_step(const PluginRegistry& reg) {
    const PluginRegistry* r = &reg;
    return {.name = "write",
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
            .meta_keys = std::vector<std::string>{}};
}

StepDef extract_step() {
    return {.name = "extract",
            .description = "splits a texture into items, one per layer, face or mip ({layer} {face} {mip} in output)",
            .params = {enum_param("what", "surfaces", {"layers", "faces", "mips", "surfaces"}, "what one item holds")},
            .takes_texture = true,
            .run =
                [](StepContext& ctx, std::vector<Item> items) {
                    const std::string& w = ctx.params.at("what");
                    auto what = w == "layers"  ? tx::ExtractWhat::Layers
                                : w == "faces" ? tx::ExtractWhat::Faces
                                : w == "mips"  ? tx::ExtractWhat::Mips
                                               : tx::ExtractWhat::Surfaces;
                    std::vector<Item> out;
                    for (auto& it : items)
                        for (auto& piece : tx::extract(need_texture(it), what)) {
                            Item ni = with_texture(it, std::move(piece.texture));
                            for (auto& [k, v] : piece.meta) ni.meta[k] = v;
                            out.push_back(std::move(ni));
                        }
                    return out;
                },
            .meta_keys = std::vector<std::string>{"layer", "face", "mip", "level"}};
}

} // namespace

void add_texture_steps(StepTable& table, const PluginRegistry& reg) {
    table.add(read_step(reg));
    table.add(decode_step(reg));
    table.add(encode_step(reg));
    table.add(mips_step(reg));
    table.add(resize_step(reg));
    table.add(channels_step(reg));
    table.add(write_step(reg));
    table.add(extract_step());
    table.keeps_names({"read", "decode", "encode", "mips", "resize", "channels", "write"});
    const PluginRegistry* r = &reg;
    table.reader_meta_keys = container_meta_keys(reg);
    table.reader = [r](const Item& it, std::vector<std::string>& tools) {
        auto res = host::read_texture_bytes(*r, it.name, *it.bytes);
        use(tools, r->container_by_name(res.container).plugin);
        Item out = it;
        for (const auto& [k, v] : res.texture.meta) out.meta.emplace(k, v);
        return with_texture(std::move(out), std::move(res.texture));
    };
    table.keep_plugin_notes = [](nlohmann::json& metrics, const std::string& input) {
        return std::make_shared<ActionNotes>(metrics, input);
    };
    table.declared = [r](const std::string& path, std::span<const uint8_t> head) -> std::optional<DeclaredTexture> {
        auto d = host::declared_texture(*r, path, head);
        if (!d) return std::nullopt;
        return DeclaredTexture{d->desc, d->container};
    };
    table.top_image = [r](const Texture& t) {
        tx::Ops ops{*r};
        Image img = tx::surface_image(ops, t, 0, 0, 0);
        const FormatInfo* f = format_info(t.desc.format);
        if (f && tx::snorm_like(*f) && img.is_float()) tx::signed_to_unit(img); // as `decode` shows it
        return img;
    };
    table.writer = [r](const Item& it, const std::filesystem::path& path, std::vector<std::string>& tools,
                       std::vector<std::string>& warnings) {
        auto c = host::output_container(*r, it.container, path.extension().string());
        if (!c && it.container.empty())
            throw std::runtime_error("no container writes '" + lower_ext(path) +
                                     "' files; add 'write: {container: " + "…}' or see 'assetforge plugins'");
        const std::string container = c ? c.item->name : it.container;
        use(tools, c.plugin);
        std::vector<uint8_t> bytes = host::encode_texture(*r, container, *it.texture, it.write_options);
        if (picks_own_format(c.item)) {
            // What the container chose shows in what it wrote (XTF's RGB565 keeps no alpha).
            const Texture& t = *it.texture;
            const host::ReadResult back = host::read_texture_bytes(*r, path.string(), bytes);
            if (const FormatInfo* to = format_info(back.texture.desc.format); to && to->id != t.desc.format) {
                tx::Ops ops{*r};
                warnings = tx::information_lost(tx::analyse(tx::surface_image(ops, t, 0, 0, 0)),
                                                format_info(t.desc.format), *to, t.desc.flags & AF_TEX_NORMAL_MAP);
            }
        }
        return bytes;
    };
}

} // namespace af::engine
