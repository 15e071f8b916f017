// Steps that need no plugin: copy, zip (gather).
#include "base/name_text.hpp"
#include "core/content_hash.hpp"
#include "steps/step.hpp"
#include "steps/zip_writer.hpp"

#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <span>
#include <stdexcept>

namespace af::steps {
namespace {

// The content hash of the regular file at `path`, or nothing (missing, or not a file): outside a build.
std::optional<Hash128> hash_if_file(const std::filesystem::path& path) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    return hash_file(path);
}

// Whether `it` holds exactly the file at `path` (a missing file is a difference: the item is new to the game). Hashes
// go through the build's stat cache, which hashed the original's files as the action's key was made: a rebuild of
// a few edits reads none of the game's files again, and none of the items' either.
bool same_as_file(StepContext& ctx, const std::filesystem::path& path, const Item& it) {
    const std::optional<Hash128> theirs = ctx.file_hash ? ctx.file_hash(path) : hash_if_file(path);
    return theirs && *theirs == (it.is_file() ? it.file_hash : hash_bytes(*it.bytes));
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
        const bool same = (it.bytes || it.is_file()) && same_as_file(ctx, root / rel, it);
        unchanged += same;
        return same;
    });
    ctx.results.zip_unchanged_left_out = unchanged;
    return items;
}

ZipEntry entry_of(const Item& it, const std::string& prefix) {
    ZipEntry e{prefix.empty() ? it.name : prefix + "/" + it.name, {}};
    if (it.is_file())
        e.file = it.file, e.size = it.file_size, e.hash = it.file_hash;
    else if (it.bytes)
        e.data = *it.bytes;
    else
        throw std::runtime_error("zip: item '" + it.name + "' is a decoded texture; add a 'write' step before zip");
    return e;
}

// The manifest's text: each entry's name, size and content hash.
std::string manifest_of(std::vector<ZipEntry> entries) {
    nlohmann::json files = nlohmann::json::array();
    std::sort(entries.begin(), entries.end(), [](auto& a, auto& b) { return a.name < b.name; });
    for (const auto& e : entries) {
        const bool in_memory = e.file.empty();
        nlohmann::json f = {{"size", in_memory ? e.data.size() : e.size},
                            {"xxh3_128", (in_memory ? hash_bytes(e.data) : e.hash).hex()}};
        base::put_name(f, "name", e.name);
        files.push_back(std::move(f));
    }
    return base::json_text(nlohmann::json({{"files", files}}), 1) + "\n";
}

// The archive, written into the build's scratch folder and handed over as a file: members stream from their
// files, and those the archive it replaces holds already are copied from it as they are stored.
Item archive_file(StepContext& ctx, std::vector<ZipEntry> entries, const ZipOptions& options) {
    std::string name = (ctx.scratch_dir / "zip-XXXXXX").string();
    std::error_code ec;
    std::filesystem::create_directories(ctx.scratch_dir, ec);
    const int fd = ::mkstemp(name.data());
    if (fd < 0)
        throw std::runtime_error("zip: cannot make a file in " + ctx.scratch_dir.string() + ": " +
                                 std::strerror(errno));
    ::close(fd);
    Item out;
    out.name = "package.zip";
    out.file = name;
    out.owns_file = true;
    try {
        const ZipWritten w = write_zip(std::move(entries), options, name);
        ctx.results.zip_reused = w.reused;
        out.file_size = std::filesystem::file_size(name);
    } catch (...) {
        ::unlink(name.c_str());
        throw;
    }
    return out;
}

std::vector<Item> run_zip(StepContext& ctx, std::vector<Item> items) {
    const auto& p = ctx.params;
    items = changed_only(ctx, std::move(items));
    ZipOptions options;
    options.method = p.at("compression") == "store" ? ZipMethod::Store : ZipMethod::Deflate;
    options.level = std::stoi(p.at("level"));
    if (options.level < 0 || options.level > 9) throw std::runtime_error("zip: level must be 0..9");
    options.previous = ctx.previous_output;
    std::string prefix = p.count("prefix") ? p.at("prefix") : "";
    while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
    std::vector<ZipEntry> entries;
    for (const auto& it : items) entries.push_back(entry_of(it, prefix));
    const std::string manifest_name = p.count("manifest") ? p.at("manifest") : "";
    const std::string manifest_text = manifest_name.empty() ? "" : manifest_of(entries);
    if (!manifest_name.empty())
        entries.push_back(
            {manifest_name, {reinterpret_cast<const uint8_t*>(manifest_text.data()), manifest_text.size()}});
    ctx.results.zip_entries = items.size();
    if (ctx.scratch_dir.empty()) { // outside a build (a step's own tests): the bytes, made afresh
        auto bytes = make_zip(std::move(entries), options.method, options.level);
        ctx.results.zip_bytes = bytes.size();
        return {bytes_item("package.zip", std::move(bytes))};
    }
    Item archive = archive_file(ctx, std::move(entries), options);
    ctx.results.zip_bytes = archive.file_size;
    std::vector<Item> out;
    out.push_back(std::move(archive));
    return out;
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
         .description = "packs every input of the job into one reproducible zip (sorted entries, fixed timestamps); "
                        "members stream from their files, and a rebuild copies the members whose inputs did not "
                        "change from the zip it replaces: the same bytes as a fresh zip",
         .version = 2, // each member's content hash in the central directory (zip_archive.hpp)
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
         .reads_files = true,
         .run = run_zip,
         .meta_keys = none,
         // Members stream from their files into an archive on disk; items a job's steps made are held, and copied
         // once into libzip's buffers. Each entry's name, source and record: a few hundred bytes.
         .memory = [](const Params&, MemoryFlow& all) { return all.bytes * 1.25 + all.count * 1024.0 + (4 << 20); }});
    table.keeps_names({"copy"});
}

} // namespace af::steps
