// `assetforge clean`: Remove every output the build state records.
#include "cli/command.hpp"
#include "cli/engine_command_line.hpp"

namespace {
int run_clean(af::cli::Context& ctx, const std::vector<std::string>& args) {
    return af::cli::run_engine_command(af::cli::CommandKind::Clean, ctx.registry, args);
}
af::cli::RegisterCommand reg{"clean", "Remove every output the build state records", run_clean};
} // namespace
