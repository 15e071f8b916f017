#include "texture_info.hpp"

#include "vtf_file.hpp"
#include "vtf_formats.hpp"
#include "xtf_format.hpp"

#include "assetforge/formats.hpp"
#include "assetforge/plugin.hpp"

#include <nlohmann/json.hpp>

#include <cstring>

namespace af::xtf {

using nlohmann::json;
using sdk::format;

namespace {

std::string hex32(uint32_t v) { return format("0x%08x", v); }

json block_json(const XtfBlock& b) {
    return {{"frame", b.frame},   {"face", b.face},   {"mip", b.mip},       {"width", b.width},
            {"height", b.height}, {"depth", b.depth}, {"offset", b.offset}, {"size", b.size}};
}

void block_lines(std::string& t, const char* title, const std::vector<XtfBlock>& blocks) {
    t += format("%s (%zu blocks, file order):\n", title, blocks.size());
    t += "  frame face mip    size          offset     bytes\n";
    for (const auto& b : blocks)
        t += format("  %5u %4u %3u %5ux%-5u%-4s %10llu %9llu\n", b.frame, b.face, b.mip, b.width, b.height,
                    b.depth > 1 ? format("x%u", b.depth).c_str() : "", (unsigned long long)b.offset,
                    (unsigned long long)b.size);
}

json xtf_header_json(const XtfHeader& h, const std::string& fmt_name) {
    return {{"signature", "XTF\\0"},
            {"version", {h.version_major, h.version_minor}},
            {"header_size", h.header_size},
            {"flags", h.flags},
            {"flags_hex", hex32(h.flags)},
            {"flag_names", flag_names(h.flags, true)},
            {"width", h.width},
            {"height", h.height},
            {"depth", h.depth},
            {"frames", h.frames},
            {"preload_size", h.preload_size},
            {"image_offset", h.image_offset},
            {"reflectivity", {h.reflectivity[0], h.reflectivity[1], h.reflectivity[2]}},
            {"bumpmap_scale", h.bumpmap_scale},
            {"image_format", h.image_format},
            {"image_format_name", fmt_name},
            {"lowres_width", h.lowres_width},
            {"lowres_height", h.lowres_height},
            {"fallback_width", h.fallback_width},
            {"fallback_height", h.fallback_height},
            {"mip_skip", h.mip_skip},
            {"padding_byte", h.padding}};
}

// Where every part of the file lies, and each block of the image and the fallback.
json xtf_layout_json(const XtfLayout& L, uint64_t size) {
    return {{"lowres", {{"offset", L.lowres_offset}, {"size", L.lowres_size}}},
            {"palette", L.palette_size ? json{{"offset", L.palette_offset}, {"size", L.palette_size}} : json()},
            {"fallback",
             L.fallback_size
                 ? json{{"offset", L.fallback_offset}, {"size", L.fallback_size}, {"mip_count", L.fallback_mips}}
                 : json()},
            {"preload_end", L.preload_end},
            {"image", {{"offset", L.image_offset}, {"size", L.image_size}}},
            {"end_of_data", L.end_of_data},
            {"file_size", L.file_size},
            {"actual_file_size", size}};
}

std::string xtf_text(const XtfHeader& h, const XtfLayout& L, const FormatInfo* fi, const std::string& fmt_name,
                     uint64_t size) {
    std::string t;
    t += "container: xtf (Half-Life 2 original Xbox texture)\n";
    t += format("version: %u.%u, header size %u\n", h.version_major, h.version_minor, h.header_size);
    t += format("size: %ux%ux%u, %u frame(s), %u face(s), %u mip(s)%s\n", h.width, h.height, h.depth, h.frames, L.faces,
                L.mips, L.nomip_repaired ? " (NOMIP missing, single-mip file: repaired)" : "");
    t += format("format: %s (VTF id %d, AssetForge %s), %s\n", fmt_name.c_str(), h.image_format,
                std::string(fi->name).c_str(), fi->compressed() ? "not swizzled" : "swizzled");
    t += format("flags: %s %s\n", hex32(h.flags).c_str(), flag_names(h.flags, true).c_str());
    t += format("reflectivity: %.6f %.6f %.6f, bumpmap scale %.6g, mip skip %u, padding byte %u\n", h.reflectivity[0],
                h.reflectivity[1], h.reflectivity[2], h.bumpmap_scale, h.mip_skip, h.padding);
    t += format("low-res image: %ux%u at %llu (%llu bytes)\n", h.lowres_width, h.lowres_height,
                (unsigned long long)L.lowres_offset, (unsigned long long)L.lowres_size);
    if (L.palette_size)
        t += format("palettes: %u x 1024 bytes at %llu\n", h.frames, (unsigned long long)L.palette_offset);
    if (L.fallback_size)
        t += format("fallback: %ux%u, %u mip(s), at %llu (%llu bytes)\n", h.fallback_width, h.fallback_height,
                    L.fallback_mips, (unsigned long long)L.fallback_offset, (unsigned long long)L.fallback_size);
    else
        t += "fallback: none\n";
    t += format("preload size: %u (computed %llu), image offset: %u\n", h.preload_size,
                (unsigned long long)L.preload_end, h.image_offset);
    t += format("high-res data: %llu bytes, end of data %llu, padded file size %llu (actual %llu)\n",
                (unsigned long long)L.image_size, (unsigned long long)L.end_of_data, (unsigned long long)L.file_size,
                (unsigned long long)size);
    if (!L.fallback.empty()) block_lines(t, "fallback blocks", L.fallback);
    block_lines(t, "image blocks", L.image);
    return t;
}

} // namespace

InfoReport describe_xtf(const uint8_t* data, uint64_t size) {
    const XtfHeader h = parse_xtf_header(data, size);
    const XtfLayout L = xtf_layout(h, size);
    InfoReport r;
    const std::string fmt_name(vtf_format_name(h.image_format));
    const FormatInfo* fi = format_info(L.format);
    json derived = {{"mip_count", L.mips},
                    {"face_count", L.faces},
                    {"fallback_mip_count", L.fallback_mips},
                    {"nomip_repaired", L.nomip_repaired},
                    {"swizzled", !fi->compressed()},
                    {"assetforge_format", std::string(fi->name)},
                    {"assetforge_format_id", L.format}};
    if (L.lowres_size == 3)
        derived["lowres_rgb"] = {data[L.lowres_offset], data[L.lowres_offset + 1], data[L.lowres_offset + 2]};
    json image = json::array(), fallback = json::array();
    for (const auto& b : L.image) image.push_back(block_json(b));
    for (const auto& b : L.fallback) fallback.push_back(block_json(b));
    const json doc = {{"container", "xtf"},    {"header", xtf_header_json(h, fmt_name)},
                      {"derived", derived},    {"layout", xtf_layout_json(L, size)},
                      {"image_blocks", image}, {"fallback_blocks", fallback}};
    r.json = doc.dump(1);
    r.text = xtf_text(h, L, fi, fmt_name, size);
    return r;
}

InfoReport describe_vtf(const uint8_t* data, uint64_t size) {
    const VtfHeader h = parse_vtf_header(data, size);
    const VtfLayout L = vtf_layout(h, size);
    InfoReport r;
    const std::string fmt_name(vtf_format_name(h.image_format));
    json resources = json::array();
    for (const auto& e : h.resources)
        resources.push_back({{"tag", {e.tag[0], e.tag[1], e.tag[2]}}, {"flags", e.flags}, {"value", e.value}});
    json header = {{"signature", "VTF\\0"},
                   {"version", {h.version_major, h.version_minor}},
                   {"header_size", h.header_size},
                   {"width", h.width},
                   {"height", h.height},
                   {"depth", h.depth},
                   {"flags", h.flags},
                   {"flags_hex", hex32(h.flags)},
                   {"flag_names", flag_names(h.flags, false)},
                   {"frames", h.frames},
                   {"start_frame", h.start_frame},
                   {"reflectivity", {h.reflectivity[0], h.reflectivity[1], h.reflectivity[2]}},
                   {"bumpmap_scale", h.bumpmap_scale},
                   {"image_format", h.image_format},
                   {"image_format_name", fmt_name},
                   {"mip_count", h.mip_count},
                   {"lowres_format", h.lowres_format},
                   {"lowres_width", h.lowres_width},
                   {"lowres_height", h.lowres_height},
                   {"resources", resources}};
    // Blocks in file order: mip smallest first → frame → face.
    json blocks = json::array();
    std::string table;
    uint64_t off = L.image_offset;
    for (int m = int(h.mip_count) - 1; m >= 0; --m)
        for (uint32_t f = 0; f < h.frames; ++f)
            for (uint32_t face = 0; face < L.faces; ++face) {
                const uint32_t w = mip_extent(h.width, m), hh = mip_extent(h.height, m), d = mip_extent(h.depth, m);
                const uint64_t n = surface_bytes(L.format, w, hh, d);
                blocks.push_back({{"frame", f},
                                  {"face", face},
                                  {"mip", m},
                                  {"width", w},
                                  {"height", hh},
                                  {"depth", d},
                                  {"offset", off},
                                  {"size", n}});
                table += format("  %5u %4u %3d %5ux%-5u %10llu %9llu%s\n", f, face, m, w, hh, (unsigned long long)off,
                                (unsigned long long)n, face == 6 ? "  (spheremap, dropped)" : "");
                off += n;
            }
    const json doc = {{"container", "vtf"},
                      {"header", header},
                      {"derived", {{"faces_in_file", L.faces}, {"faces", L.faces_kept}}},
                      {"layout",
                       {{"thumbnail", {{"offset", L.thumbnail_offset}, {"size", L.thumbnail_size}}},
                        {"image", {{"offset", L.image_offset}, {"size", L.image_size}}},
                        {"file_size", size}}},
                      {"image_blocks", blocks}};
    r.json = doc.dump(1);
    std::string& t = r.text;
    t += "container: vtf (Valve Texture Format)\n";
    t += format("version: %u.%u, header size %u\n", h.version_major, h.version_minor, h.header_size);
    t += format("size: %ux%ux%u, %u frame(s) (start %u), %u face(s)%s, %u mip(s)\n", h.width, h.height, h.depth,
                h.frames, h.start_frame, L.faces_kept, L.faces == 7 ? " + spheremap" : "", h.mip_count);
    t += format("format: %s (VTF id %d)\n", fmt_name.c_str(), h.image_format);
    t += format("flags: %s %s\n", hex32(h.flags).c_str(), flag_names(h.flags, false).c_str());
    t += format("reflectivity: %.6f %.6f %.6f, bumpmap scale %.6g\n", h.reflectivity[0], h.reflectivity[1],
                h.reflectivity[2], h.bumpmap_scale);
    t += format("thumbnail: %s %ux%u at %llu (%llu bytes)\n",
                h.lowres_format < 0 ? "none" : std::string(vtf_format_name(h.lowres_format)).c_str(), h.lowres_width,
                h.lowres_height, (unsigned long long)L.thumbnail_offset, (unsigned long long)L.thumbnail_size);
    for (const auto& e : h.resources)
        t += format("resource: tag %02x %02x %02x flags 0x%02x value %u\n", e.tag[0], e.tag[1], e.tag[2], e.flags,
                    e.value);
    t += format("high-res data: %llu bytes at %llu\nimage blocks (file order):\n  frame face mip    size          "
                "offset     bytes\n",
                (unsigned long long)L.image_size, (unsigned long long)L.image_offset);
    t += table;
    return r;
}

} // namespace af::xtf
