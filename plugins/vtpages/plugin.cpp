// Registration of the vtpages plugin: the `pages` command and the pages.* stages.
#include "pages_command.hpp"
#include "pages_format.hpp"
#include "pages_stages.hpp"

#include "assetforge/command_args.hpp"
#include "assetforge/descriptors.hpp"
#include "assetforge/plugin.hpp"

namespace {

using namespace af::vtpages;

namespace sdk = af::sdk;

// What stage_extract, stage_build and stage_repack (pages_stages.cpp) read, and the metadata they set.
const sdk::ParamTable& extract_params() {
    static const sdk::ParamTable t{
        sdk::one_of("what", {"payload", "blocks", "cover", "pixels"}, "what one item holds").def("payload"),
        sdk::integer("level", -1, kMaxLevels - 1, "only pages of this level (-1: all)").def("-1"),
        sdk::one_of("bit_order", {"lsb", "msb"}, "bit order of cover bitmaps").def("lsb"),
    };
    return t;
}
const char* const kExtractMeta[] = {"level",  "mip",   "x",       "y",    "compression", "compression_name",
                                    "offset", "block", "surface", nullptr};

const sdk::ParamTable& build_params() {
    static const std::string hdp = std::to_string(kCompHdp);
    static const sdk::ParamTable t{
        sdk::integer("scale", 1, 64, "allocation granularity in bytes").def("2"),
        sdk::one_of("order", {"bfs", "dfs"}, "page order in the file").def("bfs"),
        sdk::integer("reserve", 0, 1 << 24, "spare bytes after every page").def("0"),
        sdk::integer("compression", 1, 6, "compression id of items without 'compression' metadata").def(hdp),
        sdk::integer("levels", 0, kMaxLevels, "levels in the header (0: from the pages)").def("0"),
        sdk::text("name", "name of the emitted item").def("pages.pages"),
    };
    return t;
}
const char* const kBuildMeta[] = {"pages", "levels", nullptr};

const sdk::ParamTable& repack_params() {
    static const std::string hdp = std::to_string(kCompHdp);
    static const sdk::ParamTable t{
        sdk::directory("replacements", "folder of LEVEL_X_Y.bin replacements and .remove markers").required(),
        sdk::integer("reserve", 0, 1 << 24, "spare bytes after every moved page").def("0"),
        sdk::integer("compression", 1, 6, "compression id of replacement pages").def(hdp),
    };
    return t;
}
const char* const kRepackMeta[] = {"replaced_in_place", "relocated", "added", "removed", nullptr};

const af_plugin* plugin_table(const af_host*) {
    static const af_command command = sdk::make_command({
        .name = "pages",
        .summary = "id Tech 5 .pages virtual textures: list, header, walk, page, blocks, map, cover, stats, region, "
                   "selftest, build, repack, compact",
        .run = sdk::run_command<run_pages_command>,
    });
    // Version 2: cover and pixel PNGs come from the host's PNG writer.
    static const af_stage extract = sdk::make_stage({
        .name = "pages.extract",
        .description = "one .pages file -> one item per page (what: payload, blocks, cover, pixels), "
                       "metadata level/mip/x/y",
        .version = 2,
        .kind = AF_STAGE_MAP,
        .run = stage_extract,
        .params = &extract_params(),
        .meta_keys = kExtractMeta,
    });
    static const af_stage build = sdk::make_stage({
        .name = "pages.build",
        .description = "page payload items with level/x/y metadata -> one .pages file",
        .kind = AF_STAGE_GATHER,
        .run = stage_build,
        .params = &build_params(),
        .meta_keys = kBuildMeta,
    });
    static const af_stage repack = sdk::make_stage({
        .name = "pages.repack",
        .description = "a .pages file + a directory of LEVEL_X_Y.bin / .remove files -> the repacked file",
        .kind = AF_STAGE_MAP,
        .run = stage_repack,
        .params = &repack_params(),
        .meta_keys = kRepackMeta,
    });
    static const af_command* const commands[] = {&command};
    static const af_stage* const stages[] = {&extract, &build, &repack};
    static const af_plugin plugin = af::sdk::make_plugin(
        "vtpages", "1.0.0", "id Tech 5 virtual-texture .pages files (Wolfenstein: The New Order, RAGE)",
        {.stages = stages, .commands = commands});
    return &plugin;
}

} // namespace

AF_DEFINE_PLUGIN(plugin_table)
