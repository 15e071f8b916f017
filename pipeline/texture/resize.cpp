// The top level of every layer and face to another size (one level: mips come after).
#include "texture/levels.hpp"
#include "texture/texture_ops.hpp"

#include "assetforge/plugin.hpp"

namespace af::texture {

Texture resize(Ops& ops, const Texture& t, uint32_t width, uint32_t height, const ResizeOptions& opt) {
    if (t.desc.depth > 1) sdk::unsupported("resizing volume textures");
    std::vector<std::vector<Texture>> levels;
    for (uint32_t l = 0; l < t.desc.layers; ++l)
        for (uint32_t f = 0; f < t.desc.faces; ++f) {
            Texture top = surface_image(ops, t, l, f, 0);
            if (top.desc.width == width && top.desc.height == height)
                levels.push_back({std::move(top)});
            else
                levels.push_back({af::resize(top, width, height, opt)});
        }
    return texture_from_levels(t, std::move(levels));
}

} // namespace af::texture
