// `assetforge status`: Show what a build would run and why, without running it.
#include "cli/command.hpp"
#include "cli/engine_command_line.hpp"

namespace {
int run_status(af::cli::Context& ctx, const std::vector<std::string>& args) {
    return af::cli::run_engine_command(af::cli::CommandKind::Status, ctx.registry, args);
}
af::cli::RegisterCommand reg{"status", "Show what a build would run and why, without running it", run_status};
} // namespace
