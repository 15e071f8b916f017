#include "texture/texture_ops.hpp"

#include <cstring>

namespace af::texture {

std::vector<Piece> extract(const Texture& t, ExtractWhat what) {
    const TextureDesc& d = t.desc;
    const bool by_layer = what == ExtractWhat::Layers || what == ExtractWhat::Surfaces;
    const bool by_face = what == ExtractWhat::Faces || what == ExtractWhat::Surfaces;
    const bool by_mip = what == ExtractWhat::Mips || what == ExtractWhat::Surfaces;
    std::vector<Piece> out;
    for (uint32_t l = 0; l < (by_layer ? d.layers : 1); ++l)
        for (uint32_t f = 0; f < (by_face ? d.faces : 1); ++f)
            for (uint32_t m = 0; m < (by_mip ? d.mips : 1); ++m) {
                TextureDesc nd = d;
                if (by_layer) nd.layers = 1;
                if (by_face) nd.faces = 1, nd.flags &= ~AF_TEX_CUBE;
                if (by_mip)
                    nd.mips = 1, nd.width = mip_extent(d.width, m), nd.height = mip_extent(d.height, m),
                    nd.depth = mip_extent(d.depth, m);
                Piece p{Texture(nd), {}};
                p.texture.meta = t.meta;
                for (uint32_t L = 0; L < nd.layers; ++L)
                    for (uint32_t F = 0; F < nd.faces; ++F)
                        for (uint32_t M = 0; M < nd.mips; ++M) {
                            ImageView src = t.surface(by_layer ? l : L, by_face ? f : F, by_mip ? m : M);
                            ImageView dst = p.texture.surface(L, F, M);
                            std::memcpy(dst.data, src.data, dst.size);
                        }
                if (d.format == FMT_P8 && by_layer && !t.palette.empty())
                    p.texture.palette.assign(t.palette.begin() + size_t(l) * 1024,
                                             t.palette.begin() + size_t(l + 1) * 1024);
                else if (d.format == FMT_P8)
                    p.texture.palette = t.palette;
                if (by_layer) p.meta["layer"] = std::to_string(l);
                if (by_face) p.meta["face"] = std::to_string(f);
                if (by_mip) p.meta["mip"] = std::to_string(m), p.meta["level"] = std::to_string(m);
                out.push_back(std::move(p));
            }
    return out;
}

} // namespace af::texture
