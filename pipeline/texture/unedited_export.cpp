#include "texture/unedited_export.hpp"

#include <algorithm>
#include <cmath>
#include <span>

namespace af::texture {

namespace {

// One surface of the editing copy against the same surface of the export.
bool same_surface(Ops& ops, const Texture& edited, const Texture& exported, uint32_t layer, uint32_t face,
                  uint32_t mip) {
    const Texture a = surface_image(ops, edited, layer, face, mip), b = surface_image(ops, exported, layer, face, mip);
    if (!is_float(b)) return !is_float(a) && a.data == b.data;
    // An original decoding to float was exported as an EXR (its values exactly)
    // or as a 16-bit PNG (which may read back as 8-bit or float): within half a
    // 16-bit step of the clamped value.
    const Texture converted = is_float(a) ? Texture{} : to_float(a);
    const std::span<const float> fa = is_float(a) ? floats(a) : floats(converted), fb = floats(b);
    if (fa.size() != fb.size()) return false;
    for (size_t i = 0; i < fa.size(); ++i)
        if (!(fa[i] == fb[i] || std::fabs(fa[i] - std::clamp(fb[i], 0.0f, 1.0f)) <= 0.5f / 65535.0f + 1e-6f))
            return false;
    return true;
}

} // namespace

bool unedited_export(Ops& ops, const Texture& edited, const Texture& original, bool from_set, bool levels) {
    const TextureDesc &e = edited.desc, &o = original.desc;
    if (e.width != o.width || e.height != o.height) return false;
    // A set of surface pictures is unedited when every surface is; a set that lacks some is not the export.
    const bool set = from_set || e.layers > 1 || e.faces > 1 || e.depth > 1;
    if (set && (e.layers != o.layers || e.faces != o.faces || e.depth != o.depth)) return false;
    if (levels && e.mips != o.mips) return false;
    // Through decode, as the export went: signed data mapped to 0..1, BC4/BC5 previews.
    const Texture exported = decode(ops, levels ? original : top_level(original)).texture;
    for (uint32_t l = 0; l < (set ? e.layers : 1); ++l)
        for (uint32_t f = 0; f < (set ? e.faces : 1); ++f)
            for (uint32_t m = 0; m < (levels ? e.mips : 1); ++m)
                if (!same_surface(ops, edited, exported, l, f, m)) return false;
    return true;
}

} // namespace af::texture
