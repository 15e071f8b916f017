// PNG as a container, built into the host (the core owns PNG I/O).
#pragma once

#include "assetforge/plugin_abi.h"
#include "assetforge/texture.hpp"

namespace af::host {

af_container builtin_png_container();

// The container's read, for the host itself: the decoded pixels move into the
// texture instead of being copied through the ABI three times (a 4096² PNG
// would hold 256 MB at once for a 64 MB texture). Same checks, same result.
Texture read_png_texture(const af_host* host, const af_input& in);

} // namespace af::host
