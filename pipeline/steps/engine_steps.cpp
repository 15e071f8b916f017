// Steps that need no plugin: copy, zip (gather).
#include "base/name_text.hpp"
#include "core/content_hash.hpp"
#include "steps/step.hpp"
#include "steps/zip_writer.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <span>
#include <stdexcept>

namespace af::steps {
namespace {

// Whether `bytes` are exactly the file at `path` (a missing file is a difference: the item is new to the game).
bool same_as_file(const std::filesystem::path& path, std::span<const uint8_t> bytes) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec) || std::filesystem::file_size(path, ec) != bytes.size() || ec)
        return false;
    std::ifstream in(path, std::ios::binary);
    std::vector<char> buf(1 << 16);
    uint64_t at = 0;
    while (in && at < bytes.size()) {
        in.read(buf.data(), std::streamsize(std::min<uint64_t>(buf.size(), bytes.size() - at)));
        const auto n = uint64_t(in.gcount());
        if (n == 0 || std::memcmp(buf.data(), bytes.data() + at, n) != 0) return false;
        at += n;
    }
    return at == bytes.size();
}

// `only: changed`: the items whose bytes differ from the same name under `original` — the game's own files a mod
// overrides. An output a re-export left as the original's bytes (encode's `unedited: original`) is no change.
std::vector<Item> changed_only(StepContext& ctx, std::vector<Item> items) {
    const auto& p = ctx.params;
    if (p.at("only") != "changed") return items;
    const std::string original = p.count("original") ? p.at("original") : "";
    if (original.empty())
        throw std::runtime_error("zip: 'only: changed' needs 'original': the folder of the files the mod replaces");
    std::filesystem::path root = original;
    if (root.is_relative()) root = ctx.base_dir / root;
    size_t unchanged = 0;
    std::erase_if(items, [&](const Item& it) {
        const std::filesystem::path rel = std::filesystem::path(it.name).lexically_normal();
        if (rel.is_absolute() || rel.empty() || *rel.begin() == "..") return false; // not under `original`: kept
        const bool same = it.bytes && same_as_file(root / rel, *it.bytes);
        unchanged += same;
        return same;
    });
    ctx.results.zip_unchanged_left_out = unchanged;
    return items;
}

std::vector<Item> run_zip(StepContext& ctx, std::vector<Item> items) {
    const auto& p = ctx.params;
    items = changed_only(ctx, std::move(items));
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
            base::put_name(f, "name", e.name);
            files.push_back(std::move(f));
        }
        manifest_text = base::json_text(nlohmann::json({{"files", files}}), 1) + "\n";
        entries.push_back(
            {manifest_name, {reinterpret_cast<const uint8_t*>(manifest_text.data()), manifest_text.size()}});
    }
    auto bytes = make_zip(std::move(entries), method, level);
    ctx.results.zip_entries = items.size();
    ctx.results.zip_bytes = bytes.size();
    return {bytes_item("package.zip", std::move(bytes))};
}

} // namespace

void add_engine_steps(StepTable& table) {
    const std::vector<std::string> none;
    table.add({.name = "copy",
               .description = "passes the input through unchanged (bytes are copied to the output)",
               .run = [](StepContext&, std::vector<Item> items) { return items; },
               .meta_keys = none,
               .memory = [](const Params&, MemoryFlow&) { return 0.0; }}); // items pass on as they are
    table.add(
        {.name = "zip",
         .description = "packs every input of the job into one reproducible zip (sorted entries, fixed timestamps)",
         .kind = StepKind::Gather,
         .params = {enum_param("compression", "deflate", {"deflate", "store"}, "entry compression"),
                    int_param("level", "6", 0, 9, "deflate level 0..9"),
                    text_param("manifest", "", "entry name of a JSON manifest of the inputs (empty: none)"),
                    text_param("prefix", "", "folder inside the archive for every entry"),
                    enum_param("only", "all", {"all", "changed"},
                               "changed: leave out inputs whose bytes equal the file of the same name under "
                               "'original' (what a mod does not change)"),
                    ParamSpec{.name = "original",
                              .doc = "the folder of the files the mod replaces (the game's), for 'only: changed'",
                              .type = ParamType::Dir}},
         .run = run_zip,
         .meta_keys = none,
         // libzip's buffer of the archive and the copy handed to the writer (measured 2.0x the inputs, with their
         // manifest).
         .memory = [](const Params&, MemoryFlow& all) { return all.bytes * 2.25; }});
    table.keeps_names({"copy"});
}

} // namespace af::steps
