// Channel maps (four letters from r g b a 0 1) on every surface, through the core's swizzle_channels.
#include "texture/levels.hpp"
#include "texture/texture_ops.hpp"

#include "assetforge/plugin.hpp"

namespace af::texture {

Texture channels(Ops& ops, const Texture& t, const std::string& map) {
    if (map.size() != 4 || map.find_first_not_of("rgba01RGBA") != std::string::npos)
        sdk::usage("channels: map '" + map + "' must be four letters from r, g, b, a, 0, 1");
    if (t.desc.depth > 1) sdk::unsupported("channel maps of volume textures");
    std::vector<std::vector<Texture>> levels;
    for (uint32_t l = 0; l < t.desc.layers; ++l)
        for (uint32_t f = 0; f < t.desc.faces; ++f) {
            std::vector<Texture> chain;
            for (uint32_t m = 0; m < t.desc.mips; ++m)
                chain.push_back(swizzle_channels(surface_image(ops, t, l, f, m), map));
            levels.push_back(std::move(chain));
        }
    Texture out = texture_from_levels(t, std::move(levels));
    return out;
}

} // namespace af::texture
