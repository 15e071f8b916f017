// Mip levels and fallback images through the host's resample service
// (af_host.resample, API 1.3): the plugin has no filters of its own.
#pragma once

#include "assetforge/picture.hpp"

#include "assetforge/plugin_abi.h"

#include <string_view>
#include <vector>

namespace af::xtf {

struct ResampleSettings {
    uint32_t filter = AF_FILTER_MITCHELL; // AF_FILTER_*
    bool premultiply_alpha = true;
    bool linear_light = false;
};

// "box", "triangle", "kaiser", "lanczos3", "mitchell", "point" and the aliases
// lanczos, tent, linear, nearest, in any case → AF_FILTER_*.
uint32_t parse_filter(std::string_view name);

// One resize in the picture's own pixel type (clamped edges).
Texture resample(const af_host* host, const Texture& in, uint32_t width, uint32_t height, const ResampleSettings& s);

// Levels 0..count-1 of a 2-D picture, each filtered from the previous one and
// carried in float between levels, as the host's mips step builds a chain;
// the levels come back in the top's pixel type.
std::vector<Texture> mip_chain(const af_host* host, Texture top, uint32_t count, const ResampleSettings& s);

// What a writer that must resize says when the host cannot.
void require_resample(const af_host* host, const char* what);

} // namespace af::xtf
