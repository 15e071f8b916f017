#include "texture/unedited_export.hpp"

#include <algorithm>
#include <cmath>

namespace af::texture {

bool unedited_export(Ops& ops, const Texture& edited, const Texture& original) {
    if (edited.desc.width != original.desc.width || edited.desc.height != original.desc.height) return false;
    // Through decode, as the export went: signed data mapped to 0..1, BC4/BC5 previews.
    const Texture exported = decode(ops, top_level(original)).texture;
    const Image a = surface_image(ops, edited, 0, 0, 0), b = surface_image(ops, exported, 0, 0, 0);
    if (a.is_float() != b.is_float()) {
        // An original decoding to float, exported as a 16-bit PNG, reads back
        // as 16-bit UNORM: compare within half a 16-bit step of the clamped value.
        if (!b.is_float()) return false;
        const Image fa = to_float(a);
        if (fa.rgba32f.size() != b.rgba32f.size()) return false;
        for (size_t i = 0; i < b.rgba32f.size(); ++i) {
            const float want = std::clamp(b.rgba32f[i], 0.0f, 1.0f);
            if (!(std::fabs(fa.rgba32f[i] - want) <= 0.5f / 65535.0f + 1e-6f)) return false;
        }
        return true;
    }
    if (a.is_float()) {
        if (a.rgba32f.size() != b.rgba32f.size()) return false;
        for (size_t i = 0; i < a.rgba32f.size(); ++i) {
            const float want = std::clamp(b.rgba32f[i], 0.0f, 1.0f);
            if (!(std::fabs(a.rgba32f[i] - want) <= 0.5f / 65535.0f + 1e-6f)) return false;
        }
        return true;
    }
    return a.rgba8 == b.rgba8;
}

} // namespace af::texture
