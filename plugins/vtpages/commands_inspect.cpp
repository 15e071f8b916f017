// Read-only subcommands: list, header, walk, page, stats, selftest, region.
#include "page_report.hpp"
#include "pages_census.hpp"
#include "pages_command.hpp"
#include "pages_reader.hpp"

#include "assetforge/atomic_file.hpp"
#include "assetforge/plugin.hpp"
#include "assetforge/user_text.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace fs = std::filesystem;

namespace af::vtpages {

using json = nlohmann::json;

namespace {

struct FileResult {
    bool ok = false;
    std::string text;
    json j;
};

// Runs fn on every file in parallel; errors become failed results in order.
template <class F> std::vector<FileResult> per_file(const CommandIo& io, const std::vector<std::string>& files, F fn) {
    std::vector<FileResult> out(files.size());
    sdk::parallel_for(io.host, files.size(), 1, [&](uint64_t b, uint64_t e) {
        for (uint64_t i = b; i < e; ++i) {
            try {
                out[i] = fn(files[i]);
            } catch (const std::exception& x) {
                out[i].ok = false;
                out[i].text = file_error(files[i], x);
                out[i].j = {{"file", files[i]}, {"ok", false}, {"error", sdk::describe(x)}};
                if (auto* se = dynamic_cast<const sdk::Error*>(&x); se && se->offset() != AF_NO_OFFSET)
                    out[i].j["offset"] = se->offset();
            }
        }
    });
    return out;
}

// Failed files go to stderr unless `one_table` keeps every line together on stdout.
int print_results(const CommandIo& io, const std::vector<FileResult>& rs, bool as_json, bool one_table = false) {
    bool all_ok = true;
    json arr = json::array();
    for (const auto& r : rs) {
        all_ok = all_ok && r.ok;
        if (as_json)
            arr.push_back(r.j);
        else
            (r.ok || one_table ? io.out : io.err) << r.text << '\n';
    }
    if (as_json) io.out << arr.dump(1) << '\n';
    return all_ok ? 0 : 1;
}

PageKey page_key(const CommandArgs& a, size_t first) {
    return {uint16_t(CommandArgs::integer(a.pos[first], "LEVEL", 0, kMaxLevels - 1)),
            uint16_t(CommandArgs::integer(a.pos[first + 1], "X", 0, 2047)),
            uint16_t(CommandArgs::integer(a.pos[first + 2], "Y", 0, 2047))};
}

} // namespace

std::string file_error(const std::string& file, const std::exception& e) {
    std::string s = sdk::printable(file) + ": " + sdk::printable(sdk::describe(e));
    if (auto* se = dynamic_cast<const sdk::Error*>(&e); se && se->offset() != AF_NO_OFFSET)
        s += format(" (offset %llu)", ull(se->offset()));
    return s;
}

int cmd_list(const CommandIo& io, const std::vector<std::string>& argv) {
    CommandArgs a = pages_args(argv, {}, {});
    a.need_positionals(1, "list DIR [--json]");
    std::vector<std::string> files;
    if (!fs::is_directory(a.pos[0])) sdk::usage("list: " + a.pos[0] + " is not a directory");
    for (auto& e : fs::recursive_directory_iterator(a.pos[0]))
        if (e.is_regular_file() && e.path().extension() == ".pages") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    auto rs = per_file(io, files, [&](const std::string& f) {
        auto file = PagesFile::open(f);
        auto problems = file.header_problems();
        const FileHeader& h = file.header();
        FileResult r;
        r.ok = problems.empty();
        const std::string name = fs::relative(f, a.pos[0]).string();
        r.text =
            format("%-32s %12llu %6d %4d %9d %6u  %s", name.c_str(), ull(file.size()), h.pages_wide, int(h.num_levels),
                   h.total_pages, file.scale(), problems.empty() ? "ok" : problems.front().c_str());
        r.j = {{"file", name},
               {"bytes", file.size()},
               {"across", h.pages_wide},
               {"levels", h.num_levels},
               {"nodes", h.total_pages},
               {"scale", file.scale()},
               {"header_ok", problems.empty()},
               {"problems", problems}};
        return r;
    });
    if (!a.has("--json"))
        io.out << format("%-32s %12s %6s %4s %9s %6s  %s\n", "file", "bytes", "across", "lvl", "nodes", "scale", "hdr");
    return print_results(io, rs, a.has("--json"), true);
}

int cmd_header(const CommandIo& io, const std::vector<std::string>& argv) {
    CommandArgs a = pages_args(argv, {}, {});
    a.need_positionals(1, "header FILE [--json]");
    auto f = PagesFile::open(a.pos[0]);
    json j = header_json<json>(f);
    const NodeHeader root = f.root_pointer();
    j["root_pointer"] = {{"compression", compression_json<json>(root.compression)},
                         {"top_offset", uint64_t(root.child_offset[0]) * f.scale()},
                         {"top_reserved", uint64_t(root.child_length[0]) * f.scale()}};
    if (a.has("--json")) {
        io.out << j.dump(1) << '\n';
    } else {
        const FileHeader& h = f.header();
        io.out << format("magic                   0x%08x\n", h.magic)
               << format("pagesWide (across)      %d\n", h.pages_wide)
               << format("installedMipAndOffset   0x%08x (installed mip %d)\n", uint32_t(h.installed_mip_and_offset),
                         h.installed_mip())
               << format("numLevels               %d\n", h.num_levels)
               << format("layoutVersion           %d\n", h.layout_version)
               << format("totalPages              %d\n", h.total_pages)
               << format("diskOffsetScale         %d (scale %u)\n", h.disk_offset_scale, f.scale())
               << format("totalFileSize           %lld (file %llu)\n", (long long)h.total_file_size, ull(f.size()))
               << format("root pointer            compression %d (%s), top page at %llu, reserved %llu\n",
                         root.compression, std::string(compression_name(root.compression)).c_str(),
                         ull(uint64_t(root.child_offset[0]) * f.scale()),
                         ull(uint64_t(root.child_length[0]) * f.scale()));
        auto problems = f.header_problems();
        io.out << "header check            " << (problems.empty() ? "ok" : "") << '\n';
        for (auto& p : problems) io.out << "  " << p << '\n';
    }
    return f.header_problems().empty() ? 0 : 1;
}

int cmd_walk(const CommandIo& io, const std::vector<std::string>& argv) {
    CommandArgs a = pages_args(argv, {}, {"--tree"});
    a.need_positionals(1, "walk FILE [--tree] [--json]");
    auto f = PagesFile::open(a.pos[0]);
    // File order needs the offsets sorted first (16 bytes per page); --tree streams in walk order.
    std::vector<std::pair<uint64_t, uint64_t>> spans;
    bool first = true;
    auto print = [&](const PageInfo& p) {
        if (a.has("--json")) {
            io.out << (first ? "[\n" : ",\n") << page_json<json>(f, p, false).dump();
        } else {
            io.out << walk_line(p) << '\n';
        }
        first = false;
    };
    if (!a.has("--json")) io.out << "# " << kWalkColumns << '\n';
    if (a.has("--tree")) {
        walk_tree(f, [&](const WalkStep& s) { print(s.page); });
    } else {
        walk_tree(f, [&](const WalkStep& s) { spans.emplace_back(s.page.offset, s.page.reserved); });
        std::sort(spans.begin(), spans.end());
        uint64_t n = 0;
        for (auto& [off, res] : spans) {
            if (++n % 512 == 0) f.drop_resident();
            print(f.page_at(off, res));
        }
    }
    if (a.has("--json")) io.out << (first ? "[]\n" : "\n]\n");
    return 0;
}

int cmd_page(const CommandIo& io, const std::vector<std::string>& argv) {
    CommandArgs a = pages_args(argv, {}, {});
    a.need_positionals(4, "page FILE LEVEL X Y [--json]");
    auto f = PagesFile::open(a.pos[0]);
    const PageKey k = page_key(a, 1);
    auto p = f.find(k);
    if (!p) {
        io.err << format("%s: page level %u (%u, %u) is not in the file\n", sdk::printable(a.pos[0]).c_str(), k.level,
                         k.x, k.y);
        return 1;
    }
    json j = page_json<json>(f, *p, true);
    if (a.has("--json")) {
        io.out << j.dump(1) << '\n';
        return 0;
    }
    io.out << format("page level %u (%u, %u) at %llu: compression %d (%s), reserved field %u\n", k.level, k.x, k.y,
                     ull(p->offset), p->node.compression, std::string(compression_name(p->node.compression)).c_str(),
                     p->node.reserved)
           << format("  reservation %llu = node header 40 + payload %llu + slack %llu\n", ull(p->reserved),
                     ull(p->payload), ull(p->slack()));
    for (int i = 0; i < 4; ++i)
        if (p->node.child_length[i])
            io.out << format("  child slot %d: offset %llu, reserved %llu\n", i,
                             ull(uint64_t(p->node.child_offset[i]) * f.scale()),
                             ull(uint64_t(p->node.child_length[i]) * f.scale()));
    if (p->has_sub) {
        io.out << format("  quality %u/%u/%u/%u, flags 0x%02x (specular shift %d%s%s)\n", p->sub.quality[0],
                         p->sub.quality[1], p->sub.quality[2], p->sub.quality[3], p->sub.flags, p->sub.specular_shift(),
                         p->sub.flags & kFlagMonoSpecular ? ", mono specular" : "",
                         p->sub.has_cover() ? ", cover mask" : "");
        for (const auto& b : j["blocks"]) {
            io.out << format("  %-9s %8llu bytes at %llu", b["block"].get<std::string>().c_str(),
                             ull(b["size"].get<uint64_t>()), ull(b["offset"].get<uint64_t>()));
            if (b.contains("plane_header")) {
                const auto& ph = b["plane_header"];
                io.out << ": "
                       << (ph.contains("error") ? "plane header: " + ph["error"].get<std::string>()
                                                : ph["summary"].get<std::string>());
            }
            io.out << '\n';
        }
        if (j.contains("cover"))
            io.out << format("  cover     %8llu bytes at %llu\n", ull(j["cover"]["size"].get<uint64_t>()),
                             ull(j["cover"]["offset"].get<uint64_t>()));
        io.out << "  pixels: HDP pixel decoding not supported (the engine's codec is a modified HD Photo)\n";
    } else if (j.contains("surfaces")) {
        for (const auto& s : j["surfaces"])
            io.out << format("  %-20s %s 128x128, %llu bytes at %llu\n", s["surface"].get<std::string>().c_str(),
                             s["format"].get<std::string>().c_str(), ull(s["size"].get<uint64_t>()),
                             ull(s["offset"].get<uint64_t>()));
        io.out << "  channel assignment of the DXT surfaces is unverified\n";
    }
    return 0;
}

int cmd_stats(const CommandIo& io, const std::vector<std::string>& argv) {
    CommandArgs a = pages_args(argv, {}, {});
    if (a.pos.empty()) sdk::usage("usage: pages stats FILE... [--json]");
    auto rs = per_file(io, a.pos, [&](const std::string& name) {
        auto f = PagesFile::open(name);
        Census c = take_census(f);
        FileResult r;
        r.ok = true;
        r.j = census_json<json>(c);
        r.j["file"] = name;
        std::string t = format("%s: %llu pages, %llu bytes, %llu used + %llu slack\n", name.c_str(), ull(c.pages),
                               ull(c.file_size), ull(c.used), ull(c.slack));
        t += "  pages per level:";
        for (int l = kMaxLevels - 1; l >= 0; --l)
            if (c.per_level[l]) t += format(" L%d=%llu", l, ull(c.per_level[l]));
        t += "\n  compression:";
        for (int i = 0; i < kCompCount; ++i)
            if (c.per_compression[i])
                t += format(" %d(%s)=%llu", i, std::string(compression_name(i)).c_str(), ull(c.per_compression[i]));
        auto pct = [&](uint64_t n) { return c.file_size ? 100.0 * double(n) / double(c.file_size) : 0.0; };
        t += "\n  bytes:";
        t += format("\n    headers (file + root)  %12llu", ull(c.header_bytes));
        t += format("\n    node headers           %12llu  %5.2f%%", ull(c.node_header_bytes), pct(c.node_header_bytes));
        t += format("\n    sub-headers            %12llu  %5.2f%%", ull(c.sub_header_bytes), pct(c.sub_header_bytes));
        for (int b = 0; b < kBlockCount; ++b)
            t += format("\n    %-22s %12llu  %5.2f%%", std::string(block_name(b)).c_str(), ull(c.block_bytes[b]),
                        pct(c.block_bytes[b]));
        t += format("\n    cover masks (%6llu)   %12llu  %5.2f%%", ull(c.cover_masks), ull(c.cover_bytes),
                    pct(c.cover_bytes));
        t += format("\n    even padding           %12llu", ull(c.pad_bytes));
        t += format("\n    DXT/uncompressed       %12llu  %5.2f%%", ull(c.opaque_payload_bytes),
                    pct(c.opaque_payload_bytes));
        t += format("\n    slack                  %12llu  %5.2f%%  (%llu pages, %llu with exactly 2048, max %llu)",
                    ull(c.slack), pct(c.slack), ull(c.pages_with_slack), ull(c.slack_2048), ull(c.max_slack));
        t += "\n  flags histogram:";
        for (int i = 0; i < 256; ++i)
            if (c.flags[i]) t += format(" 0x%02x=%llu", i, ull(c.flags[i]));
        r.text = t;
        return r;
    });
    return print_results(io, rs, a.has("--json"));
}

int cmd_selftest(const CommandIo& io, const std::vector<std::string>& argv) {
    CommandArgs a = pages_args(argv, {}, {});
    if (a.pos.empty()) sdk::usage("usage: pages selftest FILE... [--json]");
    auto rs = per_file(io, a.pos, [&](const std::string& name) {
        auto f = PagesFile::open(name);
        Census c = take_census(f);
        FileResult r;
        r.ok = true;
        const std::string shown = fs::path(name).filename().string();
        r.text = selftest_line(shown, c);
        r.j = {{"file", name},   {"ok", true},       {"sentences", c.pages}, {"edges", c.edges},
               {"used", c.used}, {"slack", c.slack}, {"bytes", c.file_size}, {"summary", r.text}};
        json per_level = json::object();
        for (int l = 0; l < kMaxLevels; ++l)
            if (c.per_level[l]) per_level[std::to_string(l)] = c.per_level[l];
        r.j["per_level"] = per_level;
        return r;
    });
    for (auto& r : rs)
        if (!r.ok) r.text = "selftest FAILED: " + r.text;
    return print_results(io, rs, a.has("--json"));
}

int cmd_region(const CommandIo& io, const std::vector<std::string>& argv) {
    CommandArgs a = pages_args(argv, {"--mapping", "--level", "--out"}, {});
    a.need_positionals(1, "region FILE --mapping sx,sy,ox,oy --level L [--out DIR] [--json]");
    auto f = PagesFile::open(a.pos[0]);
    double m[4];
    {
        const std::string s = a.required("--mapping");
        if (sscanf(s.c_str(), "%lf,%lf,%lf,%lf", &m[0], &m[1], &m[2], &m[3]) != 4 || !(m[0] > 0) || !(m[1] > 0))
            sdk::usage("--mapping: expected sx,sy,ox,oy with sx, sy > 0, got '" + s + "'");
    }
    const int level = int(CommandArgs::integer(a.required("--level"), "--level", 0, f.levels() - 1));
    const uint32_t n = f.across() >> level;
    // virtualmapping = {scale x, scale y, offset x, offset y} in units of the whole virtual texture.
    auto lo = [&](double o) { return uint32_t(std::clamp(std::floor(o * n), 0.0, double(n))); };
    auto hi = [&](double o, double s) { return uint32_t(std::clamp(std::ceil((o + s) * n), 0.0, double(n))); };
    const uint32_t x0 = lo(m[2]), x1 = hi(m[2], m[0]), y0 = lo(m[3]), y1 = hi(m[3], m[1]);
    json pages = json::array();
    uint64_t present = 0;
    std::vector<PageInfo> found;
    for (uint32_t y = y0; y < y1; ++y)
        for (uint32_t x = x0; x < x1; ++x)
            if (auto p = f.find({uint16_t(level), uint16_t(x), uint16_t(y)})) {
                ++present;
                found.push_back(*p);
                pages.push_back({{"level", level}, {"x", x}, {"y", y}, {"offset", p->offset}, {"used", p->used()}});
            }
    if (auto out = a.value("--out")) {
        fs::create_directories(*out);
        for (const auto& p : found)
            sdk::write_file_atomic(fs::path(*out) / format("%u_%u_%u.bin", p.node.level, p.node.x, p.node.y),
                                   f.bytes(p.payload_offset(), p.payload));
    }
    const uint64_t area = uint64_t(x1 - x0) * (y1 - y0);
    if (a.has("--json")) {
        io.out << json{{"level", level}, {"grid", n},
                       {"x", {x0, x1}},  {"y", {y0, y1}},
                       {"area", area},   {"present", present},
                       {"pages", pages}, {"extracted_to", a.value("--out").value_or("")}}
                      .dump(1)
               << '\n';
    } else {
        io.out << format("level %d (%ux%u pages): x [%u, %u) y [%u, %u): %llu of %llu pages present\n", level, n, n, x0,
                         x1, y0, y1, ull(present), ull(area));
        for (const auto& p : found)
            io.out << format("  %u_%u_%u at %llu, %llu bytes\n", p.node.level, p.node.x, p.node.y, ull(p.offset),
                             ull(p.used()));
        if (auto out = a.value("--out")) io.out << "payloads written to " << *out << " as LEVEL_X_Y.bin\n";
    }
    return 0;
}

} // namespace af::vtpages
