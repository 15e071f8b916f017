// `assetforge build`: Run the jobs of a pipeline.yaml that are out of date.
#include "cli/command.hpp"
#include "cli/engine_command_line.hpp"

namespace {
int run_build(af::cli::Context& ctx, const std::vector<std::string>& args) {
    return af::cli::run_engine_command(af::cli::CommandKind::Build, ctx.registry, args);
}
af::cli::RegisterCommand reg{"build", "Run the jobs of a pipeline.yaml that are out of date", run_build};
} // namespace
