// The texture steps: parameter parsing around the texture operations
// (texture/texture_ops.hpp), which `convert` calls too.
#include "steps/texture_steps.hpp"

#include "assetforge/formats.hpp"
#include "base/glob.hpp"
#include "base/output_template.hpp"
#include "base/surface_names.hpp"
#include "host/declared_dims.hpp"
#include "host/texture_io.hpp"
#include "steps/action_notes.hpp"
#include "steps/plugin_params.hpp"
#include "texture/edit_format.hpp"
#include "texture/format_names.hpp"
#include "texture/image_diff.hpp"
#include "texture/information_loss.hpp"
#include "texture/texture_ops.hpp"
#include "texture/unedited_export.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <fstream>
#include <stdexcept>

namespace af::steps {

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
    it.top.reset(); // it described the texture replaced
    return it;
}

// Applies `op` to every item's texture.
template <class Op> std::vector<Item> each(std::vector<Item> items, Op op) {
    std::vector<Item> out;
    out.reserve(items.size());
    for (auto& it : items) {
        out.push_back(with_texture(it, op(it, need_texture(it))));
        // Levels made again (resize gives one) are no longer the ones drawn: `match` may make its own.
        if (out.back().texture->desc.mips != it.texture->desc.mips) out.back().authored_mips = false;
    }
    return out;
}

tx::ColourTag colour_tag(const std::string& v) {
    return v == "srgb" ? tx::ColourTag::Srgb : v == "linear" ? tx::ColourTag::Linear : tx::ColourTag::Keep;
}

// `like`: a path or a template over the item's name ("orig/{dir}/{stem}.dds").
std::string like_path(const std::string& like, const Item& it, const std::filesystem::path& base) {
    std::filesystem::path p = like.find('{') == std::string::npos
                                  ? std::filesystem::path(like)
                                  : std::filesystem::path(base::OutputTemplate::parse(like).expand(
                                        base::template_values(it.name, it.meta, "")));
    if (p.is_relative()) p = base / p;
    return p.lexically_normal().string();
}

// `normal_maps` patterns (the step's own or the job's): the user's yes or no
// for this item, or auto.
tx::NormalMapOverride normal_map_override(const Params& p, const Item& it) {
    auto n = p.find("normal_maps");
    if (n == p.end() || n->second.empty()) return {};
    return tx::normal_map_override(tx::split_patterns(n->second), it.name, &base::glob_match);
}

// A container whose writer takes a `format` option (XTF, VTF) encodes to a
// format of its own choosing.
bool picks_own_format(const af_container* c) {
    if (!c || c->struct_size < offsetof(af_container, write_option_count) + sizeof(uint32_t)) return false;
    for (uint32_t i = 0; i < c->write_option_count; ++i)
        if (c->write_options[i] && std::string_view(c->write_options[i]->name) == "format") return true;
    return false;
}

// Whether a written file is read back through its container for what reports say of it. The host's own
// containers store the surfaces they are handed (DDS, PNG, EXR), except those that pick their own format (XTF,
// VTF); a third-party writer may encode as it writes (an ETC1 writer handed RGBA8), so its file is read back: one
// more read of each of its outputs.
bool reads_back(const host::Found<af_container>& c) {
    return c && (picks_own_format(c.item) || (c.plugin && !c.plugin->bundled));
}

// What the file holds, read back: its format where it differs from what the writer was handed (or the encoding its
// reader names), its PSNR against that, and (own_format) what the format the container chose discarded (XTF's
// RGB565 keeps no alpha).
void read_back(const PluginRegistry& reg, const Item& it, const std::filesystem::path& path,
               const std::vector<uint8_t>& bytes, bool own_format, WrittenFile& written) {
    const Texture& t = *it.texture;
    host::ReadResult back = host::read_texture_bytes(reg, path.string(), bytes);
    tx::Ops ops{reg};
    const FormatInfo* to = format_info(back.texture.desc.format);
    if (to && to->id != t.desc.format) {
        written.format = to->name;
        if (own_format) {
            const bool known = it.top && it.top->describes(t) && it.top->content;
            const tx::Content content = known ? *it.top->content : tx::analyse(tx::measured_image(ops, t, 0, 0, 0));
            const bool normal = (t.desc.flags & AF_TEX_NORMAL_MAP) ||
                                tx::normal_map_of(ops, t, it.name, tx::NormalMapMode::Auto, "", &content).yes;
            written.warnings = tx::information_lost(content, format_info(t.desc.format), *to, normal);
        }
    }
    // An encoding the format table has no name for (ETC1), decoded as it was read: named as the reader names it.
    if (auto stored = back.texture.meta.find(AF_META_STORED_FORMAT); stored != back.texture.meta.end())
        written.format = stored->second;
    const Texture handed = tx::measured_image(ops, t, 0, 0, 0);
    const Texture held = tx::measured_image(ops, back.texture, 0, 0, 0);
    if (handed.desc.width == held.desc.width && handed.desc.height == held.desc.height) {
        const tx::ImageDiff d = tx::diff_images(handed.surface(0, 0, 0), held.surface(0, 0, 0), {.ssim = false});
        written.psnr_rgb = d.psnr_rgb.value_or(99.0);
        if (d.has_alpha) written.psnr_rgb_alpha_weighted = d.psnr_rgb_alpha_weighted.value_or(99.0);
    }
    written.back = std::make_shared<const Texture>(std::move(back.texture));
}

// A PNG holds 0..1: what a decoded BC6H or float texture loses there is a
// warning (counted by --warnings-as-errors), for the surface the writer took.
void png_clip_warning(const Item& it, std::vector<std::string>& warnings) {
    if (!is_float(*it.texture)) return;
    auto index = [&](const char* key) {
        auto v = it.write_options.find(key);
        return v == it.write_options.end() ? 0u : uint32_t(std::stoul(v->second));
    };
    const ImageView s = it.texture->surface(index("layer"), index("face"), index("mip")).stacked();
    if (std::string clip = tx::values_clipped({s}, "PNG"); !clip.empty()) warnings.push_back(std::move(clip));
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

// ---- what each step holds at its peak (StepDef::memory) ---------------------
// Bytes per texel, 8-bit or wider channels; fitted to peaks measured by
// bench/memory_peaks.py and rounded up (docs/memory.md).
constexpr TexelCost kDecode{24, 36};      // to RGBA8 (or the format's float) and the texture it replaces
constexpr TexelCost kDecodeFloat{40, 48}; // decode to RGBA32F
constexpr TexelCost kEncodeTop{16, 68};   // encode: the top level's copies (format choice, PSNR; float for BC6H) …
constexpr TexelCost kEncodeAll{8, 24};    // … plus the texture in and the encoded one out, every level
constexpr TexelCost kMips{24, 112};       // the chain, level 1's float plane (level 0 is filtered row by row)
constexpr TexelCost kResizeIn{44, 60};    // resize: per texel in …
constexpr TexelCost kResizeOut{40, 50};   // … plus per texel out
constexpr TexelCost kPerSurface{28, 44};  // channels, extract: a converted copy of each surface

// A step whose cost is `c` for every texel of the texture it is given.
MemoryCost texel_cost(TexelCost c) {
    return [c](const Params&, MemoryFlow& f) {
        f.as_texture();
        return c.of(f, f.texels);
    };
}

// Items pass on untouched (read makes a texture of bytes; that is the reader's cost).
double read_memory(const Params&, MemoryFlow& f) {
    f.as_texture();
    return 0;
}
double write_memory(const Params&, MemoryFlow&) { return 0; }

double decode_memory(const Params& p, MemoryFlow& f) {
    f.as_texture();
    const bool to_float = p.count("to") && p.at("to") == "rgba32f";
    const double held = (to_float ? kDecodeFloat : kDecode).of(f, f.texels);
    f.wide = f.wide || to_float;
    return held;
}

double encode_memory(const Params& p, MemoryFlow& f) {
    f.as_texture();
    const double held = kEncodeTop.of(f, f.top) + kEncodeAll.of(f, f.texels);
    const std::string fmt = p.count("format") ? p.at("format") : "";
    if (fmt.find("bc6h") != std::string::npos || fmt.find("FLOAT") != std::string::npos ||
        fmt.find("16f") != std::string::npos || fmt.find("32f") != std::string::npos)
        f.wide = true;
    return held;
}

double mips_memory(const Params&, MemoryFlow& f) {
    f.as_texture();
    const double held = kMips.of(f, f.texels);
    f.texels = f.top * 4 / 3;
    return held;
}

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
            .meta_keys = container_meta_keys(reg),
            .memory = read_memory};
}

// XTF and VTF layers are animation frames: their pictures are named `.frame<N>`.
bool layers_are_frames(const std::string& name) {
    const std::string ext = lower_ext(name);
    return ext == ".xtf" || ext == ".vtf";
}

// `surfaces: all`: one item per top-level surface of a texture of several, `{surface}` saying which
// (".face3"); a texture of one surface stays one item, `{surface}` "" so its picture keeps its plain name.
// `levels` (`mips: all`): one per level of every surface of a texture of several levels (".mip2", ".face3.mip1").
std::vector<Item> decode_item(tx::Ops& ops, StepContext& ctx, Item it, tx::DecodeTo target, bool all, bool levels) {
    const Texture& t = need_texture(it);
    // The edit format follows the format decoded from, which the decoded texture no longer shows.
    const std::string edit(tx::edit_extension(t.desc.format));
    std::vector<Item> out;
    auto add = [&](const Item& from, const Texture& surface, const std::string& part) {
        tx::Decoded d = tx::decode(ops, surface, target);
        if (!d.note.empty()) ctx.results.note = d.note;
        Item o = with_texture(from, std::move(d.texture));
        o.meta["edit_ext"] = edit;
        o.meta["surface"] = part;
        out.push_back(std::move(o));
    };
    levels = levels && t.desc.mips > 1;
    if (!all || (t.desc.layers == 1 && t.desc.faces == 1 && t.desc.depth <= 1 && !levels)) {
        add(it, t, "");
        return out;
    }
    const bool frames = layers_are_frames(it.name);
    for (const auto& s : tx::split_surfaces(t, levels))
        add(it, s.texture, tx::surface_part(t.desc, s.at, frames, levels));
    return out;
}

StepDef decode_step(const PluginRegistry& reg) {
    const PluginRegistry* r = &reg;
    return {.name = "decode",
            .description = "converts a texture to RGBA8, or RGBA32F for formats with more range (signed data mapped "
                           "to 0..1); sets {edit_ext}: exr for float and BC6H textures, png for the rest; and "
                           "{surface}: which surface an item is (docs/edit-formats.md)",
            .params = {enum_param("to", "auto", {"auto", "rgba8", "rgba32f"}, "target pixel type"),
                       enum_param("surfaces", "all", {"all", "first"},
                                  "all: a texture of several layers, faces or depth slices gives one item per "
                                  "top-level surface, {surface} naming it (\".face3\", \".layer2\", \".frame1\", "
                                  "\".slice4\"; \"\" for a texture of one surface); first: one item, the "
                                  "texture whole (the writer takes its first surface)"),
                       enum_param("mips", "top", {"top", "all"},
                                  "top: each surface's top level (a rebuild under format: match makes the levels "
                                  "again); all: every level of a texture of several, {surface} ending in its level "
                                  "(\".mip0\", \".face3.mip2\"), so hand-made levels are edited and kept; needs "
                                  "surfaces: all")},
            .takes_texture = true,
            .run =
                [r](StepContext& ctx, std::vector<Item> items) {
                    StepOps so(*r, ctx.tools);
                    const std::string& to = ctx.params.at("to");
                    auto target = to == "rgba8"     ? tx::DecodeTo::Rgba8
                                  : to == "rgba32f" ? tx::DecodeTo::Rgba32f
                                                    : tx::DecodeTo::Auto;
                    const bool all = ctx.params.at("surfaces") == "all";
                    const bool levels = ctx.params.at("mips") == "all";
                    if (levels && !all)
                        throw std::runtime_error("decode: mips: all writes every level of every surface; it needs "
                                                 "surfaces: all");
                    std::vector<Item> out;
                    out.reserve(items.size());
                    for (auto& it : items)
                        for (auto& o : decode_item(so.ops, ctx, std::move(it), target, all, levels))
                            out.push_back(std::move(o));
                    return out;
                },
            .meta_keys = std::vector<std::string>{"edit_ext", "surface"},
            .memory = decode_memory};
}

// The request's normal-map say for one item: the job's pattern, else the
// rule the `mips` step before found (a name token, the texels), not "marked".
// And what mips learned of the top level, so it is not read again.
void top_level_say(tx::EncodeRequest& req, const StepContext& ctx, const Item& it, const Texture& t) {
    const tx::NormalMapOverride says = normal_map_override(ctx.params, it);
    req.normal_map = says.mode;
    req.normal_map_why = says.why;
    req.known_top = it.top && it.top->describes(t) ? it.top.get() : nullptr;
    if (says.mode == tx::NormalMapMode::Auto && req.known_top && req.known_top->verdict.yes)
        req.normal_map = tx::NormalMapMode::Yes, req.normal_map_why = req.known_top->verdict.rule;
}

// `unedited: original`: the original's own bytes, nothing edited and nothing lost to a new encode.
Item original_bytes(Item it, const std::string& original, const tx::MatchTarget& target, StepContext& ctx) {
    std::ifstream in(original, std::ios::binary);
    auto bytes =
        std::make_shared<std::vector<uint8_t>>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) throw std::runtime_error(original + ": cannot read");
    ctx.results.format = format_info(target.format)->name;
    ctx.results.format_reason = "unedited: the original's bytes";
    it.texture.reset();
    it.bytes = std::move(bytes);
    return it;
}

// Absent, as opposed to there and unreadable (which reading it reports with its reason).
bool original_exists(const std::string& path) {
    std::error_code ec;
    return std::filesystem::exists(path, ec) ||
           (ec && ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory);
}

std::string no_original_text(const std::string& original) {
    return "no original to match: " + original +
           " does not exist (format: match copies the format, mips and header of the game's own file, and a new "
           "texture has none). Build new textures with an explicit format, in a job of their own (e.g. encode: { "
           "format: auto }, as configs/png-to-dds.yaml does), or put the original at that path";
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
        top_level_say(req, ctx, it, t);
        std::optional<tx::MatchTarget> target;
        const std::string original = like.empty() ? "" : like_path(like, it, ctx.base_dir);
        // A texture the modder added has no original: `match` cannot copy one (say so, and the ways on);
        // `unedited` has nothing it could be unchanged from, so it is encoded as any edit.
        const bool has_original = !original.empty() && original_exists(original);
        if (match && !has_original) throw std::runtime_error(no_original_text(original));
        if (has_original) target = tx::read_match_target(so.ops, original);
        if (keep_unedited && target &&
            tx::unedited_export(so.ops, t, target->texture, it.surface_set, it.authored_mips)) {
            out.push_back(original_bytes(std::move(it), original, *target, ctx));
            continue;
        }
        req.like = match ? &*target : nullptr;
        req.from_set = it.surface_set;
        req.authored_mips = it.authored_mips;
        tx::Encoded e = tx::encode(so.ops, t, req);
        ctx.results.format = format_info(e.format)->name;
        ctx.results.format_reason = e.why;
        if (e.normal_map) ctx.results.set_normal_map(e.normal_map->yes, e.normal_map->rule);
        // What the encode discarded: the build's warnings (printed, and carried into every report).
        for (const auto& l : e.losses) ctx.results.warnings.push_back(l);
        if (e.psnr_rgb) ctx.results.psnr_rgb = e.psnr_rgb;
        if (e.psnr_rgb_alpha_weighted) ctx.results.psnr_rgb_alpha_weighted = e.psnr_rgb_alpha_weighted;
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
            .meta_keys = std::vector<std::string>{},
            .memory = encode_memory};
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
                    std::vector<Item> out;
                    for (auto& it : items) {
                        tx::MipRequest one = req;
                        one.name = it.name;
                        if (req.normal_map == tx::NormalMapMode::Auto) {
                            const tx::NormalMapOverride says = normal_map_override(p, it);
                            one.normal_map = says.mode;
                            one.normal_map_why = says.why;
                        }
                        auto top = std::make_shared<tx::TopLevel>();
                        Item mipped = with_texture(it, tx::mips(so.ops, need_texture(it), one, top.get()));
                        mipped.authored_mips = false; // the chain is made here, not drawn
                        ctx.results.set_normal_map(top->verdict.yes, top->verdict.rule);
                        mipped.top = std::move(top); // describes mipped.texture: moving a texture keeps its data
                        out.push_back(std::move(mipped));
                    }
                    return out;
                },
            .meta_keys = std::vector<std::string>{},
            .memory = mips_memory};
}

// What `resize` is asked: a width and/or height, a scale, or a largest side.
struct ResizeRequest {
    uint32_t width = 0, height = 0, max_size = 0;
    std::optional<double> scale;
};

ResizeRequest resize_request(const Params& p) {
    auto given = [&](const char* key) { return p.count(key) && !p.at(key).empty(); };
    ResizeRequest r;
    if (given("width")) r.width = parse_uint(p, "width", 0, 65536);
    if (given("height")) r.height = parse_uint(p, "height", 0, 65536);
    if (given("max_size")) r.max_size = parse_uint(p, "max_size", 0, 65536);
    if (given("scale")) r.scale = std::stod(p.at("scale"));
    return r;
}

// The size `resize` gives a top level of sw × sh: the step and its memory estimate both ask this.
std::pair<uint32_t, uint32_t> resize_target(const ResizeRequest& r, double sw, double sh) {
    auto scaled = [&](double s) {
        return std::pair{uint32_t(std::max(1.0, std::round(sw * s))), uint32_t(std::max(1.0, std::round(sh * s)))};
    };
    if (r.scale) return scaled(*r.scale);
    if (r.max_size) return scaled(std::min(1.0, double(r.max_size) / std::max(sw, sh)));
    if (!r.width && !r.height) throw std::runtime_error("resize: give width, height, scale or max_size");
    if (!r.width) return {uint32_t(std::max(1.0, std::round(sw * r.height / sh))), r.height};
    if (!r.height) return {r.width, uint32_t(std::max(1.0, std::round(sh * r.width / sw)))};
    return {r.width, r.height};
}

// Texels in and texels out. Without the top level's size (a header not read), a bound from the request alone.
double resize_memory(const Params& p, MemoryFlow& f) {
    f.as_texture();
    const double in = f.texels;
    const ResizeRequest r = resize_request(p);
    const bool asked = r.scale || r.max_size || r.width || r.height;
    double out = f.top; // nothing asked: the step refuses it
    if (asked && f.width > 0 && f.height > 0) {
        const auto [tw, th] = resize_target(r, f.width, f.height);
        out = double(tw) * th * std::max(1.0, f.top / (f.width * f.height)); // every face, layer and slice
        f.width = tw;
        f.height = th;
    } else if (r.scale) {
        out = f.top * std::min(*r.scale, 64.0) * std::min(*r.scale, 64.0);
    } else if (r.width && r.height) {
        out = double(r.width) * r.height;
    } else if (r.width || r.height) {
        const double given = std::max(r.width, r.height); // unknown aspect: as thin as the texels allow
        out = given * given * f.top;
    }
    f.top = f.texels = std::max(1.0, out);
    return kResizeIn.of(f, in) + kResizeOut.of(f, f.texels);
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
                    const ResizeRequest req = resize_request(p);
                    return each(std::move(items), [&](const Item&, const Texture& t) {
                        const auto [tw, th] = resize_target(req, t.desc.width, t.desc.height);
                        return tx::resize(so.ops, t, tw, th, ro);
                    });
                },
            .meta_keys = std::vector<std::string>{},
            .memory = resize_memory};
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
            .meta_keys = std::vector<std::string>{},
            .memory = texel_cost(kPerSurface)};
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
            .meta_keys = std::vector<std::string>{},
            .memory = write_memory};
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
            .meta_keys = std::vector<std::string>{"layer", "face", "mip", "level"},
            .memory = texel_cost(kPerSurface)};
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
    table.assemble = [](std::vector<Item> members, const std::string& set) {
        std::vector<tx::SetMember> m;
        for (const auto& it : members) {
            const auto named = base::surface_name(it.name);
            if (!named) throw std::runtime_error(it.name + ": not the picture of a surface"); // grouped by this name
            m.push_back(
                {it.name, named->layer, named->face, named->slice, named->frame, &need_texture(it), named->mip});
        }
        Item out = with_texture(members.front(), tx::assemble(m, set));
        out.name = set;
        out.surface_set = true;
        out.authored_mips = m.front().mip.has_value();
        return out;
    };
    table.keep_plugin_notes = [](base::StepResults& results, const std::string& input) {
        return std::make_shared<ActionNotes>(results, input);
    };
    table.declared = [r](const std::string& path, std::span<const uint8_t> head) -> std::optional<DeclaredTexture> {
        auto d = host::declared_texture(*r, path, head);
        if (!d) return std::nullopt;
        return DeclaredTexture{d->desc, d->container};
    };
    table.top_image = [r](const Texture& t) {
        tx::Ops ops{*r};
        return tx::measured_image(ops, t, 0, 0, 0); // SNORM as `decode` shows it
    };
    table.writer = [r](const Item& it, const std::filesystem::path& path, std::vector<std::string>& tools,
                       WrittenFile& written) {
        auto c = host::output_container(*r, it.container, path.extension().string());
        if (!c && it.container.empty())
            throw std::runtime_error("no container writes '" + lower_ext(path) +
                                     "' files; add 'write: {container: " + "…}' or see 'assetforge plugins'");
        const std::string container = c ? c.item->name : it.container;
        use(tools, c.plugin);
        std::vector<uint8_t> bytes = host::encode_texture(*r, container, *it.texture, it.write_options);
        if (container == "png") png_clip_warning(it, written.warnings);
        if (reads_back(c)) read_back(*r, it, path, bytes, picks_own_format(c.item), written);
        return bytes;
    };
}

} // namespace af::steps
