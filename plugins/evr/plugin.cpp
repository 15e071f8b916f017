// The evr plugin: the `evr` command, the manifest's info container and the evr.* stages.
#include "evr_command.hpp"
#include "evr_stages.hpp"
#include "evr_writer.hpp"
#include "manifest_info.hpp"

#include "assetforge/command_args.hpp"
#include "assetforge/descriptors.hpp"
#include "assetforge/plugin.hpp"

#include <string>

namespace {

using namespace af::evr;
namespace sdk = af::sdk;

// What the stages' run functions (evr_stages.cpp) read, and the metadata they set.
const sdk::ParamTable& extract_params() {
    static const sdk::ParamTable t{
        sdk::directory("packages", "folder of the set's parts (<name>_0, <name>_1, …)").required(),
        sdk::text("types", "only files of these type symbols (comma-separated hex)").def(""),
        sdk::boolean("groups", "item names start with the frame index (the tree of extract --groups)").def("false"),
    };
    return t;
}
const char* const kExtractMeta[] = {"type", "file", "type_name", "frame", "set", "kind", nullptr};

const sdk::ParamTable& replace_params() {
    static const std::string frames = std::to_string(kFrameLimit);
    static const sdk::ParamTable t{
        sdk::file("set", "the original set's manifest (DATA/manifests/NAME)").required(),
        sdk::directory("packages", "the original set's parts folder (DATA/packages)").required(),
        sdk::boolean("add_new", "append files the set lacks (otherwise they are refused)").def("false"),
        sdk::boolean("groups", "item paths carry a group level (<group>/<type>/<file>)").def("false"),
        // No default: without it the set keeps its own parts (split only past the format's 2^31 - 1 bytes).
        sdk::integer("part_size", 1, int64_t(kPartLimit),
                     "most bytes per package part (default: the set's own parts, as they were)"),
        sdk::integer("frame_size", 1, int64_t(frame_capacity(Limits{})),
                     "most decompressed bytes per frame of added files")
            .def(frames),
    };
    return t;
}
const char* const kReplaceMeta[] = {"changed",       "unchanged", "added", "frames_rebuilt",
                                    "frames_copied", "set",       "parts", nullptr};

const sdk::ParamTable& build_params() {
    static const std::string parts = std::to_string(kPartLimit), frames = std::to_string(kFrameLimit);
    static const sdk::ParamTable t{
        sdk::text("name", "the set's name (its manifest's file name)").required(),
        sdk::boolean("groups", "item paths carry a group level; each group starts a frame").def("false"),
        sdk::integer("part_size", 1, int64_t(kPartLimit), "most bytes per package part").def(parts),
        sdk::integer("frame_size", 1, int64_t(frame_capacity(Limits{})), "most decompressed bytes per frame")
            .def(frames),
    };
    return t;
}
const char* const kBuildMeta[] = {"set", "parts", nullptr};

const sdk::ParamTable& verify_params() {
    static const sdk::ParamTable t{
        sdk::directory("packages", "folder of the set's parts").required(),
        sdk::boolean("strict", "fail on structural warnings too (with `against`: only those the repack introduced)")
            .def("true"),
        sdk::file("against", "the set this one was repacked from (its manifest): the repack rules are checked and "
                             "the original's own oddities are inherited, not failures"),
        sdk::directory("against_packages", "the original's parts folder (default: ../packages next to its manifest)"),
    };
    return t;
}
const char* const kVerifyMeta[] = {"set", nullptr};

const af_plugin* plugin_table(const af_host*) {
    static const af_command command = sdk::make_command({
        .name = "evr",
        .summary = "Echo VR package sets (manifest + parts): list, extract, verify, replace, build",
        .run = sdk::run_command<run_evr_command>,
    });
    static const sdk::ParamTable kNoOptions;
    static const af_container manifest = sdk::make_container({
        .name = "evr-manifest",
        .extensions = "",
        .description = "Echo VR package manifest (info only; `assetforge evr` lists, extracts and verifies sets)",
        .probe = probe_manifest,
        .info = info_manifest,
        .read_options = &kNoOptions,
        .write_options = &kNoOptions,
        .meta_keys = sdk::kNoMetaKeys,
    });
    static const af_stage extract = sdk::make_stage({
        .name = "evr.extract",
        .description = "an Echo VR package manifest -> one item per file (raw BC textures as DDS), metadata "
                       "type/file/frame",
        .kind = AF_STAGE_MAP,
        .run = run_extract,
        .params = &extract_params(),
        .meta_keys = kExtractMeta,
    });
    static const af_stage replace = sdk::make_stage({
        .name = "evr.replace",
        .description = "replacement files (<type>/<file>.<ext>) -> the original set repacked: manifests/NAME and "
                       "packages/NAME_<i>",
        .kind = AF_STAGE_GATHER,
        .run = run_replace,
        .params = &replace_params(),
        .meta_keys = kReplaceMeta,
    });
    static const af_stage build = sdk::make_stage({
        .name = "evr.build",
        .description = "files of an extraction tree -> a new set: manifests/NAME and packages/NAME_<i>",
        .kind = AF_STAGE_GATHER,
        .run = run_build,
        .params = &build_params(),
        .meta_keys = kBuildMeta,
    });
    static const af_stage verify = sdk::make_stage({
        .name = "evr.verify",
        .description = "a set's manifest -> NAME.verify.json once every reader check passed (fails otherwise)",
        .kind = AF_STAGE_MAP,
        .run = run_verify,
        .params = &verify_params(),
        .meta_keys = kVerifyMeta,
    });
    static const af_command* const commands[] = {&command};
    static const af_container* const containers[] = {&manifest};
    static const af_stage* const stages[] = {&extract, &replace, &build, &verify};
    static const af_plugin plugin = sdk::make_plugin(
        "evr", "0.2.0", "Echo VR asset packages: zstd-wrapped manifest, frames in numbered package parts",
        {.containers = containers, .stages = stages, .commands = commands});
    return &plugin;
}

} // namespace

AF_DEFINE_PLUGIN(plugin_table)
