// Mip chains for Textures: per surface through Image and back.
#include "core/image_ops_internal.hpp"

#include "assetforge/plugin.hpp"
#include "core/pixel_convert.hpp"

namespace af {

namespace {

// Normal maps in SNORM formats decode to -1..1; the mip code expects the 0..1
// encoding. Only channels the format has are moved, so a missing blue stays 0
// and the map is still recognised as two-channel.
void snorm_to_unit(Image& img, const FormatInfo& f, bool forward) {
    for (int k = 0; k < 3; ++k) {
        if (f.ch[k].type != ChannelType::Snorm) continue;
        for (size_t i = size_t(k); i < img.rgba32f.size(); i += 4)
            img.rgba32f[i] = forward ? img.rgba32f[i] * 0.5f + 0.5f : img.rgba32f[i] * 2.0f - 1.0f;
    }
}

} // namespace

Texture generate_texture_mips(const Texture& in, const MipOptions& opt, ColourSpace colour) {
    const TextureDesc& d = in.desc;
    const FormatInfo* f = format_info(d.format);
    if (!f) sdk::unsupported(sdk::format("mips: format id %u is not in the format table", d.format));
    if (f->compressed() || !core_can_convert(d.format))
        sdk::unsupported(sdk::format("mips of %.*s: decode it to an uncompressed format first", int(f->name.size()),
                                     f->name.data()));
    if (d.format == FMT_P8) sdk::unsupported("mips of P8 (palettised) textures");
    if (d.depth != 1) sdk::unsupported(sdk::format("mips of volume textures (depth %u)", d.depth));
    if (d.width == 0 || d.height == 0 || d.layers == 0 || d.faces == 0)
        sdk::usage(sdk::format("mips: texture of %ux%u with %u layers and %u faces is empty", d.width, d.height,
                               d.layers, d.faces));
    if (in.data.size() != texture_bytes(d))
        sdk::fail(AF_ERR_INVALID_DATA, AF_NO_OFFSET,
                  sdk::format("mips: texture holds %zu bytes, its description needs %llu", in.data.size(),
                              (unsigned long long)texture_bytes(d)));

    // Level 0 of every surface first: all of them must agree on the count.
    std::vector<std::vector<Image>> chains;
    for (uint32_t layer = 0; layer < d.layers; ++layer)
        for (uint32_t face = 0; face < d.faces; ++face) {
            SurfaceRef s = in.surface(layer, face, 0);
            Image top = surface_to_image(d.format, s.data, s.size, s.width, s.height);
            if (colour != ColourSpace::FromFormat) top.srgb = colour == ColourSpace::Srgb;
            const bool snorm_normals = opt.normal_map && top.is_float();
            if (snorm_normals) snorm_to_unit(top, *f, true);
            chains.push_back(generate_mips(top, opt));
            if (snorm_normals)
                for (Image& level : chains.back()) snorm_to_unit(level, *f, false);
        }

    TextureDesc od = d;
    od.mips = uint32_t(chains.front().size());
    Texture out(od);
    out.meta = in.meta;
    size_t n = 0;
    for (uint32_t layer = 0; layer < d.layers; ++layer)
        for (uint32_t face = 0; face < d.faces; ++face, ++n)
            for (uint32_t mip = 0; mip < od.mips; ++mip) {
                SurfaceRef s = out.surface(layer, face, mip);
                const Image& level = chains[n][mip];
                if (mip == 0) { // keep the source bytes exactly
                    SurfaceRef src = in.surface(layer, face, 0);
                    std::copy(src.data, src.data + src.size, s.data);
                } else {
                    image_to_surface(level, d.format, s.data, s.size);
                }
            }
    return out;
}

} // namespace af
