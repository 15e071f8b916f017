#include "texture/texture_ops.hpp"

namespace af::texture {

bool is_srgb(const Texture& t) { return af::is_srgb(t.desc); }

bool known_linear(const Texture& t) { return af::known_linear(t.desc); }

void retag(Texture& t, ColourTag tag) {
    if (tag == ColourTag::Keep) return;
    const bool srgb = tag == ColourTag::Srgb;
    t.desc.format = with_srgb(t.desc.format, srgb);
    t.desc.flags &= ~(AF_TEX_SRGB | AF_TEX_LINEAR);
    t.desc.flags |= srgb ? AF_TEX_SRGB : AF_TEX_LINEAR;
}

} // namespace af::texture
