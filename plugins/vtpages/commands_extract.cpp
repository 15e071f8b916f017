// Subcommands that write files from one page or level: blocks, map, cover, pixels.
#include "dxt_page.hpp"
#include "page_images.hpp"
#include "page_pixels.hpp"
#include "page_report.hpp"
#include "pages_command.hpp"
#include "pages_reader.hpp"

#include "assetforge/atomic_file.hpp"
#include "assetforge/plugin.hpp"
#include "assetforge/user_text.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>

namespace fs = std::filesystem;

namespace af::vtpages {

using json = nlohmann::json;

namespace {

struct Located {
    PagesFile file;
    PageInfo page;
};

Located locate(const CommandArgs& a) {
    auto f = PagesFile::open(a.pos[0]);
    const PageKey k{uint16_t(CommandArgs::integer(a.pos[1], "LEVEL", 0, kMaxLevels - 1)),
                    uint16_t(CommandArgs::integer(a.pos[2], "X", 0, 2047)),
                    uint16_t(CommandArgs::integer(a.pos[3], "Y", 0, 2047))};
    auto p = f.find(k);
    if (!p) sdk::invalid(AF_NO_OFFSET, format("page level %u (%u, %u) is not in the file", k.level, k.x, k.y));
    return {std::move(f), *p};
}

std::string stem(const PageInfo& p) { return format("%u_%u_%u", p.node.level, p.node.x, p.node.y); }

BitOrder bit_order(const CommandArgs& a) {
    const std::string v = a.value("--bit-order").value_or("lsb");
    if (v != "lsb" && v != "msb") sdk::usage("--bit-order: lsb or msb, not '" + v + "'");
    return v == "lsb" ? BitOrder::LsbFirst : BitOrder::MsbFirst;
}

} // namespace

int cmd_blocks(const CommandIo& io, const std::vector<std::string>& argv) {
    CommandArgs a = pages_args(argv, {"--out"}, {});
    a.need_positionals(4, "blocks FILE LEVEL X Y --out DIR [--json]");
    const fs::path dir = a.required("--out");
    // Named references, not a structured binding: the lambda below captures
    // them, which clang before 16 refuses for bindings.
    Located loc = locate(a);
    const PagesFile& f = loc.file;
    const PageInfo& p = loc.page;
    fs::create_directories(dir);
    json j = page_json<json>(f, p, true);
    json written = json::array();
    auto write = [&](const std::string& name, uint64_t off, uint64_t size) {
        sdk::write_file_atomic(dir / name, f.bytes(off, size));
        written.push_back({{"file", name}, {"offset", off}, {"size", size}});
    };
    const std::string s = stem(p);
    write(s + ".payload.bin", p.payload_offset(), p.payload);
    if (p.has_sub) {
        const PayloadLayout l = payload_layout(p.sub);
        for (int b = 0; b < kBlockCount; ++b)
            if (l.block_size[b])
                write(s + "." + std::string(block_name(b)) + ".hdp", p.payload_offset() + l.block_offset[b],
                      l.block_size[b]);
        if (l.cover_size) write(s + ".cover.bin", p.payload_offset() + l.cover_offset, l.cover_size);
    } else if (p.node.compression == kCompDxt) {
        for (const auto& d : dxt_surfaces(p.payload))
            write(s + "." + std::string(d.role) + (d.format == 71 ? ".bc1" : ".bc3"), p.payload_offset() + d.offset,
                  d.size);
    }
    j["written"] = written;
    j["pixels"] = p.has_sub                        ? "HDP pixel decoding not supported"
                  : p.node.compression == kCompDxt ? "use `pages pixels`"
                                                   : "layout unknown";
    sdk::write_file_atomic(dir / (s + ".json"), j.dump(1) + "\n");
    if (a.has("--json")) {
        io.out << j.dump(1) << '\n';
        return 0;
    }
    for (const auto& w : written)
        io.out << format("%-36s %8llu bytes from %llu\n", w["file"].get<std::string>().c_str(),
                         ull(w["size"].get<uint64_t>()), ull(w["offset"].get<uint64_t>()));
    if (j.contains("blocks"))
        for (const auto& b : j["blocks"])
            if (b.contains("plane_header"))
                io.out << format("  %-9s plane header: %s\n", b["block"].get<std::string>().c_str(),
                                 b["plane_header"].contains("error")
                                     ? b["plane_header"]["error"].get<std::string>().c_str()
                                     : b["plane_header"]["summary"].get<std::string>().c_str());
    io.out << "parsed: colour format, bands, component count, DC/LP/HP QPs of uniform planes; the coded data is not "
              "decoded\n";
    return 0;
}

int cmd_map(const CommandIo& io, const std::vector<std::string>& argv) {
    CommandArgs a = pages_args(argv, {"--out"}, {});
    a.need_positionals(2, "map FILE LEVEL --out PNG [--json]");
    auto f = PagesFile::open(a.pos[0]);
    const int level = int(CommandArgs::integer(a.pos[1], "LEVEL", 0, f.levels() - 1));
    const fs::path out = a.required("--out");
    OccupancyMap m = occupancy_map(f, level);
    sdk::write_file_atomic(out, png_of(io.host, m.image));
    const uint64_t cells = uint64_t(m.grid) * m.grid;
    json legend = {{"absent", "black"},
                   {"ramp", "blue → cyan → green → yellow → red"},
                   {"min_bytes", m.min_used},
                   {"max_bytes", m.max_used},
                   {"bar", "bottom strip, left = min_bytes, right = max_bytes"}};
    if (a.has("--json")) {
        io.out << json{{"file", a.pos[0]},     {"level", level}, {"grid", m.grid},      {"cell_pixels", m.cell},
                       {"present", m.present}, {"cells", cells}, {"png", out.string()}, {"legend", legend}}
                      .dump(1)
               << '\n';
    } else {
        io.out << format("level %d: %llu of %llu pages present (%.1f%%), %ux%u grid, %u px per page -> %s\n", level,
                         ull(m.present), ull(cells), cells ? 100.0 * double(m.present) / double(cells) : 0.0, m.grid,
                         m.grid, m.cell, out.string().c_str())
               << format("legend: black = absent; colour = page size on disk, blue %llu B -> red %llu B (bar at the "
                         "bottom, left to right)\n",
                         ull(m.min_used), ull(m.max_used));
    }
    return 0;
}

int cmd_cover(const CommandIo& io, const std::vector<std::string>& argv) {
    CommandArgs a = pages_args(argv, {"--out", "--bit-order"}, {});
    a.need_positionals(4, "cover FILE LEVEL X Y --out PNG [--bit-order lsb|msb] [--json]");
    const fs::path out = a.required("--out");
    const BitOrder order = bit_order(a);
    auto [f, p] = locate(a);
    if (!p.has_sub || !p.sub.has_cover()) {
        io.err << format("%s: page %s has no cover mask (flag 0x8 clear)\n", sdk::printable(a.pos[0]).c_str(),
                         stem(p).c_str());
        return 1;
    }
    const PayloadLayout l = payload_layout(p.sub);
    auto mask = f.bytes(p.payload_offset() + l.cover_offset, l.cover_size);
    sdk::write_file_atomic(out, cover_png(io.host, mask, order));
    uint64_t set = 0;
    for (uint8_t b : mask) set += uint64_t(__builtin_popcount(b));
    if (a.has("--json"))
        io.out << json{{"page", stem(p)},
                       {"offset", p.payload_offset() + l.cover_offset},
                       {"bits_set", set},
                       {"bits", 16384},
                       {"bit_order", order == BitOrder::LsbFirst ? "lsb" : "msb"},
                       {"png", out.string()}}
                      .dump(1)
               << '\n';
    else
        io.out << format(
            "cover mask of %s at %llu: %llu of 16384 texels set -> %s (1-bit, %s-first; bit order unverified)\n",
            stem(p).c_str(), ull(p.payload_offset() + l.cover_offset), ull(set), out.string().c_str(),
            order == BitOrder::LsbFirst ? "LSB" : "MSB");
    return 0;
}

int cmd_pixels(const CommandIo& io, const std::vector<std::string>& argv) {
    CommandArgs a = pages_args(argv, {"--out"}, {});
    a.need_positionals(4, "pixels FILE LEVEL X Y --out DIR [--json]");
    const fs::path dir = a.required("--out");
    auto [f, p] = locate(a);
    auto surfaces = page_pixels(io.host, f, p);
    fs::create_directories(dir);
    json j = json::array();
    for (const auto& s : surfaces) {
        const std::string name = stem(p) + "." + s.role + ".png";
        sdk::write_file_atomic(dir / name, png_of(io.host, s.image));
        j.push_back(name);
        if (!a.has("--json")) io.out << name << '\n';
    }
    if (a.has("--json"))
        io.out << json{{"written", j}, {"channel_assignment", "unverified"}}.dump(1) << '\n';
    else
        io.out << "channel assignment of DXT page surfaces is unverified\n";
    return 0;
}

} // namespace af::vtpages
