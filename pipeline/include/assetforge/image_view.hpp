// ImageView: one borrowed surface of any format; Texture owns the bytes (as
// DirectXTex's Image is a view into its ScratchImage). A Texture's surface(), an RGBA8/RGBA32F picture of
// the image operations (sdk::view_of) and an af_surface of the ABI all come as
// one; the bytes belong to whoever made it and must outlive it.
#pragma once

#include "assetforge/formats.hpp"
#include "assetforge/plugin_abi.h"

#include <cstddef>
#include <cstdint>

namespace af {

struct ImageView {
    // af_surface's fields, in its order, so a view and the ABI's surface convert field by field.
    uint32_t format = FMT_UNKNOWN;
    uint32_t width = 0, height = 0, depth = 1;
    uint8_t* data = nullptr; // rows tightly packed (texels, or 4×4 blocks of a compressed format)
    uint64_t size = 0;       // bytes of every slice

    af_surface abi() const { return {format, width, height, depth, data, size}; }
    static ImageView of(const af_surface& s) { return {s.format, s.width, s.height, s.depth, s.data, s.size}; }

    size_t texels() const { return size_t(width) * height * depth; }
    bool is_float() const { return format == FMT_R32G32B32A32_FLOAT; }
    // RGBA8 (either twin) or RGBA32F: the two layouts the image operations read texel by texel.
    bool is_rgba() const { return is_float() || format == FMT_R8G8B8A8_UNORM || format == FMT_R8G8B8A8_UNORM_SRGB; }
    // The texels of an RGBA8 or RGBA32F view; null for any other format.
    const uint8_t* u8() const { return is_rgba() && !is_float() ? data : nullptr; }
    const float* f32() const { return is_float() ? reinterpret_cast<const float*>(data) : nullptr; }
    // A volume's slices one under the other, as one 2-D view of the same bytes.
    ImageView stacked() const { return {format, width, height * depth, 1, data, size}; }
};

// The name this view had before it carried its format, kept one SDK release for plugins written against it.
using SurfaceRef [[deprecated("af::SurfaceRef is af::ImageView")]] = ImageView;

} // namespace af
