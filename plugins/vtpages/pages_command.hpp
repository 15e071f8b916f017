// The `assetforge pages …` command: one entry point dispatching subcommands.
#pragma once

#include "assetforge/command_args.hpp"
#include "assetforge/error.hpp"

#include <set>
#include <string>
#include <vector>

namespace af::vtpages {

// What every subcommand file speaks: printf-style text, 64-bit counts.
using sdk::format;
using ull = unsigned long long;

// io.host may be null: then work runs serially, and DXT pixels and PNG output are unavailable.
using sdk::CommandArgs;
using sdk::CommandIo;

// The arguments of one subcommand; every subcommand also takes --json.
inline CommandArgs pages_args(const std::vector<std::string>& argv, std::set<std::string> valued,
                              std::set<std::string> switches) {
    switches.insert("--json");
    return CommandArgs("pages", argv, std::move(valued), std::move(switches));
}

// argv[0] is the subcommand ("selftest"). Returns 0 ok, 1 a file failed, 2 usage.
int run_pages_command(const CommandIo& io, const std::vector<std::string>& argv);

// Subcommands, grouped by file.
int cmd_list(const CommandIo&, const std::vector<std::string>&);
int cmd_header(const CommandIo&, const std::vector<std::string>&);
int cmd_walk(const CommandIo&, const std::vector<std::string>&);
int cmd_page(const CommandIo&, const std::vector<std::string>&);
int cmd_stats(const CommandIo&, const std::vector<std::string>&);
int cmd_selftest(const CommandIo&, const std::vector<std::string>&);
int cmd_region(const CommandIo&, const std::vector<std::string>&);
int cmd_blocks(const CommandIo&, const std::vector<std::string>&);
int cmd_map(const CommandIo&, const std::vector<std::string>&);
int cmd_cover(const CommandIo&, const std::vector<std::string>&);
int cmd_pixels(const CommandIo&, const std::vector<std::string>&);
int cmd_build(const CommandIo&, const std::vector<std::string>&);
int cmd_repack(const CommandIo&, const std::vector<std::string>&);
int cmd_compact(const CommandIo&, const std::vector<std::string>&);

// "FILE: message (offset N)" for an error about one file.
std::string file_error(const std::string& file, const std::exception& e);

} // namespace af::vtpages
