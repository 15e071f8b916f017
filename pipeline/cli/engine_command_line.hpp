// The `build`, `status`, `clean` and `watch` subcommands: argument parsing and the
// glue between the plugin registry and the engine.
#pragma once

#include "host/plugin_registry.hpp"

#include <string>
#include <vector>

namespace af::cli {

enum class CommandKind { Build, Status, Clean, Watch };

// Returns the process exit code: 0 ok, 1 something failed, 2 usage/config error.
int run_engine_command(CommandKind kind, host::PluginRegistry& reg, const std::vector<std::string>& args);

} // namespace af::cli
