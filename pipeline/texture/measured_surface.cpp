#include "texture/levels.hpp"
#include "texture/texture_ops.hpp"

namespace af::texture {
namespace {

// A SNORM format decodes to -1..1 floats; its PNG export, the picture a UNORM
// re-encode starts from and the normal-map rule all hold it as 0..1. Measuring
// the raw decode against those made a texture 5.5 dB from its own export.
Texture in_unit_range(const Texture& stored, Texture img) {
    const FormatInfo* f = format_info(stored.desc.format);
    if (f && snorm_like(*f) && is_float(img)) signed_to_unit(img);
    return img;
}

} // namespace

Texture measured_image(Ops& ops, const Texture& t, uint32_t layer, uint32_t face, uint32_t mip) {
    return in_unit_range(t, surface_image(ops, t, layer, face, mip));
}

Texture measured_rows(Ops& ops, const Texture& t, uint32_t layer, uint32_t face, uint32_t mip, uint32_t y0,
                      uint32_t rows) {
    return in_unit_range(t, surface_rows(ops, t, layer, face, mip, y0, rows));
}

} // namespace af::texture
