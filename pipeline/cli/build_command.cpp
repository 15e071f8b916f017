// `assetforge build`: Run the jobs of a pipeline.yaml that are out of date.
#include "cli/command.hpp"
#include "engine/command_line.hpp"

namespace {
int run_build(af::cli::Context& ctx, const std::vector<std::string>& args) {
    return af::engine::run_engine_command(af::engine::CommandKind::Build, ctx.registry, args);
}
af::cli::RegisterCommand reg{"build", "Run the jobs of a pipeline.yaml that are out of date", run_build};
} // namespace
