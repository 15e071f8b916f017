// Steps that need no plugin: copy, zip (gather), swizzle, deswizzle.
#include "assetforge/formats.hpp"
#include "core/content_hash.hpp"
#include "engine/morton_swizzle.hpp"
#include "engine/step.hpp"
#include "engine/zip_writer.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>

namespace af::engine {

void StepTable::add(StepDef def) {
    std::string name = def.name;
    steps_[name] = std::make_unique<StepDef>(std::move(def));
}

const StepDef* StepTable::find(std::string_view name) const {
    auto it = steps_.find(name);
    return it == steps_.end() ? nullptr : it->second.get();
}

void StepTable::keeps_names(std::initializer_list<std::string_view> names) {
    for (auto n : names)
        if (auto it = steps_.find(n); it != steps_.end()) it->second->keeps_names = true;
}

std::vector<std::string> StepTable::names() const {
    std::vector<std::string> v;
    for (const auto& [k, _] : steps_) v.push_back(k);
    return v;
}

namespace {

std::vector<Item> run_zip(StepContext& ctx, std::vector<Item> items) {
    const auto& p = ctx.params;
    ZipMethod method = p.at("compression") == "store" ? ZipMethod::Store : ZipMethod::Deflate;
    int level = std::stoi(p.at("level"));
    if (level < 0 || level > 9) throw std::runtime_error("zip: level must be 0..9");
    std::string prefix = p.count("prefix") ? p.at("prefix") : "";
    while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
    std::vector<ZipEntry> entries;
    for (const auto& it : items) {
        if (!it.bytes)
            throw std::runtime_error("zip: item '" + it.name + "' is a decoded texture; add a 'write' step before zip");
        entries.push_back({prefix.empty() ? it.name : prefix + "/" + it.name, *it.bytes});
    }
    std::string manifest_text;
    std::string manifest_name = p.count("manifest") ? p.at("manifest") : "";
    if (!manifest_name.empty()) {
        nlohmann::json files = nlohmann::json::array();
        auto sorted = entries;
        std::sort(sorted.begin(), sorted.end(), [](auto& a, auto& b) { return a.name < b.name; });
        for (const auto& e : sorted)
            files.push_back({{"name", e.name}, {"size", e.data.size()}, {"xxh3_128", hash_bytes(e.data).hex()}});
        manifest_text = nlohmann::json({{"files", files}}).dump(1) + "\n";
        entries.push_back(
            {manifest_name, {reinterpret_cast<const uint8_t*>(manifest_text.data()), manifest_text.size()}});
    }
    auto bytes = make_zip(std::move(entries), method, level);
    ctx.metrics["zip_entries"] = items.size();
    ctx.metrics["zip_bytes"] = bytes.size();
    return {bytes_item("package.zip", std::move(bytes))};
}

std::vector<Item> run_swizzle(StepContext&, std::vector<Item> items, bool forward) {
    std::vector<Item> out;
    for (auto& it : items) {
        const Texture& t = *it.texture;
        const FormatInfo* fi = format_info(t.desc.format);
        if (!fi) throw std::runtime_error("unknown format id " + std::to_string(t.desc.format));
        if (fi->layout != Layout::Plain && fi->layout != Layout::Palette)
            throw std::runtime_error(std::string("unsupported: ") + (forward ? "swizzle" : "deswizzle") +
                                     " applies to uncompressed formats only; " + std::string(fi->name) +
                                     " keeps its block order");
        auto tex = std::make_shared<Texture>(t);
        for (uint32_t l = 0; l < t.desc.layers; ++l)
            for (uint32_t f = 0; f < t.desc.faces; ++f)
                for (uint32_t m = 0; m < t.desc.mips; ++m) {
                    auto src = t.surface(l, f, m);
                    auto dst = tex->surface(l, f, m);
                    if (!std::has_single_bit(src.width) || !std::has_single_bit(src.height) ||
                        !std::has_single_bit(src.depth))
                        throw std::runtime_error("swizzle needs power-of-two sizes; mip " + std::to_string(m) + " is " +
                                                 std::to_string(src.width) + "x" + std::to_string(src.height) + "x" +
                                                 std::to_string(src.depth));
                    if (forward)
                        swizzle_surface(src.data, dst.data, src.width, src.height, src.depth, fi->block_bytes);
                    else
                        deswizzle_surface(src.data, dst.data, src.width, src.height, src.depth, fi->block_bytes);
                }
        it.texture = tex;
        out.push_back(std::move(it));
    }
    return out;
}

} // namespace

void add_engine_steps(StepTable& table) {
    const std::vector<std::string> none;
    table.add({.name = "copy",
               .description = "passes the input through unchanged (bytes are copied to the output)",
               .run = [](StepContext&, std::vector<Item> items) { return items; },
               .meta_keys = none});
    table.add(
        {.name = "zip",
         .description = "packs every input of the job into one reproducible zip (sorted entries, fixed timestamps)",
         .kind = StepKind::Gather,
         .params = {enum_param("compression", "deflate", {"deflate", "store"}, "entry compression"),
                    int_param("level", "6", 0, 9, "deflate level 0..9"),
                    text_param("manifest", "", "entry name of a JSON manifest of the inputs (empty: none)"),
                    text_param("prefix", "", "folder inside the archive for every entry")},
         .run = run_zip,
         .meta_keys = none});
    table.add({.name = "swizzle",
               .description = "reorders texels of uncompressed surfaces into the Xbox Morton layout",
               .takes_texture = true,
               .run = [](StepContext& c, std::vector<Item> i) { return run_swizzle(c, std::move(i), true); },
               .meta_keys = none});
    table.add({.name = "deswizzle",
               .description = "reorders Xbox Morton-swizzled texels back into rows",
               .takes_texture = true,
               .run = [](StepContext& c, std::vector<Item> i) { return run_swizzle(c, std::move(i), false); },
               .meta_keys = none});
    table.keeps_names({"copy", "swizzle", "deswizzle"});
}

} // namespace af::engine
