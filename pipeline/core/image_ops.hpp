// Image processing on uncompressed images: resize, mip chains, colour space,
// alpha and normal-map operations. Runs in parallel on the TBB arena of the
// calling thread (the host's, when called from a build).
//
// Contract shared by the host, the engine and the plugins; implemented in
// image_ops*.cpp.
#pragma once

#include "core/image.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace af {

enum class Filter { Box, Triangle, Kaiser, Lanczos3, Mitchell, Point };
enum class Edge { Clamp, Wrap };

// Parses "box", "kaiser", … ; throws af::sdk::Error (usage) listing valid names.
Filter parse_filter(std::string_view name);
Edge parse_edge(std::string_view name);

struct ResizeOptions {
    Filter filter = Filter::Kaiser;
    Edge edge = Edge::Clamp;
    bool linear_light = true;      // filter sRGB-tagged images in linear light
    bool premultiply_alpha = true; // weight colour by alpha while filtering
};

// Any target size; keeps the image's pixel type and sRGB tag.
Image resize(const Image& in, uint32_t width, uint32_t height, const ResizeOptions& opt = {});

struct MipOptions : ResizeOptions {
    float alpha_coverage_ref = -1.0f; // >= 0: keep the fraction of alpha > ref at every level
    bool normal_map = false;          // renormalise texels after filtering (tangent-space, 0..1 encoded)
    uint32_t count = 0;               // 0 = full chain
    uint32_t min_size = 1;            // stop before a level whose larger side is below this
};

// Level 0 is a copy of `top`; each next level is max(1, floor(n/2)) per axis.
std::vector<Image> generate_mips(const Image& top, const MipOptions& opt = {});

Image crop(const Image& in, uint32_t x, uint32_t y, uint32_t width, uint32_t height);

} // namespace af
