// CLI subcommands register themselves: one file per command, no central table.
//
//   static af::cli::RegisterCommand reg{"info", "Describe texture files", run_info};
#pragma once

#include "host/plugin_registry.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace af::cli {

// Exit codes of every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitInputFailed = 1; // some input could not be processed
inline constexpr int kExitUsage = 2;       // bad arguments or configuration

struct Context {
    host::PluginRegistry& registry;
    std::string program; // argv[0]
};

using CommandFn = int (*)(Context& ctx, const std::vector<std::string>& args);

struct Command {
    std::string_view name;
    std::string_view summary;
    CommandFn run;
};

std::vector<Command>& commands();

struct RegisterCommand {
    RegisterCommand(std::string_view name, std::string_view summary, CommandFn fn) {
        commands().push_back({name, summary, fn});
    }
};

} // namespace af::cli
