// Whole-surface BC decode and encode: blocks in parallel through the host's
// parallel_for, edge blocks padded by clamping to the last row/column, output
// identical for any thread count (every block is a pure function of its texels).
#pragma once

#include "assetforge/plugin_abi.h"
#include "bc_block.hpp"

#include <cstdint>
#include <optional>

namespace af::bc {

enum class Family { BC1, BC2, BC3, BC4, BC5, BC6H, BC7 };

struct BcFormat {
    Family family;
    bool is_signed; // BC4/BC5 SNORM, BC6H SF16
    bool srgb;
    uint32_t block_bytes;
};

// DXGI 70–84 and 94–99; typeless ids read as UNORM (UF16 for BC6H).
std::optional<BcFormat> classify(uint32_t dxgi);

struct SurfaceOptions {
    EncodeOptions block;
    bool normal_map = false; // BC5: renormalise (x, y, z) before keeping x, y
};

// Parses the codec's string options (quality, level, weights, srgb, bc1_3color,
// bc1_punchthrough, alpha_threshold, normal_map); throws af::sdk::Error on bad values.
SurfaceOptions parse_options(const af_options* options);

// src: compressed; dst: R8G8B8A8_UNORM(_SRGB), R16G16B16A16_FLOAT or R32G32B32A32_FLOAT.
void decode_surface(const af_host* host, const af_surface& src, af_surface& dst);
// src: R8G8B8A8_UNORM(_SRGB) or R32G32B32A32_FLOAT; dst: compressed.
void encode_surface(const af_host* host, const af_surface& src, af_surface& dst, const SurfaceOptions& opt);

// The codec's decode and encode through the C ABI (plugin.cpp registers them).
af_status decode_codec(const af_host* host, const af_surface* src, af_surface* dst, const af_options* options,
                       af_error* error);
af_status encode_codec(const af_host* host, const af_surface* src, af_surface* dst, const af_options* options,
                       af_error* error);

} // namespace af::bc
