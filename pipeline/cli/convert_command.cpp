// `assetforge convert IN OUT [options]`: option parsing and a fixed list of
// texture operations (texture/texture_ops.hpp), the same ones the pipeline's
// steps call, so `convert` and a one-job pipeline give the same bytes.
//
//   read → [--layer/--face/--mip] → [--srgb/--linear] → [--resize]
//     PNG out:       decode → write PNG (every surface with --all-surfaces)
//     container out: [mips] → encode (auto | match | a name | keep) → write
//
// Mips are made for a single-level input whose format changes (PNG → DDS),
// or with --mips; --no-mips keeps the top level; `keep` (a texture
// container's input, no --format) changes nothing else, so a re-save keeps
// the file's layout. -O KEY=VALUE passes options to the containers.
#include "cli/cli_options.hpp"
#include "cli/container_defines.hpp"
#include "cli/isolation_options.hpp"
#include "cli/memory_budget_option.hpp"

#include "assetforge/atomic_file.hpp"
#include "assetforge/formats.hpp"
#include "assetforge/output_rules.hpp"
#include "assetforge/plugin.hpp"
#include "assetforge/user_text.hpp"
#include "engine/action_memory.hpp"
#include "host/host_services.hpp"
#include "host/plugin_notes.hpp"
#include "host/texture_io.hpp"
#include "steps/pipeline_steps.hpp"
#include "texture/format_names.hpp"
#include "texture/information_loss.hpp"
#include "texture/texture_ops.hpp"

#include <tbb/global_control.h>

#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <new>
#include <optional>
#include <stdexcept>

namespace af::cli {
namespace {

namespace fs = std::filesystem;
namespace tx = af::texture;

struct ConvertArgs {
    fs::path in, out;
    std::string format; // "" = auto for a picture (PNG, TGA: AF_IMAGE_FILES), keep for a texture container
    bool input_is_picture = false;
    std::string like; // --like ORIGINAL
    tx::Quality quality = tx::Quality::Normal;
    std::optional<bool> mips; // --mips / --no-mips
    tx::ColourTag colour = tx::ColourTag::Keep;
    std::optional<uint32_t> mip, face, layer;
    bool all_surfaces = false, permissive = false, grey_in_red = false;
    bool overwrite = false;          // -y: replace an existing OUT
    bool warnings_as_errors = false; // a discarded alpha, channel or bit depth fails, and OUT is not written
    std::string dx10 = "auto";
    int threads = 0;
    tx::MipRequest mip_request;
    std::optional<std::pair<uint32_t, uint32_t>> resize;
    host::OptionMap png;         // PNG writer options (level, filter)
    std::vector<Define> defines; // -O KEY=VALUE, in the order given
    ContainerDefines containers; // the defines routed to the reader and the writer
};

// Options convert derives from its own flags, then the -O defines over them:
// what the user typed last about a container wins.
host::OptionMap with_defines(host::OptionMap own, const host::OptionMap& defines) {
    for (const auto& [k, v] : defines) own[k] = v;
    return own;
}

std::string lower(std::string s) {
    for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool is_png(const fs::path& p) { return lower(p.extension().string()) == ".png"; }

std::string name_of(uint32_t format) { return std::string(format_info(format)->name); }

// The one output rule of commands (assetforge/output_rules.hpp): never the
// input, an existing file only with -y. Checked for every file before the
// first is written.
void refuse_existing(const std::vector<fs::path>& outs, const ConvertArgs& a) {
    for (const auto& p : outs) sdk::check_output_name(p, {a.in}, a.overwrite);
}

// Prints what the conversion discards, naming the file; true when the output
// may be written (no losses, or they are only warnings).
bool report_losses(const std::vector<std::string>& losses, const ConvertArgs& a) {
    for (const auto& l : losses)
        std::fprintf(stderr, "assetforge convert: %s: %s: %s\n", a.warnings_as_errors ? "error" : "warning",
                     sdk::printable(a.in.string()).c_str(), sdk::printable(l).c_str());
    if (!losses.empty() && a.warnings_as_errors) {
        std::fprintf(stderr, "assetforge convert: %s not written (--warnings-as-errors)\n",
                     sdk::printable(a.out.string()).c_str());
        return false;
    }
    return true;
}

// The surfaces of a decoded texture the PNG files will hold: HDR values there are clipped.
std::vector<ImageView> written_surfaces(const Texture& img, bool all) {
    std::vector<ImageView> out;
    for (uint32_t l = 0; l < (all ? img.desc.layers : 1); ++l)
        for (uint32_t f = 0; f < (all ? img.desc.faces : 1); ++f)
            for (uint32_t m = 0; m < (all ? img.desc.mips : 1); ++m) out.push_back(img.surface(l, f, m).stacked());
    return out;
}

// False when --warnings-as-errors refuses what a PNG would clip (nothing is written then).
bool write_pngs(tx::Ops& ops, const Texture& t, const ConvertArgs& a) {
    tx::Decoded d = tx::decode(ops, t);
    const Texture& img = d.texture;
    if (std::string clip = tx::values_clipped(written_surfaces(img, a.all_surfaces), "PNG"); !clip.empty())
        if (!report_losses({clip}, a)) return false;
    const bool srgb = tx::is_srgb(img), linear = tx::known_linear(img);
    const char* space = srgb ? "sRGB" : linear ? "linear" : "untagged";
    const int bits = format_info(img.desc.format)->decodes_to_float() ? 16 : 8;
    if (!a.all_surfaces) {
        host::write_texture(ops.reg, a.out, img, "png", with_defines(a.png, a.containers.write));
        std::printf("%s: %ux%u %s → %s (%d-bit PNG, %s)\n", a.in.string().c_str(), t.desc.width, t.desc.height,
                    name_of(t.desc.format).c_str(), a.out.string().c_str(), bits, space);
    } else {
        std::vector<fs::path> outs;
        for (uint32_t l = 0; l < img.desc.layers; ++l)
            for (uint32_t f = 0; f < img.desc.faces; ++f)
                for (uint32_t m = 0; m < img.desc.mips; ++m)
                    outs.push_back(a.out.parent_path() /
                                   sdk::format("%s_l%u_f%u_m%u.png", a.out.stem().string().c_str(), l, f, m));
        refuse_existing(outs, a);
        for (uint32_t l = 0; l < img.desc.layers; ++l)
            for (uint32_t f = 0; f < img.desc.faces; ++f)
                for (uint32_t m = 0; m < img.desc.mips; ++m) {
                    fs::path p =
                        a.out.parent_path() / sdk::format("%s_l%u_f%u_m%u.png", a.out.stem().string().c_str(), l, f, m);
                    // Which surface each file holds is this loop's, whatever -O says.
                    host::write_texture(
                        ops.reg, p, img, "png",
                        with_defines(
                            with_defines(a.png, a.containers.write),
                            {{"layer", std::to_string(l)}, {"face", std::to_string(f)}, {"mip", std::to_string(m)}}));
                }
        std::printf("%s: %u surfaces (%u layers × %u faces × %u mips) → %s_l*_f*_m*.png (%d-bit, %s)\n",
                    a.in.string().c_str(), img.desc.layers * img.desc.faces * img.desc.mips, img.desc.layers,
                    img.desc.faces, img.desc.mips, (a.out.parent_path() / a.out.stem()).string().c_str(), bits, space);
    }
    if (!d.note.empty()) std::printf("note: %s\n", d.note.c_str());
    return true;
}

// A container whose writer takes a `format` option (XTF, VTF) chooses and
// encodes its own formats (its `auto` knows what the console reads): convert
// hands it the texture as read and --format as that option.
const af_param* writer_format_option(const host::PluginRegistry& reg, const fs::path& out) {
    auto c = host::output_container(reg, "", out.extension().string());
    if (!c || c.item->struct_size < offsetof(af_container, write_option_count) + sizeof(uint32_t)) return nullptr;
    for (uint32_t i = 0; i < c.item->write_option_count; ++i)
        if (c.item->write_options[i] && std::string_view(c.item->write_options[i]->name) == "format")
            return c.item->write_options[i];
    return nullptr;
}

bool writer_picks_format(const host::PluginRegistry& reg, const fs::path& out) {
    return writer_format_option(reg, out) != nullptr;
}

// --format as the writer's own name for it: `bc1` is XTF's DXT1. A writer
// that declares no list of names gets the name as typed.
std::string writer_format_name(const host::PluginRegistry& reg, const ConvertArgs& a) {
    const af_param* p = writer_format_option(reg, a.out);
    if (lower(a.format) == "auto" || !p || p->type != AF_PARAM_ENUM || !p->choices) return a.format;
    std::vector<std::string> choices;
    for (const char* const* c = p->choices; *c; ++c) choices.emplace_back(*c);
    return tx::format_among(a.format, choices, a.out.extension().string());
}

bool write_own_format(tx::Ops& ops, const Texture& input, const ConvertArgs& a) {
    const Texture* tex = &input;
    std::optional<Texture> changed;
    if (a.mips == false && input.desc.mips > 1) changed = tx::top_level(input);
    if (changed) tex = &*changed;
    host::OptionMap wopts;
    if (!a.format.empty()) wopts["format"] = writer_format_name(ops.reg, a);
    if (a.mips == false) wopts["nomip"] = "true";
    wopts = with_defines(std::move(wopts), a.containers.write);
    // The container picks its own format (XTF's RGB565, DXT1…): what it
    // discarded shows in what it wrote, so read that back before the file lands.
    const std::string container = host::output_container(ops.reg, "", a.out.extension().string()).item->name;
    const std::vector<uint8_t> bytes = host::encode_texture(ops.reg, container, *tex, wopts);
    const host::ReadResult back = host::read_texture_bytes(ops.reg, a.out.string(), bytes);
    if (const FormatInfo* to = format_info(back.texture.desc.format);
        to && back.texture.desc.format != tex->desc.format) {
        const tx::Content content = tx::analyse(tx::measured_image(ops, *tex, 0, 0, 0));
        const bool normal =
            (tex->desc.flags & AF_TEX_NORMAL_MAP) ||
            tx::normal_map_of(ops, *tex, a.in.filename().string(), tx::NormalMapMode::Auto, "", &content).yes;
        if (!report_losses(tx::information_lost(content, format_info(tex->desc.format), *to, normal), a)) return false;
    }
    sdk::write_file_atomic(a.out, bytes);
    // What the file holds, read back: the writer chose, so --format is only what was asked.
    const TextureDesc& w = back.texture.desc;
    std::printf("%s: %ux%u %s → %s: %s (the %s writer's choice%s), %u mip%s\n", a.in.string().c_str(), input.desc.width,
                input.desc.height, name_of(input.desc.format).c_str(), a.out.string().c_str(),
                name_of(w.format).c_str(), container.c_str(),
                wopts.count("format") ? (" for " + wopts["format"]).c_str() : "", w.mips, w.mips == 1 ? "" : "s");
    return true;
}

// The description of what `bytes` hold, read back by the container that
// claims them; `encoded` when no container reads that format back. `stored`
// gets the encoding the reader names when it decoded one the format table
// has no name for (AF_META_STORED_FORMAT: ETC1 read as RGBA8).
TextureDesc written_desc(const host::PluginRegistry& reg, const fs::path& out, const std::vector<uint8_t>& bytes,
                         const TextureDesc& encoded, std::string* stored = nullptr) {
    auto c = reg.container_for(out, bytes.data(), std::min<uint64_t>(bytes.size(), 4096), bytes.size());
    if (!c || !(c.item->caps & AF_CAN_READ)) return encoded;
    const Texture back = host::read_texture_bytes(reg, out.string(), bytes).texture;
    if (auto s = back.meta.find(AF_META_STORED_FORMAT); stored && s != back.meta.end())
        *stored = sdk::printable(s->second) + ", read back as " + name_of(back.desc.format);
    return back.desc;
}

// A picture container other than PNG (TGA): its writer gets the decoded
// pixels and stores them its own way; nothing is block-encoded for it.
void write_picture(tx::Ops& ops, const Texture& t, const ConvertArgs& a, const std::string& container) {
    tx::Decoded d = tx::decode(ops, t);
    const std::vector<uint8_t> bytes = host::encode_texture(ops.reg, container, d.texture, a.containers.write);
    std::string stored;
    const TextureDesc w = written_desc(ops.reg, a.out, bytes, d.texture.desc, &stored);
    sdk::write_file_atomic(a.out, bytes);
    std::printf("%s: %ux%u %s → %s: %s (the %s writer's own)\n", a.in.string().c_str(), t.desc.width, t.desc.height,
                name_of(t.desc.format).c_str(), a.out.string().c_str(),
                stored.empty() ? name_of(w.format).c_str() : stored.c_str(), container.c_str());
    if (!d.note.empty()) std::printf("note: %s\n", d.note.c_str());
}

bool write_container(tx::Ops& ops, const Texture& input, const ConvertArgs& a) {
    // With --like the original decides the format, as the pipeline's `match`
    // does for any container: the writer stores what it is handed.
    if (writer_picks_format(ops.reg, a.out) && a.like.empty()) return write_own_format(ops, input, a);
    std::optional<tx::MatchTarget> like;
    if (!a.like.empty()) like = tx::read_match_target(ops, a.like);
    tx::EncodeRequest req;
    req.format = tx::parse_encode_format(like                 ? "match"
                                         : !a.format.empty()  ? a.format
                                         : a.input_is_picture ? "auto"
                                                              : "keep");
    req.like = like ? &*like : nullptr;
    req.quality = a.quality;
    req.name = a.in.filename().string();
    req.grey_in_red = a.grey_in_red;

    if (a.mip_request.normal_map == tx::NormalMapMode::Yes) {
        req.normal_map = tx::NormalMapMode::Yes;
        req.normal_map_why = "--normal-map";
    }
    const Texture* tex = &input;
    std::optional<Texture> changed;
    std::optional<tx::TopLevel> top; // what mips learned of the top level, for the encode
    const bool keep = req.format.mode == tx::EncodeMode::Keep;
    const bool can_have_mips = full_mip_count(input.desc.width, input.desc.height, input.desc.depth) > 1;
    if (!like && a.mips == false && input.desc.mips > 1) {
        changed = tx::top_level(input);
    } else if (!like && can_have_mips && (a.mips == true || (!a.mips && !keep && input.desc.mips == 1))) {
        if (input.desc.depth > 1)
            sdk::unsupported("generating mips for volume textures (use --no-mips, or keep the input's mips)");
        tx::MipRequest m = a.mip_request;
        m.name = req.name;
        if (m.normal_map == tx::NormalMapMode::Yes) m.normal_map_why = "--normal-map";
        changed = tx::mips(ops, input, m, &top.emplace());
        if (top->verdict.yes) req.normal_map = tx::NormalMapMode::Yes, req.normal_map_why = top->verdict.rule;
        req.known_top = &*top;
    }
    if (changed) tex = &*changed;
    if (keep) req.format = {tx::EncodeMode::Named, {input.desc.format, false}}; // the input's own, after mips
    tx::Encoded e = tx::encode(ops, *tex, req);
    if (keep) e.why = "kept";
    if (!report_losses(e.losses, a)) return false;
    // Encoded in memory and read back, so the summary says what the file
    // holds (a writer may store another format than it was handed).
    const auto writer = host::output_container(ops.reg, "", a.out.extension().string());
    if (!writer) sdk::usage("no plugin writes '" + a.out.extension().string() + "' files (see `assetforge plugins`)");
    const std::string container = writer.item->name;
    const std::vector<uint8_t> bytes =
        host::encode_texture(ops.reg, container, e.texture, with_defines({{"dx10", a.dx10}}, a.containers.write));
    std::string stored;
    const TextureDesc d = written_desc(ops.reg, a.out, bytes, e.texture.desc, &stored);
    // A writer that stores its own way (one level, whatever it was handed) must not drop --mips silently.
    if (d.mips < e.texture.desc.mips &&
        !report_losses({"the " + container + " writer stored " + std::to_string(d.mips) + " of the " +
                        std::to_string(e.texture.desc.mips) + " mip levels it was handed" +
                        (a.mips == true ? " (--mips)" : "; --no-mips makes only the top level")},
                       a))
        return false;
    sdk::write_file_atomic(a.out, bytes);
    std::string why = e.why;
    if (d.format != e.format || !stored.empty())
        why = "the " + container + " writer stored it for " + name_of(e.format);
    std::printf("%s: %ux%u %s → %s: %s (%s), %u mip%s", a.in.string().c_str(), input.desc.width, input.desc.height,
                name_of(input.desc.format).c_str(), a.out.string().c_str(),
                stored.empty() ? name_of(d.format).c_str() : stored.c_str(), why.c_str(), d.mips,
                d.mips == 1 ? "" : "s");
    if (d.layers > 1) std::printf(", %u layers", d.layers);
    if (d.faces == 6) std::printf(", cube");
    // The rule that decided, so a misnamed or misjudged normal map shows here.
    const std::string normal = e.normal_map ? tx::verdict_text(*e.normal_map)
                               : top        ? tx::verdict_text(top->verdict)
                                            : "";
    if (!normal.empty()) std::printf("; normal map: %s", normal.c_str());
    std::printf("\n");
    return true;
}

// The conversion's peak memory, estimated from the input's header (what it
// declares, not its size: a small PNG can declare 20000²) by the build's
// model for the same operations (engine/action_memory.hpp), so `convert` and
// a one-job pipeline are bounded alike. Throws std::runtime_error naming the
// file, what it declares and the budget when the estimate is larger.
void check_memory(const host::PluginRegistry& reg, const ConvertArgs& a, uint64_t budget) {
    const steps::StepTable table = steps::pipeline_steps(reg);
    load::Job job;
    job.name = "convert";
    job.output = a.out.string();
    auto add = [&](const char* name, steps::Params params = {}) {
        load::StepUse s;
        s.name = name;
        s.params = std::move(params);
        s.def = table.find(name);
        job.steps.push_back(std::move(s));
    };
    add("read");
    if (a.resize)
        add("resize", {{"width", std::to_string(a.resize->first)}, {"height", std::to_string(a.resize->second)}});
    if (is_png(a.out)) {
        add("decode");
    } else if (!writer_picks_format(reg, a.out)) {
        if (a.mips != false) add("mips");
        add("encode", {{"format", a.format}});
    }
    try {
        engine::action_memory_within(job, {{a.in.string(), a.in.string()}}, budget, table.declared);
    } catch (const std::runtime_error& e) {
        std::string why = e.what();
        if (auto at = why.find("this action needs"); at != std::string::npos)
            why.replace(at, 17, "converting it needs");
        throw std::runtime_error(why);
    }
}

// Parses the options into `a`; a message for a usage error, "" when fine.
std::string parse(const po::variables_map& vm, ConvertArgs& a) {
    if (!vm.count("in") || !vm.count("out")) return "needs an input and an output file";
    if (std::string why = apply_action_timeout_option(vm); !why.empty()) return why;
    a.in = vm["in"].as<std::string>();
    a.out = vm["out"].as<std::string>();
    if (vm.count("format")) a.format = vm["format"].as<std::string>();
    if (vm.count("like")) a.like = vm["like"].as<std::string>();
    a.quality = tx::parse_quality(vm["quality"].as<std::string>());
    if (lower(a.format) == "match") {
        // The pipeline's word: here the original is --like's, and --like alone says the same.
        if (a.like.empty())
            return "--format match needs --like ORIGINAL, the file whose format, mips and header to match";
        a.format.clear();
    }
    if (!a.format.empty() && lower(a.format) != "auto" && lower(a.format) != "keep")
        tx::format_from_name(a.format, false); // an unknown name is a usage error now, not after reading
    if (!a.like.empty() && !a.format.empty())
        return "--like and --format exclude each other (--like is --format match)";
    if (vm.count("mips") && vm.count("no-mips")) return "--mips and --no-mips exclude each other";
    if (vm.count("mips")) a.mips = true;
    if (vm.count("no-mips")) a.mips = false;
    if (vm.count("srgb") && vm.count("linear")) return "--srgb and --linear exclude each other";
    if (vm.count("srgb")) a.colour = tx::ColourTag::Srgb;
    if (vm.count("linear")) a.colour = tx::ColourTag::Linear;
    if (vm.count("colorspace")) {
        std::string cs = lower(vm["colorspace"].as<std::string>());
        if (cs != "srgb" && cs != "linear") return "--colorspace must be srgb or linear";
        auto tag = cs == "srgb" ? tx::ColourTag::Srgb : tx::ColourTag::Linear;
        if (a.colour != tx::ColourTag::Keep && a.colour != tag) return "--colorspace contradicts --srgb/--linear";
        a.colour = tag;
    }
    if (vm.count("mip")) a.mip = vm["mip"].as<uint32_t>();
    if (vm.count("face")) a.face = vm["face"].as<uint32_t>();
    if (vm.count("layer")) a.layer = vm["layer"].as<uint32_t>();
    a.all_surfaces = vm.count("all-surfaces");
    a.overwrite = vm.count("overwrite");
    a.warnings_as_errors = vm.count("warnings-as-errors");
    a.permissive = vm.count("permissive");
    a.grey_in_red = vm.count("grey-in-red");
    a.dx10 = vm["dx10"].as<std::string>();
    if (a.dx10 != "auto" && a.dx10 != "always" && a.dx10 != "never") return "--dx10 must be auto, always or never";
    MipOptions& mo = a.mip_request.options;
    if (vm.count("mip-filter")) mo.filter = parse_filter(vm["mip-filter"].as<std::string>());
    if (vm.count("alpha-coverage")) {
        float ref = vm["alpha-coverage"].as<float>();
        if (!(ref >= 0.0f && ref <= 1.0f)) return "--alpha-coverage takes a reference alpha in 0..1";
        mo.alpha_coverage_ref = ref;
    }
    if (vm.count("normal-map")) a.mip_request.normal_map = tx::NormalMapMode::Yes;
    if (vm.count("wrap") && vm.count("clamp")) return "--wrap and --clamp exclude each other";
    if (vm.count("wrap")) mo.edge = Edge::Wrap;
    if (vm.count("resize")) {
        unsigned w = 0, h = 0;
        char x = 0, extra = 0;
        std::string r = vm["resize"].as<std::string>();
        if (std::sscanf(r.c_str(), "%u%c%u%c", &w, &x, &h, &extra) != 3 || (x != 'x' && x != 'X') || !w || !h ||
            w > 65536 || h > 65536)
            return "--resize takes WxH, e.g. 1024x512";
        a.resize = std::make_pair(uint32_t(w), uint32_t(h));
    }
    if (vm.count("png-level")) {
        const int lv = vm["png-level"].as<int>();
        if (lv < 0 || lv > 12) return "--png-level takes 0 (stored) to 12 (smallest)";
        a.png["level"] = std::to_string(lv);
    }
    if (vm.count("png-filter")) a.png["filter"] = std::string(vm["png-filter"].as<std::string>());
    if (vm.count("define"))
        for (const auto& d : vm["define"].as<std::vector<std::string>>()) a.defines.push_back(parse_define(d));
    a.threads = vm["threads"].as<int>();
    if (a.threads < 0) return "--threads must be 0 (all cores) or more";
    const bool png_out = is_png(a.out);
    if (png_out && !a.format.empty() && lower(a.format) != "keep")
        return "--format applies to container output (DDS); PNG output is decoded";
    if (png_out && (a.mips || !a.like.empty()))
        return "--mips/--no-mips/--like apply to container output; use --mip or --all-surfaces";
    if (!png_out && !a.png.empty()) return "--png-level/--png-filter apply to PNG output";
    if (!png_out && a.all_surfaces) return "--all-surfaces writes PNGs: give an OUT ending in .png";
    if (a.all_surfaces && (a.mip || a.face || a.layer))
        return "--all-surfaces writes every surface; drop --mip/--face/--layer";
    return "";
}

// What plugins warn of during one conversion, the read's own warnings included: kept while it runs
// (host/plugin_notes.hpp), each line naming the file and the plugin, then printed, and counted by
// --warnings-as-errors as a build counts an action's. A line of a call
// that names no file of its own (a writer's) names the file that call concerns: the input while reading, OUT
// while writing.
class ConvertNotes {
  public:
    explicit ConvertNotes(const fs::path& in) : kept_(&notes_) { notes_.file = in.string(); }
    void writing(const fs::path& out) {
        std::lock_guard lock(notes_.mutex);
        notes_.file = out.string();
    }
    // Prints the warnings kept since the last call (a plugin's lower lines are printed as they come); their number.
    size_t print(bool as_errors) {
        std::lock_guard lock(notes_.mutex);
        const char* kind = as_errors ? "error" : "warning";
        for (const auto& w : notes_.warnings) std::fprintf(stderr, "assetforge convert: %s: %s\n", kind, w.c_str());
        if (notes_.omitted_warnings)
            std::fprintf(stderr, "assetforge convert: %s\n",
                         host::omitted_line(notes_.omitted_warnings, "warnings").c_str());
        const size_t warnings = notes_.warnings.size() + notes_.omitted_warnings;
        notes_.log.clear();
        notes_.warnings.clear();
        notes_.omitted_warnings = notes_.omitted_log = notes_.warning_bytes = notes_.log_bytes = 0;
        return warnings;
    }

  private:
    host::PluginNotes notes_;
    host::PluginNotesScope kept_;
};

// The read's warnings (each with its offset) and the plugins' lines, as kept; false when --warnings-as-errors
// refuses them, before anything is written.
bool report_read_warnings(ConvertNotes& notes, const ConvertArgs& a) {
    const size_t warned = notes.print(a.warnings_as_errors);
    if (warned && a.warnings_as_errors) {
        std::fprintf(stderr, "assetforge convert: %s not written (--warnings-as-errors: %zu warning(s) reading %s)\n",
                     sdk::printable(a.out.string()).c_str(), warned, sdk::printable(a.in.string()).c_str());
        return false;
    }
    return true;
}

// The conversion once its arguments hold: read, transform, write. False when --warnings-as-errors refused it.
bool convert_file(Context& ctx, ConvertArgs& a, bool output_is_picture, const std::string& writer) {
    ConvertNotes notes(a.in);
    tx::Ops ops{ctx.registry};
    host::OptionMap ropts;
    if (a.permissive) ropts["permissive"] = "true";
    ropts = with_defines(std::move(ropts), a.containers.read);
    host::ReadResult r = host::read_texture(ctx.registry, a.in, ropts);
    if (!report_read_warnings(notes, a)) return false;
    Texture tex = std::move(r.texture);
    if (a.mip || a.face || a.layer)
        tex = tx::single_surface(tex, a.layer.value_or(0), a.face.value_or(0), a.mip.value_or(0));
    tx::retag(tex, a.colour);
    if (a.mip_request.normal_map == tx::NormalMapMode::Yes) tex.desc.flags |= AF_TEX_NORMAL_MAP;
    if (a.resize) tex = tx::resize(ops, tex, a.resize->first, a.resize->second, a.mip_request.options);
    notes.writing(a.out);
    bool written = true;
    if (is_png(a.out))
        written = write_pngs(ops, tex, a);
    else if (output_is_picture)
        write_picture(ops, tex, a, writer);
    else
        written = write_container(ops, tex, a);
    const size_t warned = notes.print(a.warnings_as_errors);
    if (written && warned && a.warnings_as_errors) {
        // Written already (the writer warned as it wrote): taken away again, so no output stands for a failure.
        std::error_code ec;
        fs::remove(a.out, ec);
        std::fprintf(stderr, "assetforge convert: %s removed (--warnings-as-errors: %zu warning(s) writing it)\n",
                     sdk::printable(a.out.string()).c_str(), warned);
        return false;
    }
    return written;
}

int run_convert(Context& ctx, const std::vector<std::string>& args) {
    const std::string usage = "assetforge convert IN OUT [options]";
    po::options_description opts("options");
    opts.add_options()(
        "format", po::value<std::string>(),
        "auto, keep, match (with --like), or a format name: bc1…bc7, dxt1/3/5, ati1/ati2, rgba8, bgra8, a VTF name "
        "(BGRA8888) or a format-table name (BC7_UNORM_SRGB). Default: auto for pictures (PNG, TGA), "
        "keep for texture containers (DDS, XTF…). auto: docs/auto-format.md")(
        "like", po::value<std::string>(),
        "re-encode exactly as this original (DDS, XTF, VTF…): its format, mip count, colour tag and header kind; "
        "--format match says the same. An original with more frames, faces or layers than the input is refused")(
        "quality", po::value<std::string>()->default_value("normal"), "encoder effort: fast|normal|high|max")(
        "mips", "generate a full mip chain from the top level")("no-mips", "write only the top level")(
        "srgb", "the data is sRGB (tags PNGs, picks _SRGB formats)")("linear", "the data is linear")(
        "colorspace", po::value<std::string>(), "srgb|linear: same as --srgb/--linear")("mip", po::value<uint32_t>(),
                                                                                        "convert only this mip level")(
        "face", po::value<uint32_t>(), "convert only this cube face (0..5: +X -X +Y -Y +Z -Z)")(
        "layer", po::value<uint32_t>(), "convert only this array layer")(
        "all-surfaces", "PNG output: every layer/face/mip as OUTSTEM_l<L>_f<F>_m<M>.png")(
        "dx10", po::value<std::string>()->default_value("auto"),
        "DDS header: auto|always|never (never writes sRGB BC1–BC3 with the legacy FourCC, as texconv -dx9)")(
        "permissive", "read the whole surfaces a truncated input holds")("threads", po::value<int>()->default_value(0),
                                                                         "worker threads (0 = all cores)")(
        "mip-filter", po::value<std::string>(),
        "mip/resize filter: box|triangle|kaiser|lanczos3|mitchell|point (default kaiser)")(
        "alpha-coverage", po::value<float>(), "keep the fraction of texels with alpha > REF at every mip level")(
        "normal-map", "treat the input as a normal map (renormalised mips; auto picks BC5, or BC3/BC7 when its alpha "
                      "holds data). Without it, normal maps are recognised by a name token (norm, normal, nrm, nmap, "
                      "_n, _nm) or by their texels; the summary says which rule decided")(
        "grey-in-red", "the shader reads greyscale from red alone: auto may store grey images as BC4")(
        "wrap", "tiling texture: filters wrap around the edges")("clamp", "filters clamp at the edges (default)")(
        "resize", po::value<std::string>(), "resize the top level to WxH before anything else")(
        "png-level", po::value<int>(), "PNG output: deflate level 0 (stored) … 12 (smallest); default 1")(
        "png-filter", po::value<std::string>(), "PNG output: row filter auto|none|sub|up|paeth (default auto)")(
        "warnings-as-errors", "fail (exit 1, OUT not written) when the conversion would discard information "
                              "(an alpha channel, a colour channel, bit depth, mip levels) or a plugin warns; a "
                              "writer's warning comes as it writes, and OUT is removed again")(
        "define,O", po::value<std::vector<std::string>>()->composing(),
        "KEY=VALUE: an option of the output's writer (e.g. -O rle=true for TGA, -O level=9 for PNG) or, when the "
        "writer does not take KEY, of the input's reader; `assetforge steps` lists each container's. Given last, "
        "it wins over what convert's own flags set")(
        "overwrite,y", "replace OUT if it exists (without it an existing OUT is refused, as texconv without -y)")(
        "in", po::value<std::string>(), "input file")("out", po::value<std::string>(), "output file");
    add_memory_budget_option(opts);
    add_action_timeout_option(opts, "stop a call into a third-party plugin (its worker) that runs longer than SECONDS");
    po::positional_options_description pos;
    pos.add("in", 1).add("out", 1);
    po::variables_map vm;
    if (auto rc = parse_args(usage, args, opts, pos, vm)) return *rc;
    ConvertArgs a;
    try {
        if (std::string msg = parse(vm, a); !msg.empty()) {
            std::fprintf(stderr, "assetforge convert: %s\nusage: %s (see --help)\n", msg.c_str(), usage.c_str());
            return kExitUsage;
        }
    } catch (const sdk::Error& e) {
        std::fprintf(stderr, "assetforge convert: %s\nusage: %s (see --help)\n", sdk::printable(e.what()).c_str(),
                     usage.c_str());
        return kExitUsage;
    }

    const uint64_t budget = memory_budget_bytes(vm);
    if (budget == 0) {
        std::fprintf(stderr, "assetforge convert: --memory-budget expects a positive number of MiB\n");
        return kExitUsage;
    }
    std::optional<tbb::global_control> threads;
    if (a.threads > 0) {
        threads.emplace(tbb::global_control::max_allowed_parallelism, size_t(a.threads));
        host::settings().threads = a.threads;
    }
    try {
        if (!a.all_surfaces) refuse_existing({a.out}, a);
        const std::string reader = reading_container(ctx.registry, a.in);
        const auto writer = host::output_container(ctx.registry, "", a.out.extension().string());
        a.containers = route_defines(ctx.registry, reader, writer ? writer.item->name : "", a.defines);
        if (auto c = ctx.registry.container_by_name(reader)) a.input_is_picture = (c.item->caps & AF_IMAGE_FILES) != 0;
        const bool output_is_picture = !is_png(a.out) && writer && (writer.item->caps & AF_IMAGE_FILES);
        if (output_is_picture && ((!a.format.empty() && lower(a.format) != "keep") || a.mips || !a.like.empty()))
            sdk::usage("--format/--mips/--no-mips/--like apply to texture containers; the " +
                       std::string(writer.item->name) + " writer stores pictures its own way (see -O)");
        check_memory(ctx.registry, a, budget);
        if (!convert_file(ctx, a, output_is_picture, writer ? writer.item->name : "")) return kExitInputFailed;
    } catch (const sdk::Error& e) {
        std::fprintf(stderr, "assetforge convert: %s\n", sdk::printable(e.what()).c_str());
        return e.status() == AF_ERR_USAGE ? kExitUsage : kExitInputFailed;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr,
                     "assetforge convert: %s: out of memory (lower --memory-budget to what the machine has, so the "
                     "estimate refuses such files up front)\n",
                     sdk::printable(a.in.string()).c_str());
        return kExitInputFailed;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "assetforge convert: %s\n",
                     sdk::error_line(a.in.string() + " → " + a.out.string(), e).c_str());
        return kExitInputFailed;
    }
    return kExitOk;
}

RegisterCommand convert_command{
    "convert", "Convert a texture: PNG/DDS/XTF/… to PNG or any container (BC1–BC7, mips, sRGB)", run_convert};

} // namespace
} // namespace af::cli
