// `assetforge info MANIFEST` through the container route: the host hands over
// the manifest's bytes alone, so the report covers the manifest (checks 1-9),
// not the package parts (`evr verify` checks those).
#pragma once

#include "assetforge/plugin_abi.h"

namespace af::evr {

const af_container* manifest_container();

} // namespace af::evr
