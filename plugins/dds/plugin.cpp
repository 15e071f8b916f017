// The dds plugin: the "dds" container (read, write, info).
#include "dds_info.hpp"
#include "dds_reader.hpp"
#include "dds_writer.hpp"

#include "assetforge/descriptors.hpp"
#include "assetforge/plugin.hpp"

namespace {

namespace sdk = af::sdk;

// What read_options() (dds_reader.cpp) looks at.
const sdk::ParamTable& read_option_table() {
    static const sdk::ParamTable t{
        sdk::boolean("permissive", "read the whole surfaces a truncated file holds").def("false"),
        sdk::boolean("srgb", "tag the texture of a legacy (non-DX10) file as sRGB").def("false"),
    };
    return t;
}

// What write_options() (dds_writer.cpp) looks at.
const sdk::ParamTable& write_option_table() {
    static const sdk::ParamTable t{
        sdk::one_of("dx10", {"auto", "always", "never"}, "DX10 header extension: when needed, always or never")
            .def("auto"),
    };
    return t;
}

const char* const kMetaKeys[] = {"dds_header", nullptr}; // "legacy" or "dx10": what a re-export keeps

const af_plugin* plugin_table(const af_host*) {
    static const af_container container = sdk::make_container({
        .name = "dds",
        .extensions = ".dds",
        .description = "DirectDraw Surface: legacy and DX10 headers, mips, cubes, arrays, volumes",
        .version = 1,
        .probe = af::dds::probe_dds,
        .read = af::dds::read_container,
        .write = af::dds::write_container,
        .info = af::dds::info_container,
        .read_options = &read_option_table(),
        .write_options = &write_option_table(),
        .meta_keys = kMetaKeys,
    });
    static const af_container* const containers[] = {&container};
    static const af_plugin plugin =
        sdk::make_plugin("dds", "0.1.0", "DDS container (legacy and DX10 headers)", {.containers = containers});
    return &plugin;
}

} // namespace

AF_DEFINE_PLUGIN(plugin_table)
