// The tga plugin: the "tga" container (read, write, info). Descriptors only; the code is in tga_*.cpp.
#include "tga_reader.hpp"
#include "tga_writer.hpp"

#include <assetforge/descriptors.hpp>
#include <assetforge/plugin.hpp>

namespace {

namespace sdk = af::sdk;

const af_plugin* plugin_table(const af_host*) {
    static const sdk::ParamTable no_options;
    static const af_container container = sdk::make_container({
        .name = "tga",
        .extensions = ".tga",
        .description = "Truevision TGA: 8-bit grey, 24/32-bit colour, colour-mapped; raw or RLE; either origin",
        .version = 1,
        .probe = tga::probe,
        .read = tga::read,
        .write = tga::write,
        .info = tga::info,
        .dims = tga::dims,
        .read_options = &no_options,
        .write_options = &tga::write_options(),
        .meta_keys = sdk::kNoMetaKeys,
        .image_files = true, // pictures: `convert x.tga x.dds` encodes (auto), as it does for PNG
    });
    static const af_container* const containers[] = {&container};
    static const af_plugin plugin =
        sdk::make_plugin("tga", "1.0.0", "Truevision TGA (third-party example plugin)", {.containers = containers});
    return &plugin;
}

} // namespace

AF_DEFINE_PLUGIN(plugin_table)
