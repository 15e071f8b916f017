// Registration of the DDS container.
#include "dds_container.hpp"

#include "assetforge/plugin.hpp"

namespace {

const af_plugin* dds_plugin(const af_host*) {
    static const af_container* containers[] = {af::dds::container()};
    static const af_plugin plugin = [] {
        af_plugin p{};
        af::sdk::init_header(p);
        p.name = "dds";
        p.version = "0.1.0";
        p.description = "DDS container (legacy and DX10 headers)";
        p.containers = containers;
        p.container_count = 1;
        return p;
    }();
    return &plugin;
}

} // namespace

AF_DEFINE_PLUGIN(dds_plugin)
