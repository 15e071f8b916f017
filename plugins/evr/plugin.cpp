// Registration of the evr plugin: the `evr` command and the manifest's info container.
#include "evr_command.hpp"
#include "evr_stages.hpp"
#include "manifest_info.hpp"

#include "assetforge/descriptors.hpp"
#include "assetforge/plugin.hpp"

#include <iostream>

namespace {

int32_t run_evr(const af_host* host, int32_t argc, const char* const* argv) {
    // The host passes the command name first ("evr"), then its arguments.
    std::vector<std::string> args;
    for (int32_t i = 1; i < argc; ++i) args.emplace_back(argv[i]);
    try {
        return af::evr::run_evr_command({host, std::cout, std::cerr}, args);
    } catch (...) {
        std::cerr << "evr: internal error\n";
        return 1;
    }
}

const af_plugin* table(const af_host*) {
    static const af_command command = af::sdk::make_command({
        .name = "evr",
        .summary = "Echo VR package sets (manifest + parts): list, extract, verify, replace, build",
        .run = run_evr,
    });
    static const af_command* const commands[] = {&command};
    static const af_container* const containers[] = {af::evr::manifest_container()};
    static const af_stage* const stages[] = {af::evr::extract_stage(), af::evr::replace_stage(), af::evr::build_stage(),
                                             af::evr::verify_stage()};
    static const af_plugin plugin = af::sdk::make_plugin(
        "evr", "0.2.0", "Echo VR asset packages: zstd-wrapped manifest, frames in numbered package parts",
        {.containers = containers, .stages = stages, .commands = commands});
    return &plugin;
}

} // namespace

AF_DEFINE_PLUGIN(table)
