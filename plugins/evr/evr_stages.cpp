#include "evr_stages.hpp"

#include "evr_writer.hpp"
#include "package_set.hpp"
#include "repack.hpp"
#include "set_extract.hpp"
#include "tree_build.hpp"
#include "tree_entry.hpp"
#include "verify_against.hpp"

#include "assetforge/descriptors.hpp"
#include "assetforge/plugin.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <mutex>

namespace af::evr {

namespace fs = std::filesystem;
using sdk::format;

namespace {

using sdk::emit_bytes;
using sdk::item_meta;

fs::path resolve(const af_stage_io* io, std::string_view p) {
    fs::path d{std::string(p)};
    if (d.is_relative() && io->base_dir) d = fs::path(io->base_dir) / d;
    return d;
}

fs::path required_path(const af_stage_io* io, const sdk::Options& opt, const char* key, const char* stage) {
    auto v = opt.get(key);
    if (!v || v->empty()) sdk::usage(format("%s needs the parameter '%s'", stage, key));
    return resolve(io, *v);
}

// Warnings are collected (frames decode on several threads) and handed to
// the host's log in the order they came, once the stage is done. What the set
// a stage reads already holds (a game's own quirks, its raw textures without
// usable metadata) goes to the log as information: a build's warnings, which
// --warnings-as-errors fails on, are for what the build itself lost or made.
struct Warnings {
    std::mutex mutex;
    std::vector<std::string> list;
    WarnFn fn() {
        return [this](const std::string& w) {
            std::lock_guard lock(mutex);
            list.push_back(w);
        };
    }
    void log(const af_host* host, const std::string& prefix, int32_t level = AF_LOG_WARN) const {
        if (!host || !host->log) return;
        for (const auto& w : list) host->log(level, (prefix + w).c_str());
    }
    void log_inherited(const af_host* host, const std::string& stage) const {
        log(host, stage + ": in the set as read, not introduced by this build: ", AF_LOG_INFO);
    }
};

// A set's manifest handed over as an item: its parts are in the `packages` folder.
PackageSet open_item_set(const af_stage_io* io, const af_item& in, const fs::path& packages, const WarnFn& warn) {
    if (!in.bytes) sdk::usage("this stage takes the bytes of a package manifest");
    const std::string name = fs::path(in.name ? in.name : "").filename().string();
    if (name.empty()) sdk::usage("the manifest item has no name (the set's name is the manifest's file name)");
    (void)io;
    return PackageSet({in.bytes, in.size}, SetLocation{in.name, packages, name}, Limits{}, warn);
}

// Which file of a set an item replaces: its metadata (items straight from
// evr.extract) or its path's last two levels, `<type hex>/<file hex>.<ext>`.
TreeEntry entry_of(const af_item& it, bool groups) {
    const std::string name = it.name ? it.name : "";
    std::string rel = name;
    // Only the levels the tree layout has: whatever folders the item sits in above them.
    size_t levels = groups ? 3 : 2, cut = rel.size();
    for (size_t k = 0; k < levels && cut != std::string::npos && cut > 0; ++k) cut = rel.rfind('/', cut - 1);
    if (cut != std::string::npos && cut < rel.size()) rel = rel.substr(cut + 1);
    TreeEntry e;
    const std::string type = item_meta(it, "type"), file = item_meta(it, "file");
    if (!type.empty() && !file.empty() && parse_symbol(type, e.type) && parse_symbol(file, e.file)) {
        const auto leaf = fs::path(name).filename().string();
        const size_t dot = leaf.find('.');
        if (dot != std::string::npos) e.ext = leaf.substr(dot);
        e.group = groups ? std::atoll(item_meta(it, "frame").c_str()) : -1;
        e.where = name;
    } else {
        e = parse_tree_path(rel);
        e.where = name;
    }
    for (auto& c : e.ext) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (it.texture) sdk::usage(name + ": this stage takes file bytes, not a texture (write the texture first)");
    // Before the copy: an item no frame could hold is refused, not doubled in memory.
    check_entry_size(e, it.size, Limits{});
    if (it.size) e.bytes.assign(it.bytes, it.bytes + it.size); // an empty file may come with no pointer
    return e;
}

void emit_set(const af_stage_io* io, const SetImage& img, const std::string& name,
              std::vector<std::pair<std::string, std::string>> kv) {
    kv.emplace_back("set", name);
    kv.emplace_back("parts", std::to_string(img.parts.size()));
    emit_bytes(io, "manifests/" + name, img.manifest, kv);
    for (size_t i = 0; i < img.parts.size(); ++i)
        emit_bytes(io, "packages/" + name + "_" + std::to_string(i), part_bytes(img, i), kv);
}

} // namespace

af_status run_extract(const af_host* host, const af_stage_io* io, const af_options* params, af_error* error) {
    return sdk::guard(error, [&] {
        if (!io || io->input_count != 1 || !io->inputs[0]) sdk::usage("evr.extract takes one manifest per action");
        const af_item& in = *io->inputs[0];
        const sdk::Options opt(params);
        Warnings w;
        const PackageSet set = open_item_set(io, in, required_path(io, opt, "packages", "evr.extract"), w.fn());
        ExtractOptions o;
        o.groups = opt.flag("groups", false);
        const std::string types = opt.str("types", "");
        if (!types.empty())
            if (auto bad = parse_symbol_list(types, o.types.emplace()); !bad.empty())
                sdk::usage("evr.extract types: '" + bad + "' is not a hex symbol");
        // Frames decode in parallel; items are emitted afterwards in manifest order.
        std::map<uint64_t, std::pair<std::string, std::vector<uint8_t>>> files;
        std::mutex mutex;
        extract_files(
            set, o, host, w.fn(), nullptr,
            [&](uint64_t j, const fs::path& rel, std::span<const uint8_t> head, std::span<const uint8_t> body) {
                std::vector<uint8_t> b;
                b.reserve(head.size() + body.size());
                b.insert(b.end(), head.begin(), head.end());
                b.insert(b.end(), body.begin(), body.end());
                std::lock_guard lock(mutex);
                files[j] = {rel.generic_string(), std::move(b)};
            });
        const Manifest& m = set.manifest();
        for (auto& [j, f] : files) {
            const FileEntry& e = m.files[j];
            const std::string ext = fs::path(f.first).extension().string();
            emit_bytes(io, f.first, f.second,
                       {{"type", hex16(e.type)},
                        {"file", hex16(e.file)},
                        {"type_name", *type_name(e.type) ? type_name(e.type) : "unknown"},
                        {"frame", std::to_string(e.frame)},
                        {"set", set.location().name},
                        {"kind", ext.empty() ? "" : ext.substr(1)}});
            std::vector<uint8_t>().swap(f.second);
        }
        w.log_inherited(host, "evr.extract");
    });
}

af_status run_replace(const af_host* host, const af_stage_io* io, const af_options* params, af_error* error) {
    return sdk::guard(error, [&] {
        const sdk::Options opt(params);
        const fs::path manifest = required_path(io, opt, "set", "evr.replace");
        const fs::path packages = required_path(io, opt, "packages", "evr.replace");
        Warnings inherited, w;
        const PackageSet set(SetLocation{manifest, packages, manifest.filename().string()}, Limits{}, inherited.fn());
        RepackOptions o;
        o.add_new = opt.flag("add_new", false);
        o.part_limit = uint64_t(opt.integer("part_size", int64_t(kPartLimit), 1, int64_t(kPartLimit)));
        o.keep_layout = !opt.get("part_size"); // the set's own parts, unless the pipeline asks for a size
        o.frame_limit = uint64_t(opt.integer("frame_size", int64_t(kFrameLimit), 1, int64_t(frame_capacity(Limits{}))));
        const bool groups = opt.flag("groups", false);
        std::vector<TreeEntry> repl;
        for (uint32_t i = 0; i < io->input_count; ++i) repl.push_back(entry_of(*io->inputs[i], groups));
        const RepackReport r = repack_set(set, std::move(repl), o, host, w.fn());
        inherited.log_inherited(host, "evr.replace");
        w.log(host, "evr.replace: ");
        emit_set(io, r.image, set.location().name,
                 {{"changed", std::to_string(r.changed.size())},
                  {"unchanged", std::to_string(r.unchanged)},
                  {"added", std::to_string(r.added)},
                  {"frames_rebuilt", std::to_string(r.frames_rebuilt)},
                  {"frames_copied", std::to_string(r.frames_copied)}});
    });
}

af_status run_build(const af_host* host, const af_stage_io* io, const af_options* params, af_error* error) {
    return sdk::guard(error, [&] {
        const sdk::Options opt(params);
        const std::string name = opt.str("name", "");
        if (!is_set_name(name)) sdk::usage("evr.build needs the parameter 'name' (the set's file name)");
        BuildOptions o;
        o.part_limit = uint64_t(opt.integer("part_size", int64_t(kPartLimit), 1, int64_t(kPartLimit)));
        o.frame_limit = uint64_t(opt.integer("frame_size", int64_t(kFrameLimit), 1, int64_t(frame_capacity(Limits{}))));
        const bool groups = opt.flag("groups", false);
        std::vector<TreeEntry> entries;
        for (uint32_t i = 0; i < io->input_count; ++i) entries.push_back(entry_of(*io->inputs[i], groups));
        Warnings w;
        const SetImage img = build_set(std::move(entries), o, host, w.fn());
        w.log(host, "evr.build: ");
        emit_set(io, img, name, {});
    });
}

af_status run_verify(const af_host* host, const af_stage_io* io, const af_options* params, af_error* error) {
    return sdk::guard(error, [&] {
        if (!io || io->input_count != 1 || !io->inputs[0]) sdk::usage("evr.verify takes one manifest per action");
        const af_item& in = *io->inputs[0];
        const sdk::Options opt(params);
        Warnings w;
        const PackageSet set = open_item_set(io, in, required_path(io, opt, "packages", "evr.verify"), w.fn());
        Warnings textures;
        const VerifySummary s = verify_set(set, host, w.fn(), textures.fn());
        const bool strict = opt.flag("strict", true);
        nlohmann::json j;
        j["set"] = set.location().name;
        j["files"] = set.manifest().files.size();
        j["data_frames"] = s.data_frames;
        j["parts"] = set.part_count();
        j["warnings"] = w.list;
        j["texture_warnings"] = textures.list;
        if (auto against = opt.get("against"); against && !against->empty()) {
            // A repack is held to what it introduced: the original's own oddities are inherited.
            const fs::path orig = resolve(io, *against);
            auto packages = opt.get("against_packages");
            const fs::path orig_parts =
                packages && !packages->empty() ? resolve(io, *packages) : orig.parent_path().parent_path() / "packages";
            const PackageSet original(SetLocation{orig, orig_parts, orig.filename().string()}, Limits{}, nullptr);
            const AgainstReport r = verify_against(set, original, host);
            if (!r.problems.empty())
                sdk::fail(AF_ERR_INVALID_DATA, AF_NO_OFFSET,
                          format("%s: %zu repack rule(s) broken against %s: %s", set.location().name.c_str(),
                                 r.problems.size(), orig.string().c_str(), r.problems.front().c_str()));
            if (strict && !r.introduced.empty())
                sdk::fail(AF_ERR_INVALID_DATA, AF_NO_OFFSET,
                          format("%s: %zu structural warning(s) introduced by the repack (strict): %s",
                                 set.location().name.c_str(), r.introduced.size(), r.introduced.front().c_str()));
            nlohmann::json changed = nlohmann::json::array();
            for (uint64_t k : r.changed)
                changed.push_back(hex16(original.manifest().files[k].type) + "/" +
                                  hex16(original.manifest().files[k].file));
            j["against"] = orig.string();
            j["changed"] = changed;
            j["added"] = r.added;
            j["introduced_warnings"] = r.introduced;
            j["inherited_warnings"] = r.inherited;
        } else if (strict && !w.list.empty()) {
            sdk::fail(AF_ERR_INVALID_DATA, AF_NO_OFFSET,
                      format("%zu structural warning(s) (strict): %s", w.list.size(), w.list.front().c_str()));
        }
        const std::string text = j.dump(1) + "\n";
        emit_bytes(io, set.location().name + ".verify.json",
                   {reinterpret_cast<const uint8_t*>(text.data()), text.size()}, {{"set", set.location().name}});
    });
}

} // namespace af::evr
