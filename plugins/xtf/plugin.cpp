// The xtf plugin: containers "xtf" (Half-Life 2 original Xbox) and "vtf"
// (PC VTF 7.0–7.5 read, 7.2 write), the xtf.write stage and the raw
// swizzle/deswizzle stages.
#include "resave_meta.hpp"
#include "vtf_file.hpp"
#include "xtf_containers.hpp"
#include "xtf_stages.hpp"
#include "xtf_writer.hpp"

#include "assetforge/descriptors.hpp"
#include "assetforge/plugin.hpp"

namespace {

using namespace af::xtf;
namespace sdk = af::sdk;

// What read_xtf_container (xtf_containers.cpp) reads.
const sdk::ParamTable& xtf_read_params() {
    static const sdk::ParamTable t{
        sdk::boolean("keep_indices", "P8: keep the indices and per-frame palettes instead of expanding to RGBA8")
            .def("false"),
        sdk::one_of("image", {"main", "fallback"}, "which image to read").def("main"),
    };
    return t;
}

// What parse_raw_surface_params (xtf_stages.cpp) reads.
const sdk::ParamTable& raw_params() {
    static const sdk::ParamTable t{
        sdk::integer("width", 1, 1 << 16, "surface width in texels").required(),
        sdk::integer("height", 1, 1 << 16, "surface height in texels").required(),
        sdk::integer("depth", 1, 1 << 16, "depth slices").def("1"),
        sdk::integer("bpp", 8, 128, "bits per texel: 8, 16, 24, 32, 64 or 128").required(),
    };
    return t;
}

const af_plugin* plugin_table(const af_host*) {
    static const sdk::ParamTable no_options;
    static const af_container xtf_container = sdk::make_container({
        .name = "xtf",
        .extensions = ".xtf",
        .description = "Half-Life 2 original Xbox texture (XTF 5.0): swizzled, P8, fallback images",
        .probe = probe_xtf,
        .read = read_xtf_container,
        .write = write_xtf_container,
        .info = info_xtf_container,
        .read_options = &xtf_read_params(),
        .write_options = &xtf_write_params(),
        .meta_keys = kResaveMetaKeys,
    });
    static const af_container vtf_container = sdk::make_container({
        .name = "vtf",
        .extensions = ".vtf",
        .description = "Valve Texture Format: reads 7.0-7.5, writes 7.2",
        .probe = probe_vtf,
        .read = read_vtf_container,
        .write = write_vtf_container,
        .info = info_vtf_container,
        .read_options = &no_options,
        .write_options = &vtf_write_params(),
        .meta_keys = kVtfMetaKeys,
    });
    static const af_container* const containers[] = {&xtf_container, &vtf_container};
    static const af_stage xtf_write = sdk::make_stage({
        .name = "xtf.write",
        .description = "Texture → Half-Life 2 Xbox XTF (format, fallback, lowres, flags, nomip, dither, …)",
        .takes = AF_STAGE_TAKES_TEXTURE,
        .run = run_xtf_write,
        .params = &xtf_write_params(),
        .meta_keys = sdk::kNoMetaKeys, // items keep the input's metadata
    });
    static const af_stage swizzle = sdk::make_stage({
        .name = "swizzle",
        .description = "Raw row-major surface → original-Xbox swizzled order (width, height, depth, bpp)",
        .takes = AF_STAGE_TAKES_BYTES,
        .run = run_swizzle,
        .params = &raw_params(),
        .meta_keys = sdk::kNoMetaKeys,
    });
    static const af_stage deswizzle = sdk::make_stage({
        .name = "deswizzle",
        .description = "Original-Xbox swizzled surface → row-major (width, height, depth, bpp)",
        .takes = AF_STAGE_TAKES_BYTES,
        .run = run_deswizzle,
        .params = &raw_params(),
        .meta_keys = sdk::kNoMetaKeys,
    });
    static const af_stage* const stages[] = {&xtf_write, &swizzle, &deswizzle};
    static const af_plugin table = sdk::make_plugin("xtf", "0.1.0", "Half-Life 2 Xbox XTF and PC VTF textures",
                                                    {.containers = containers, .stages = stages});
    return &table;
}

} // namespace

AF_DEFINE_PLUGIN(plugin_table)
