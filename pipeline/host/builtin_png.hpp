// PNG as a container, built into the host (the core owns PNG I/O).
#pragma once

#include "assetforge/plugin_abi.h"

namespace af::host {

af_container builtin_png_container();

} // namespace af::host
