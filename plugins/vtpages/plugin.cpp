// Registration of the vtpages plugin: the `pages` command and the pages.* stages.
#include "pages_command.hpp"
#include "pages_stages.hpp"

#include "assetforge/plugin.hpp"

#include <iostream>

namespace {

using namespace af::vtpages;

int32_t run_pages(const af_host* host, int32_t argc, const char* const* argv) {
    // The host passes the command name first ("pages"), then its arguments.
    std::vector<std::string> args;
    for (int32_t i = 1; i < argc; ++i) args.emplace_back(argv[i]);
    try {
        return run_pages_command({host, std::cout, std::cerr}, args);
    } catch (...) {
        std::cerr << "pages: internal error\n";
        return 1;
    }
}

const char* const kExtractParams[] = {"what", "level", "bit_order", nullptr};
const char* const kBuildParams[] = {"scale", "order", "reserve", "compression", "levels", "name", nullptr};
const char* const kRepackParams[] = {"replacements", "reserve", "compression", nullptr};

const af_plugin* table(const af_host*) {
    static af_command command = [] {
        af_command c{};
        af::sdk::init_header(c);
        c.name = "pages";
        c.summary = "id Tech 5 .pages virtual textures: list, header, walk, page, blocks, map, cover, stats, region, "
                    "selftest, build, repack, compact";
        c.run = run_pages;
        return c;
    }();
    auto stage = [](const char* name, const char* desc, uint32_t kind, const char* const* params,
                    af_status (*run)(const af_host*, const af_stage_io*, const af_options*, af_error*)) {
        af_stage s{};
        af::sdk::init_header(s);
        s.name = name;
        s.description = desc;
        s.version = 1;
        s.kind = kind;
        s.takes = AF_STAGE_TAKES_BYTES;
        s.params = params;
        s.run = run;
        return s;
    };
    static af_stage extract = stage("pages.extract",
                                    "one .pages file -> one item per page (what: payload, blocks, cover, pixels), "
                                    "metadata level/mip/x/y",
                                    AF_STAGE_MAP, kExtractParams, stage_extract);
    static af_stage build = stage("pages.build", "page payload items with level/x/y metadata -> one .pages file",
                                  AF_STAGE_GATHER, kBuildParams, stage_build);
    static af_stage repack =
        stage("pages.repack", "a .pages file + a directory of LEVEL_X_Y.bin / .remove files -> the repacked file",
              AF_STAGE_MAP, kRepackParams, stage_repack);
    static const af_command* const commands[] = {&command};
    static const af_stage* const stages[] = {&extract, &build, &repack};
    static const af_plugin plugin = af::sdk::make_plugin(
        "vtpages", "1.0.0", "id Tech 5 virtual-texture .pages files (Wolfenstein: The New Order, RAGE)",
        {.stages = stages, .commands = commands});
    return &plugin;
}

} // namespace

AF_DEFINE_PLUGIN(table)
