#include "pages_edits.hpp"

#include "assetforge/plugin.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <regex>

namespace fs = std::filesystem;

namespace af::vtpages {

using sdk::format;
using sdk::usage;

namespace {

std::vector<uint8_t> read_all(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) sdk::fail(AF_ERR_IO, AF_NO_OFFSET, "cannot open " + p.string());
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

std::vector<uint8_t> read_head(const fs::path& p, size_t n) {
    std::ifstream in(p, std::ios::binary);
    if (!in) sdk::fail(AF_ERR_IO, AF_NO_OFFSET, "cannot open " + p.string());
    std::vector<uint8_t> b(n);
    in.read(reinterpret_cast<char*>(b.data()), std::streamsize(n));
    b.resize(size_t(in.gcount()));
    return b;
}

template <class T> T get_or(const nlohmann::json& j, const char* key, T def) {
    if (!j.contains(key)) return def;
    try {
        return j.at(key).get<T>();
    } catch (const nlohmann::json::exception&) {
        usage(format("manifest: \"%s\" has the wrong type", key));
    }
}

} // namespace

Layout layout_from_manifest(const std::string& manifest_text, const fs::path& base_dir) {
    nlohmann::json m;
    try {
        m = nlohmann::json::parse(manifest_text);
    } catch (const nlohmann::json::exception& e) {
        usage(std::string("manifest is not valid JSON: ") + e.what());
    }
    if (!m.is_object() || !m.contains("levels") || !m.contains("pages") || !m["pages"].is_array())
        usage("manifest: needs an object with \"levels\" and a \"pages\" array");
    Layout l;
    const int levels = get_or<int>(m, "levels", 0);
    const uint32_t scale = get_or<uint32_t>(m, "scale", 2);
    l.header = new_header(levels, scale, get_or<int16_t>(m, "layout_version", 1),
                          get_or<int32_t>(m, "installed_mip_and_offset", 0));
    const uint64_t reserve = get_or<uint64_t>(m, "reserve", 0);
    const int32_t compression = get_or<int32_t>(m, "compression", kCompHdp);
    const std::string order = get_or<std::string>(m, "order", "bfs");
    if (order != "bfs" && order != "dfs" && order != "given")
        usage("manifest: \"order\" must be bfs, dfs or given, not '" + order + "'");
    for (const auto& p : m["pages"]) {
        if (!p.contains("level") || !p.contains("x") || !p.contains("y") || !p.contains("payload"))
            usage("manifest: every page needs level, x, y and payload");
        LayoutNode n;
        n.key = {get_or<uint16_t>(p, "level", 0), get_or<uint16_t>(p, "x", 0), get_or<uint16_t>(p, "y", 0)};
        n.compression = get_or<int32_t>(p, "compression", compression);
        fs::path file = base_dir / get_or<std::string>(p, "payload", "");
        std::error_code ec;
        const uint64_t size = fs::file_size(file, ec);
        if (ec) sdk::fail(AF_ERR_IO, AF_NO_OFFSET, "cannot stat payload " + file.string());
        n.payload_size = checked_payload_size(n.compression, read_head(file, kSubHeaderSize), size, file.string());
        n.payload_path = int32_t(l.paths.size());
        l.paths.push_back(file);
        if (p.contains("reserved")) {
            n.reservation = get_or<uint64_t>(p, "reserved", 0);
        } else {
            n.reservation = align_to_scale(n.used() + get_or<uint64_t>(p, "reserve", reserve), scale);
        }
        l.nodes.push_back(n);
    }
    order_nodes(l.nodes, order == "bfs" ? NodeOrder::Bfs : order == "dfs" ? NodeOrder::Dfs : NodeOrder::Given);
    return l;
}

std::vector<Edit> read_replacement_dir(const fs::path& dir) {
    if (!fs::is_directory(dir)) usage("replacement directory " + dir.string() + " does not exist");
    static const std::regex name(R"((\d+)_(\d+)_(\d+)(?:\.c(\d+))?\.(bin|remove))");
    std::vector<Edit> out;
    for (const auto& e : fs::directory_iterator(dir)) {
        if (!e.is_regular_file()) continue;
        const std::string fn = e.path().filename().string();
        std::smatch mt;
        if (!std::regex_match(fn, mt, name))
            usage("replacement directory: '" + fn + "' is not LEVEL_X_Y.bin, LEVEL_X_Y.cN.bin or LEVEL_X_Y.remove");
        Edit ed;
        ed.key = {uint16_t(std::stoul(mt[1])), uint16_t(std::stoul(mt[2])), uint16_t(std::stoul(mt[3]))};
        ed.kind = mt[5] == "remove" ? Edit::Remove : Edit::Put;
        if (mt[4].matched) ed.compression = int32_t(std::stol(mt[4]));
        ed.file = e.path();
        out.push_back(ed);
    }
    std::sort(out.begin(), out.end(), [](const Edit& a, const Edit& b) { return a.file < b.file; });
    return out;
}

RepackReport apply_edits(Layout& l, const std::vector<Edit>& edits, uint64_t reserve, int32_t add_compression) {
    RepackReport r;
    for (const auto& e : edits)
        if (e.kind == Edit::Remove) remove_subtree(l, e.key, r);
    auto present = [&](PageKey k) {
        return std::any_of(l.nodes.begin(), l.nodes.end(), [&](const LayoutNode& n) { return n.key == k; });
    };
    std::vector<const Edit*> adds;
    for (const auto& e : edits) {
        if (e.kind != Edit::Put) continue;
        if (!present(e.key)) {
            adds.push_back(&e);
            continue;
        }
        int32_t c = e.compression;
        if (c < 0)
            for (const auto& n : l.nodes)
                if (n.key == e.key) c = n.compression;
        replace_page(l, e.key, read_all(e.file), c, reserve, r);
    }
    std::sort(adds.begin(), adds.end(), [](const Edit* a, const Edit* b) { return a->key.level > b->key.level; });
    for (const Edit* e : adds)
        add_page(l, e->key, read_all(e->file), e->compression < 0 ? add_compression : e->compression, reserve, r);
    return r;
}

} // namespace af::vtpages
