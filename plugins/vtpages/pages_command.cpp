#include "pages_command.hpp"

#include "assetforge/plugin.hpp"
#include "assetforge/user_text.hpp"

#include <map>

namespace af::vtpages {

namespace {

using Fn = int (*)(const CommandIo&, const std::vector<std::string>&);

const std::vector<std::pair<const char*, std::pair<Fn, const char*>>>& subcommands() {
    static const std::vector<std::pair<const char*, std::pair<Fn, const char*>>> table = {
        {"list",
         {cmd_list,
          "list DIR                      one line per .pages file: bytes, across, levels, nodes, scale, header check"}},
        {"header", {cmd_header, "header FILE                   the 32-byte header and root pointer"}},
        {"walk",
         {cmd_walk, "walk FILE [--tree]            every page: offset, level, x, y, compression, reserved, used, "
                    "flags, block sizes"}},
        {"page",
         {cmd_page, "page FILE LEVEL X Y           one page: node, sub-header, blocks and their plane headers"}},
        {"blocks",
         {cmd_blocks,
          "blocks FILE LEVEL X Y --out DIR   raw blocks (+ cover mask, DXT surfaces) and parsed plane headers"}},
        {"map",
         {cmd_map, "map FILE LEVEL --out PNG      occupancy of a level, coloured by page size, with a colour bar"}},
        {"cover",
         {cmd_cover, "cover FILE LEVEL X Y --out PNG   the 128x128 cover mask as a 1-bit PNG [--bit-order lsb|msb]"}},
        {"pixels",
         {cmd_pixels, "pixels FILE LEVEL X Y --out DIR  DXT pages only, via the bc codec; HDP is unsupported"}},
        {"stats",
         {cmd_stats, "stats FILE...                 pages per level, bytes per block type, flags histogram, slack"}},
        {"region",
         {cmd_region, "region FILE --mapping sx,sy,ox,oy --level L [--out DIR]   pages under a virtualmapping"}},
        {"selftest", {cmd_selftest, "selftest FILE...              every structural check and a full byte accounting"}},
        {"build",
         {cmd_build, "build MANIFEST.json --out FILE   write a new file from payloads (README: manifest format)"}},
        {"repack", {cmd_repack, "repack FILE --replace DIR --out FILE [--reserve N] [-y]   replace/add/remove pages"}},
        {"compact", {cmd_compact, "compact FILE --out FILE [-y]  drop all slack"}},
    };
    return table;
}

void usage_text(std::ostream& os) {
    os << "usage: pages SUBCOMMAND ... [--json]\n";
    for (const auto& [name, v] : subcommands()) os << "  " << v.second << '\n';
    os << "exit codes: 0 ok, 1 a file failed, 2 usage\n";
}

} // namespace

int run_pages_command(const CommandIo& io, const std::vector<std::string>& argv) {
    if (argv.empty() || argv[0] == "--help" || argv[0] == "-h" || argv[0] == "help") {
        usage_text(argv.empty() ? io.err : io.out);
        return argv.empty() ? 2 : 0;
    }
    for (const auto& [name, v] : subcommands()) {
        if (argv[0] != name) continue;
        const std::vector<std::string> rest(argv.begin() + 1, argv.end());
        for (const auto& a : rest)
            if (a == "--help" || a == "-h") {
                io.out << "usage: pages " << v.second << "\n"
                       << "exit codes: 0 ok, 1 a file failed, 2 usage\n";
                return 0;
            }
        try {
            return v.first(io, rest);
        } catch (const sdk::Error& e) {
            if (e.status() == AF_ERR_USAGE) {
                io.err << "pages " << name << ": " << sdk::printable(e.what()) << '\n';
                return 2;
            }
            io.err << "pages " << name << ": " << file_error(rest.empty() ? "" : rest[0], e) << '\n';
            return 1;
        } catch (const std::exception& e) {
            io.err << "pages " << name << ": " << sdk::error_line(rest.empty() ? "" : rest[0], e) << '\n';
            return 1;
        }
    }
    io.err << "pages: unknown subcommand '" << sdk::printable(argv[0]) << "'\n";
    usage_text(io.err);
    return 2;
}

} // namespace af::vtpages
