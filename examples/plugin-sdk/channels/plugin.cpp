// The channels plugin: the stage `channels.split`. Descriptors only; the code is in channels_split.cpp.
#include "channels_split.hpp"

#include <assetforge/descriptors.hpp>
#include <assetforge/plugin.hpp>

namespace {

namespace sdk = af::sdk;

const af_plugin* plugin_table(const af_host*) {
    static const char* const meta[] = {"channel", nullptr};
    static const af_stage stage = sdk::make_stage({
        .name = "channels.split",
        .description = "one greyscale texture per channel (r, g, b, a) of each texture",
        .version = 1,
        .kind = AF_STAGE_MAP,
        .takes = AF_STAGE_TAKES_TEXTURE,
        .run = channels::split,
        .params = &channels::split_params(),
        .meta_keys = meta,
    });
    static const af_stage* const stages[] = {&stage};
    static const af_plugin plugin = sdk::make_plugin(
        "channels", "1.0.0", "split a texture's channels (third-party example stage)", {.stages = stages});
    return &plugin;
}

} // namespace

AF_DEFINE_PLUGIN(plugin_table)
