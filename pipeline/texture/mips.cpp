#include "texture/levels.hpp"
#include "texture/texture_ops.hpp"

#include "assetforge/plugin.hpp"

namespace af::texture {

std::string verdict_text(const NormalMapVerdict& v) { return (v.yes ? "yes: " : "no: ") + v.rule; }

namespace {

// The top level as a picture whose buffer has room for the whole chain of
// one surface, so texture_from_levels can take it over without a second copy
// of the largest level.
Texture top_with_room(Ops& ops, const Texture& t, uint32_t layer, uint32_t face) {
    if (with_srgb(t.desc.format, false) != FMT_R8G8B8A8_UNORM || t.desc.layers * t.desc.faces != 1)
        return surface_image(ops, t, layer, face, 0);
    ImageView s = t.surface(layer, face, 0);
    count_decode(t.desc.format);
    // Built by hand rather than by rgba8_picture: the buffer is reserved for the chain before the level is copied in.
    Texture img;
    img.desc.format = is_srgb(t) ? FMT_R8G8B8A8_UNORM_SRGB : FMT_R8G8B8A8_UNORM;
    img.desc.width = s.width;
    img.desc.height = s.height;
    TextureDesc chain;
    chain.format = FMT_R8G8B8A8_UNORM;
    chain.width = s.width;
    chain.height = s.height;
    chain.mips = full_mip_count(s.width, s.height);
    img.data.reserve(texture_bytes(chain));
    img.data.assign(s.data, s.data + s.size);
    return img;
}

} // namespace

Texture mips(Ops& ops, const Texture& t, const MipRequest& req, TopLevel* top_level) {
    if (t.desc.depth > 1)
        sdk::unsupported(sdk::format("mips of volume textures (depth %u): give every level as drawn instead (an export "
                                     "with decode: { mips: all }, or a volume of one level)",
                                     t.desc.depth));
    if (t.desc.format == FMT_P8 && t.palette.empty()) sdk::unsupported("mips of P8 textures without a palette");
    std::vector<std::vector<Texture>> levels;
    bool normal = req.normal_map == NormalMapMode::Yes;
    std::optional<Content> content;
    bool analysed_float = false;
    for (uint32_t l = 0; l < t.desc.layers; ++l)
        for (uint32_t f = 0; f < t.desc.faces; ++f) {
            Texture top = top_with_room(ops, t, l, f);
            if (is_float(top) && snorm_like(*format_info(t.desc.format))) signed_to_unit(top);
            if (l == 0 && f == 0) {
                content = analyse(top);
                analysed_float = is_float(top);
                NormalMapVerdict v = recognise_normal_map(t, *content, req.name, req.normal_map, req.normal_map_why);
                normal = v.yes;
                if (top_level) top_level->verdict = std::move(v);
            }
            if (req.colour != ColourTag::Keep) set_srgb(top, req.colour == ColourTag::Srgb);
            MipOptions o = req.options;
            o.normal_map = normal;
            if (normal) set_srgb(top, false); // vectors are data: filtered and stored as they are
            levels.push_back(generate_mips(std::move(top), o));
        }
    Texture out = texture_from_levels(t, std::move(levels));
    out.desc.flags &= ~AF_TEX_LINEAR;
    if (normal)
        out.desc.flags = (out.desc.flags & ~AF_TEX_SRGB) | AF_TEX_NORMAL_MAP | AF_TEX_LINEAR;
    else if (req.colour == ColourTag::Linear)
        out.desc.flags |= AF_TEX_LINEAR;
    else if (!(out.desc.flags & AF_TEX_SRGB) && known_linear(t))
        out.desc.flags |= AF_TEX_LINEAR;
    if (top_level) {
        // The analysis holds for the output's level 0 only where that level keeps the analysed texels as they were.
        const uint32_t stored = with_srgb(out.desc.format, false);
        if (stored == (analysed_float ? FMT_R32G32B32A32_FLOAT : FMT_R8G8B8A8_UNORM)) top_level->content = content;
        top_level->of = out.data.data();
    }
    return out;
}

} // namespace af::texture
