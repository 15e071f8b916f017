// Steps that need no plugin: copy, zip (gather).
#include "base/name_text.hpp"
#include "core/content_hash.hpp"
#include "steps/step.hpp"
#include "steps/zip_writer.hpp"

#include <algorithm>
#include <stdexcept>

namespace af::engine {
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
        for (const auto& e : sorted) {
            nlohmann::json f = {{"size", e.data.size()}, {"xxh3_128", hash_bytes(e.data).hex()}};
            put_name(f, "name", e.name);
            files.push_back(std::move(f));
        }
        manifest_text = json_text(nlohmann::json({{"files", files}}), 1) + "\n";
        entries.push_back(
            {manifest_name, {reinterpret_cast<const uint8_t*>(manifest_text.data()), manifest_text.size()}});
    }
    auto bytes = make_zip(std::move(entries), method, level);
    ctx.metrics["zip_entries"] = items.size();
    ctx.metrics["zip_bytes"] = bytes.size();
    return {bytes_item("package.zip", std::move(bytes))};
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
    table.keeps_names({"copy"});
}

} // namespace af::engine
