// Pipeline stages: `xtf.write` (texture → XTF bytes) and the generic
// `swizzle` / `deswizzle` for raw uncompressed surfaces.
#pragma once

#include "assetforge/plugin_abi.h"

#include <cstdint>
#include <vector>

namespace af::xtf {

// The stages' run functions (plugin.cpp declares the stages and their parameters).
af_status run_xtf_write(const af_host* host, const af_stage_io* io, const af_options* params, af_error* error);
af_status run_swizzle(const af_host* host, const af_stage_io* io, const af_options* params, af_error* error);
af_status run_deswizzle(const af_host* host, const af_stage_io* io, const af_options* params, af_error* error);

struct RawSurfaceParams {
    uint32_t width, height, depth, bits_per_texel;
};
RawSurfaceParams parse_raw_surface_params(const af_options* params);
// Checks the size and extents and (de)swizzles one raw surface.
std::vector<uint8_t> swizzle_raw(const af_host* host, const uint8_t* data, uint64_t size, const RawSurfaceParams& p,
                                 bool to_swizzled);

} // namespace af::xtf
