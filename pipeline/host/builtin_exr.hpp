// OpenEXR as a container, built into the host beside PNG: the edit format for
// float and BC6H textures (PNG clips their values to 0..1).
#pragma once

#include "assetforge/plugin_abi.h"

namespace af::host {

af_container builtin_exr_container();

} // namespace af::host
