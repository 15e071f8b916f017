#include "texture/unedited_export.hpp"

#include <algorithm>
#include <cmath>
#include <span>

namespace af::texture {

bool unedited_export(Ops& ops, const Texture& edited, const Texture& original) {
    if (edited.desc.width != original.desc.width || edited.desc.height != original.desc.height) return false;
    // Through decode, as the export went: signed data mapped to 0..1, BC4/BC5 previews.
    const Texture exported = decode(ops, top_level(original)).texture;
    const Texture a = surface_image(ops, edited, 0, 0, 0), b = surface_image(ops, exported, 0, 0, 0);
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

} // namespace af::texture
