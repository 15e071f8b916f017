// The reflectivity vector VTF and XTF headers carry, computed like vtfpp does
// so files written from the same pixels get the same header bytes.
#pragma once

#include "assetforge/plugin_abi.h"
#include "assetforge/texture.hpp"

#include <array>

namespace af::xtf {

// For every frame, face and depth slice of mip 0 (decoded to RGBA8): the mean
// of (c / 255 · 0.922)² per channel, in single precision; then the mean of
// those means.
std::array<float, 3> compute_reflectivity(const af_host* host, const Texture& t);

// The XTF low-res pixel: trunc(clamp(reflectivity, 0, 1) · 255) per channel.
std::array<uint8_t, 3> reflectivity_pixel(const std::array<float, 3>& r);

} // namespace af::xtf
