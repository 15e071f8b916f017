// Needs a symbol nothing provides, so loading it fails at dlopen time.
#include "assetforge/plugin_abi.h"

extern "C" const af_plugin* af_symbol_that_does_not_exist(void);

extern "C" AF_EXPORT const af_plugin* assetforge_plugin_entry(const af_host*) {
    return af_symbol_that_does_not_exist();
}
