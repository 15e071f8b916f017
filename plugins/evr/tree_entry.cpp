#include "tree_entry.hpp"

#include "evr_format.hpp"

#include "assetforge/error.hpp"

#include <algorithm>
#include <fstream>
#include <map>

namespace af::evr {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void bad(const std::string& rel, const std::string& why) {
    sdk::fail(AF_ERR_INVALID_DATA, AF_NO_OFFSET, rel + ": " + why);
}

std::vector<std::string> split(const std::string& rel) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (start <= rel.size()) {
        size_t end = rel.find('/', start);
        if (end == std::string::npos) end = rel.size();
        if (end > start) parts.push_back(rel.substr(start, end - start));
        start = end + 1;
    }
    return parts;
}

} // namespace

TreeEntry parse_tree_path(const std::string& rel) {
    const char* layout = "expected [<group>/]<type hex>/<file hex>[.ext]";
    const std::vector<std::string> parts = split(rel);
    if (parts.size() != 2 && parts.size() != 3) bad(rel, layout);
    TreeEntry e;
    e.where = rel;
    if (parts.size() == 3) {
        const std::string& g = parts[0];
        if (g.empty() || g.size() > 9 || !std::all_of(g.begin(), g.end(), [](char c) { return c >= '0' && c <= '9'; }))
            bad(rel, std::string(layout) + " (the group is a decimal frame index)");
        e.group = std::stoll(g);
    }
    const std::string& type = parts[parts.size() - 2];
    const std::string& name = parts.back();
    const size_t dot = name.find('.');
    const std::string stem = name.substr(0, dot);
    if (dot != std::string::npos) {
        e.ext = name.substr(dot);
        std::transform(e.ext.begin(), e.ext.end(), e.ext.begin(),
                       [](unsigned char c) { return char(std::tolower(c)); });
    }
    if (!parse_symbol(type, e.type) || !parse_symbol(stem, e.file))
        bad(rel, "directory and file names must be hex symbols (1-16 hex digits)");
    return e;
}

void check_unique(const std::vector<TreeEntry>& entries) {
    std::map<std::pair<uint64_t, uint64_t>, const TreeEntry*> seen;
    for (const auto& e : entries) {
        auto [it, fresh] = seen.emplace(std::pair(e.type, e.file), &e);
        if (!fresh) bad(e.where, "names the same type and file symbols as " + it->second->where);
    }
}

std::vector<TreeEntry> read_tree(const fs::path& root) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) sdk::fail(AF_ERR_IO, AF_NO_OFFSET, root.string() + ": not a directory");
    std::vector<std::string> names;
    for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        std::error_code e2;
        if (it->is_symlink(e2))
            sdk::fail(AF_ERR_INVALID_DATA, AF_NO_OFFSET,
                      it->path().string() + ": a symbolic link; the tree's files must be its own");
        if (it->is_regular_file(e2)) names.push_back(it->path().lexically_relative(root).generic_string());
    }
    if (ec) sdk::fail(AF_ERR_IO, AF_NO_OFFSET, root.string() + ": " + ec.message());
    std::sort(names.begin(), names.end());
    std::vector<TreeEntry> out;
    out.reserve(names.size());
    for (const auto& rel : names) {
        TreeEntry e = parse_tree_path(rel);
        std::ifstream in(root / rel, std::ios::binary);
        if (!in) sdk::fail(AF_ERR_IO, AF_NO_OFFSET, (root / rel).string() + ": cannot read");
        e.bytes.assign(std::istreambuf_iterator<char>(in), {});
        if (in.bad()) sdk::fail(AF_ERR_IO, AF_NO_OFFSET, (root / rel).string() + ": read failed");
        out.push_back(std::move(e));
    }
    check_unique(out);
    return out;
}

} // namespace af::evr
