// Claims a future major API version: the host must refuse it.
#include "assetforge/plugin_abi.h"

extern "C" AF_EXPORT const af_plugin* assetforge_plugin_entry(const af_host*) {
    static af_plugin p = {sizeof(af_plugin), AF_API_MAJOR + 1, 0, "abi_future", "9.0", "from the future",
                          nullptr, 0, nullptr, 0, nullptr, 0, nullptr, 0};
    return &p;
}
