#include "pages_stages.hpp"

#include "dxt_page.hpp"
#include "page_images.hpp"
#include "page_pixels.hpp"
#include "pages_census.hpp"
#include "pages_edits.hpp"
#include "pages_reader.hpp"
#include "pages_writer.hpp"

#include "assetforge/plugin.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace af::vtpages {

using sdk::format;

namespace {

const af_item& only_input(const af_stage_io* io) {
    if (!io || io->input_count != 1 || !io->inputs[0]) sdk::usage("this stage takes exactly one input item");
    const af_item& in = *io->inputs[0];
    if (!in.bytes) sdk::usage("this stage takes the bytes of a .pages file");
    return in;
}

// An item with owned name, bytes and metadata until it is emitted (the host copies it).
struct OutItem {
    std::string name;
    std::vector<std::pair<std::string, std::string>> kv;
    void emit(const af_stage_io* io, std::span<const uint8_t> bytes) const { sdk::emit_bytes(io, name, bytes, kv); }
};

OutItem page_item(const PageInfo& p, const std::string& suffix) {
    OutItem o;
    o.name = format("%u_%u_%u%s", p.node.level, p.node.x, p.node.y, suffix.c_str());
    o.kv = {{"level", std::to_string(p.node.level)},
            {"mip", std::to_string(p.node.level)},
            {"x", std::to_string(p.node.x)},
            {"y", std::to_string(p.node.y)},
            {"compression", std::to_string(p.node.compression)},
            {"compression_name", std::string(compression_name(p.node.compression))},
            {"offset", std::to_string(p.offset)}};
    return o;
}

} // namespace

af_status stage_extract(const af_host* host, const af_stage_io* io, const af_options* params, af_error* error) {
    return sdk::guard(error, [&] {
        const af_item& in = only_input(io);
        sdk::Options opt(params);
        const std::string what = opt.choice("what", "payload", {"payload", "blocks", "cover", "pixels"});
        const long long only_level = opt.integer("level", -1, -1, kMaxLevels - 1);
        const BitOrder order =
            opt.choice("bit_order", "lsb", {"lsb", "msb"}) == "lsb" ? BitOrder::LsbFirst : BitOrder::MsbFirst;
        PagesFile f({in.bytes, in.size});
        take_census(f); // refuse damaged files before emitting anything
        walk_tree(f, [&](const WalkStep& s) {
            const PageInfo& p = s.page;
            if (only_level >= 0 && p.node.level != only_level) return;
            if (what == "payload") {
                page_item(p, ".bin").emit(io, f.bytes(p.payload_offset(), p.payload));
            } else if (what == "blocks") {
                if (p.has_sub) {
                    const PayloadLayout l = payload_layout(p.sub);
                    for (int b = 0; b < kBlockCount; ++b) {
                        if (!l.block_size[b]) continue;
                        OutItem o = page_item(p, format(".%s.hdp", std::string(block_name(b)).c_str()));
                        o.kv.emplace_back("block", std::string(block_name(b)));
                        o.emit(io, f.bytes(p.payload_offset() + l.block_offset[b], l.block_size[b]));
                    }
                } else if (p.node.compression == kCompDxt) {
                    for (const auto& d : dxt_surfaces(p.payload)) {
                        OutItem o =
                            page_item(p, format(".%s.%s", std::string(d.role).c_str(), d.format == 71 ? "bc1" : "bc3"));
                        o.kv.emplace_back("block", std::string(d.role));
                        o.emit(io, f.bytes(p.payload_offset() + d.offset, d.size));
                    }
                } else {
                    page_item(p, ".bin").emit(io, f.bytes(p.payload_offset(), p.payload));
                }
            } else if (what == "cover") {
                if (!p.has_sub || !p.sub.has_cover()) return;
                const PayloadLayout l = payload_layout(p.sub);
                page_item(p, ".cover.png")
                    .emit(io, cover_png(host, f.bytes(p.payload_offset() + l.cover_offset, l.cover_size), order));
            } else {
                for (const auto& s : page_pixels(host, f, p)) {
                    OutItem o = page_item(p, format(".%s.png", s.role.c_str()));
                    o.kv.emplace_back("surface", s.role);
                    o.emit(io, png_of(host, s.image));
                }
            }
        });
    });
}

af_status stage_build(const af_host*, const af_stage_io* io, const af_options* params, af_error* error) {
    return sdk::guard(error, [&] {
        sdk::Options opt(params);
        const uint32_t scale = uint32_t(opt.integer("scale", 2, 1, 64));
        const std::string order = opt.choice("order", "bfs", {"bfs", "dfs"});
        const uint64_t reserve = uint64_t(opt.integer("reserve", 0, 0, 1 << 24));
        const int32_t comp = int32_t(opt.integer("compression", kCompHdp, 1, 6));
        const std::string name = opt.str("name", "pages.pages");
        if (!io || io->input_count == 0) sdk::usage("pages.build needs at least one page item");
        Layout l;
        int levels = int(opt.integer("levels", 0, 0, kMaxLevels));
        for (uint32_t i = 0; i < io->input_count; ++i) {
            const af_item& it = *io->inputs[i];
            const std::string lv =
                sdk::item_meta(it, "level").empty() ? sdk::item_meta(it, "mip") : sdk::item_meta(it, "level");
            if (lv.empty() || sdk::item_meta(it, "x").empty() || sdk::item_meta(it, "y").empty() || !it.bytes)
                sdk::usage(format("item %s: needs bytes and level (or mip), x, y metadata", it.name ? it.name : "?"));
            LayoutNode n;
            n.key = {uint16_t(std::stoul(lv)), uint16_t(std::stoul(sdk::item_meta(it, "x"))),
                     uint16_t(std::stoul(sdk::item_meta(it, "y")))};
            n.compression = sdk::item_meta(it, "compression").empty()
                                ? comp
                                : int32_t(std::stol(sdk::item_meta(it, "compression")));
            std::span<const uint8_t> bytes{it.bytes, it.size};
            n.payload_size = checked_payload_size(n.compression, bytes, bytes.size(), it.name ? it.name : "item");
            n.payload = bytes; // borrowed for the duration of this call, emitted before returning
            if (levels == 0 || n.key.level + 1 > levels) levels = std::max(levels, n.key.level + 1);
            l.nodes.push_back(n);
        }
        l.header = new_header(levels, scale, 1, 0);
        for (auto& n : l.nodes) n.reservation = align_to_scale(n.used() + reserve, scale);
        order_nodes(l.nodes, order == "bfs" ? NodeOrder::Bfs : NodeOrder::Dfs);
        std::vector<uint8_t> out = emit_to_memory(l);
        take_census(PagesFile({out.data(), out.size()}));
        OutItem o;
        o.name = name;
        o.kv = {{"pages", std::to_string(l.nodes.size())}, {"levels", std::to_string(levels)}};
        o.emit(io, out);
    });
}

af_status stage_repack(const af_host*, const af_stage_io* io, const af_options* params, af_error* error) {
    return sdk::guard(error, [&] {
        const af_item& in = only_input(io);
        sdk::Options opt(params);
        auto dir = opt.get("replacements");
        if (!dir) sdk::usage("pages.repack needs the parameter 'replacements' (a directory)");
        fs::path d{std::string(*dir)};
        if (d.is_relative() && io->base_dir) d = fs::path(io->base_dir) / d;
        const uint64_t reserve = uint64_t(opt.integer("reserve", 0, 0, 1 << 24));
        const int32_t comp = int32_t(opt.integer("compression", kCompHdp, 1, 6));
        PagesFile f({in.bytes, in.size});
        Layout l = layout_of(f);
        RepackReport r = apply_edits(l, read_replacement_dir(d), reserve, comp);
        std::vector<uint8_t> out = emit_to_memory(l);
        take_census(PagesFile({out.data(), out.size()}));
        OutItem o;
        o.name = in.name ? in.name : "repacked.pages";
        o.kv = {{"replaced_in_place", std::to_string(r.replaced_in_place)},
                {"relocated", std::to_string(r.relocated)},
                {"added", std::to_string(r.added)},
                {"removed", std::to_string(r.removed)}};
        o.emit(io, out);
    });
}

} // namespace af::vtpages
