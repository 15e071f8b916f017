// Pixels of a page, where they can honestly be produced: DXT pages decode
// through the host's convert service (the bc codec plugin). Every other
// compression is refused with "unsupported: … pixel decoding".
#pragma once

#include "pages_reader.hpp"

#include "assetforge/pixels.hpp"
#include "assetforge/plugin_abi.h"

#include <string>
#include <vector>

namespace af::vtpages {

struct SurfaceImage {
    std::string role; // "surface0-dxt1", …
    Texture image;    // 128×128 RGBA8, channels as the BC decoder gives them (assignment unverified)
};

std::vector<SurfaceImage> page_pixels(const af_host* host, const PagesFile& f, const PageInfo& p);

} // namespace af::vtpages
