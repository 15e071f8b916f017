#include "page_report.hpp"

#include "dxt_page.hpp"
#include "plane_header.hpp"

#include "assetforge/plugin.hpp"

#include <nlohmann/json.hpp>

namespace af::vtpages {

using sdk::format;

template <class Json> Json compression_json(int32_t c) {
    return {{"number", c}, {"name", std::string(compression_name(c))}};
}

template <class Json> Json header_json(const PagesFile& f) {
    const FileHeader& h = f.header();
    Json problems = Json::array();
    for (auto& p : f.header_problems()) problems.push_back(p);
    return {{"magic", format("0x%08x", h.magic)},
            {"pages_wide", h.pages_wide},
            {"installed_mip_and_offset", h.installed_mip_and_offset},
            {"installed_mip", h.installed_mip()},
            {"num_levels", h.num_levels},
            {"layout_version", h.layout_version},
            {"total_pages", h.total_pages},
            {"disk_offset_scale", h.disk_offset_scale},
            {"scale", f.scale()},
            {"total_file_size", h.total_file_size},
            {"file_size", f.size()},
            {"header_ok", problems.empty()},
            {"problems", problems}};
}

template <class Json> Json plane_json(std::span<const uint8_t> block) {
    try {
        PlaneHeader h = parse_plane_header(block);
        auto qp = [](const QuantSet& q) -> Json { return q.present ? Json(q.qp) : Json("per tile"); };
        return {{"colour_format", std::string(h.colour_format_name())},
                {"colour_format_number", h.colour_format},
                {"bands", std::string(h.bands_name())},
                {"no_scaled", h.no_scaled},
                {"components", h.components},
                {"dc_qp", qp(h.dc)},
                {"lp_qp", qp(h.lp)},
                {"hp_qp", qp(h.hp)},
                {"header_bytes", h.header_bytes},
                {"next_byte", h.next_byte},
                {"tile_start_code", h.tile_start_code},
                {"summary", h.describe()}};
    } catch (const sdk::Error& e) {
        return {{"error", e.what()}};
    }
}

template <class Json> Json page_json(const PagesFile& f, const PageInfo& p, bool with_planes) {
    Json j = {{"offset", p.offset},
              {"level", p.node.level},
              {"mip", p.node.level},
              {"x", p.node.x},
              {"y", p.node.y},
              {"compression", compression_json<Json>(p.node.compression)},
              {"reserved_field", p.node.reserved},
              {"reserved", p.reserved},
              {"used", p.used()},
              {"payload", p.payload},
              {"slack", p.slack()}};
    Json kids = Json::array();
    for (int i = 0; i < 4; ++i)
        kids.push_back(p.node.child_length[i] ? Json{{"slot", i},
                                                     {"offset", uint64_t(p.node.child_offset[i]) * f.scale()},
                                                     {"reserved", uint64_t(p.node.child_length[i]) * f.scale()}}
                                              : Json(nullptr));
    j["children"] = kids;
    const uint64_t base = p.payload_offset();
    if (p.has_sub) {
        const PayloadLayout l = payload_layout(p.sub);
        j["quality"] = p.sub.quality;
        j["flags"] = p.sub.flags;
        j["specular_shift"] = p.sub.specular_shift();
        j["mono_specular"] = bool(p.sub.flags & kFlagMonoSpecular);
        j["cover_mask"] = p.sub.has_cover();
        Json blocks = Json::array();
        for (int b = 0; b < kBlockCount; ++b) {
            Json bj = {
                {"block", std::string(block_name(b))}, {"offset", base + l.block_offset[b]}, {"size", l.block_size[b]}};
            if (with_planes && l.block_size[b])
                bj["plane_header"] = plane_json<Json>(f.bytes(base + l.block_offset[b], l.block_size[b]));
            blocks.push_back(bj);
        }
        j["blocks"] = blocks;
        if (l.cover_size) j["cover"] = {{"offset", base + l.cover_offset}, {"size", l.cover_size}};
    } else if (p.node.compression == kCompDxt) {
        Json s = Json::array();
        for (const auto& d : dxt_surfaces(p.payload))
            s.push_back({{"surface", std::string(d.role)},
                         {"format", d.format == 71 ? "BC1" : "BC3"},
                         {"offset", base + d.offset},
                         {"size", d.size},
                         {"width", 128},
                         {"height", 128}});
        j["surfaces"] = s;
        j["channel_assignment"] = "unverified";
    }
    return j;
}

template <class Json> Json census_json(const Census& c) {
    Json per_level = Json::object();
    for (int l = 0; l < kMaxLevels; ++l)
        if (c.per_level[l]) per_level[std::to_string(l)] = c.per_level[l];
    Json per_comp = Json::object();
    for (int i = 0; i < kCompCount; ++i)
        if (c.per_compression[i])
            per_comp[format("%d %s", i, std::string(compression_name(i)).c_str())] = c.per_compression[i];
    Json flags = Json::object();
    for (int i = 0; i < 256; ++i)
        if (c.flags[i]) flags[std::to_string(i)] = c.flags[i];
    Json blocks = Json::object();
    for (int b = 0; b < kBlockCount; ++b) blocks[std::string(block_name(b))] = c.block_bytes[b];
    return {{"pages", c.pages},
            {"edges", c.edges},
            {"per_level", per_level},
            {"per_compression", per_comp},
            {"flags", flags},
            {"bytes",
             {{"file", c.file_size},
              {"used", c.used},
              {"slack", c.slack},
              {"file_header_and_root_pointer", c.header_bytes},
              {"node_headers", c.node_header_bytes},
              {"sub_headers", c.sub_header_bytes},
              {"blocks", blocks},
              {"cover_masks", c.cover_bytes},
              {"padding", c.pad_bytes},
              {"dxt_or_uncompressed_payloads", c.opaque_payload_bytes}}},
            {"cover_masks", c.cover_masks},
            {"pages_with_slack", c.pages_with_slack},
            {"pages_with_2048_slack", c.slack_2048},
            {"max_slack", c.max_slack}};
}

template nlohmann::json compression_json<nlohmann::json>(int32_t);
template nlohmann::json header_json<nlohmann::json>(const PagesFile&);
template nlohmann::json plane_json<nlohmann::json>(std::span<const uint8_t>);
template nlohmann::json page_json<nlohmann::json>(const PagesFile&, const PageInfo&, bool);
template nlohmann::json census_json<nlohmann::json>(const Census&);

std::string walk_line(const PageInfo& p) {
    std::string sizes = "-";
    if (p.has_sub)
        sizes =
            format("%u/%u/%u/%u/%u", p.sub.sizes[0], p.sub.sizes[1], p.sub.sizes[2], p.sub.sizes[3], p.sub.sizes[4]);
    return format("%llu %u %u %u %d(%s) %u %llu %llu %s %s", (unsigned long long)p.offset, p.node.level, p.node.x,
                  p.node.y, int(p.node.compression), std::string(compression_name(p.node.compression)).c_str(),
                  p.node.reserved, (unsigned long long)p.reserved, (unsigned long long)p.used(),
                  p.has_sub ? std::to_string(p.sub.flags).c_str() : "-", sizes.c_str());
}

} // namespace af::vtpages
