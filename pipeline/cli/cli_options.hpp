// Shared Boost.Program_options handling: parse, print --help, map errors to exit code 2.
#pragma once

#include "cli/command.hpp"

#include <boost/program_options.hpp>

#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace af::cli {

namespace po = boost::program_options;

// Returns an exit code when the command should stop (help shown, or bad usage).
inline std::optional<int> parse_args(const std::string& usage, const std::vector<std::string>& args,
                                     po::options_description& opts, po::positional_options_description& pos,
                                     po::variables_map& vm) {
    opts.add_options()("help,h", "show this help");
    try {
        po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        std::cerr << "assetforge: " << e.what() << "\nusage: " << usage << "\n";
        return kExitUsage;
    }
    if (vm.count("help")) {
        std::cout << "usage: " << usage << "\n\n" << opts << "\n";
        return kExitOk;
    }
    return std::nullopt;
}

} // namespace af::cli
