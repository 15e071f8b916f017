// Registration of the DDS container.
#include "dds_container.hpp"

#include "assetforge/plugin.hpp"

namespace {

const af_plugin* dds_plugin(const af_host*) {
    static const af_container* const containers[] = {af::dds::container()};
    static const af_plugin plugin =
        af::sdk::make_plugin("dds", "0.1.0", "DDS container (legacy and DX10 headers)", {.containers = containers});
    return &plugin;
}

} // namespace

AF_DEFINE_PLUGIN(dds_plugin)
