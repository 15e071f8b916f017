// `assetforge watch`: Build, then rebuild what each saved change affects.
#include "cli/command.hpp"
#include "cli/engine_command_line.hpp"

namespace {
int run_watch(af::cli::Context& ctx, const std::vector<std::string>& args) {
    return af::cli::run_engine_command(af::cli::CommandKind::Watch, ctx.registry, args);
}
af::cli::RegisterCommand reg{"watch", "Build, then rebuild what each saved change affects, until Ctrl-C", run_watch};
} // namespace
