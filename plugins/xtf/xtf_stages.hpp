// Pipeline stages: `xtf.write` (texture → XTF bytes) and the generic
// `swizzle` / `deswizzle` for raw uncompressed surfaces.
#pragma once

#include "assetforge/plugin_abi.h"

#include <cstdint>
#include <vector>

namespace af::xtf {

const af_stage* xtf_write_stage();
const af_stage* swizzle_stage();
const af_stage* deswizzle_stage();

struct RawSurfaceParams {
    uint32_t width, height, depth, bits_per_texel;
};
RawSurfaceParams parse_raw_surface_params(const af_options* params);
// Checks the size and extents and (de)swizzles one raw surface.
std::vector<uint8_t> swizzle_raw(const af_host* host, const uint8_t* data, uint64_t size, const RawSurfaceParams& p,
                                 bool to_swizzled);

} // namespace af::xtf
