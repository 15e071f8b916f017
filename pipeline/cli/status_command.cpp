// `assetforge status`: Show what a build would run and why, without running it.
#include "cli/command.hpp"
#include "engine/command_line.hpp"

namespace {
int run_status(af::cli::Context& ctx, const std::vector<std::string>& args) {
    return af::engine::run_engine_command(af::engine::CommandKind::Status, ctx.registry, args);
}
af::cli::RegisterCommand reg{"status", "Show what a build would run and why, without running it", run_status};
} // namespace
