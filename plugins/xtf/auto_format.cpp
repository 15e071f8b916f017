#include "auto_format.hpp"

#include "surface_codec.hpp"
#include "vtf_formats.hpp"

#include "assetforge/plugin.hpp"

#include <cmath>
#include <span>

namespace af::xtf {

AlphaKind alpha_content(const af_host* host, const Texture& t) {
    const FormatInfo* fi = format_info(t.desc.format);
    if (fi && !fi->has_alpha()) return AlphaKind::Opaque;
    AlphaSeen seen;
    for (uint32_t l = 0; l < t.desc.layers && !seen.settled(); ++l)
        for (uint32_t f = 0; f < t.desc.faces && !seen.settled(); ++f) {
            const Texture img = decode_surface(host, t, l, f, 0);
            const size_t n = texels(img);
            const std::span<const float> rgba32f = floats(img);
            for (size_t i = 0; i < n && !seen.settled(); ++i) {
                if (is_float(img))
                    seen.add(rgba32f[i * 4 + 3]);
                else
                    seen.add(img.data[i * 4 + 3]);
            }
        }
    return seen.kind();
}

AutoFormat auto_xtf_format(const af_host* host, const Texture& t) {
    switch (t.desc.format) {
    case FMT_BC1_UNORM:
    case FMT_BC1_UNORM_SRGB:
        return {VTF_DXT1, false, "already DXT1"};
    case FMT_BC2_UNORM:
    case FMT_BC2_UNORM_SRGB:
        return {VTF_DXT3, false, "already DXT3"};
    case FMT_BC3_UNORM:
    case FMT_BC3_UNORM_SRGB:
        return {VTF_DXT5, false, "already DXT5"};
    case FMT_P8:
        return {VTF_P8, false, "already P8"};
    default:
        break;
    }
    return auto_by_content(host, t);
}

AutoFormat auto_by_content(const af_host* host, const Texture& t) {
    const FormatInfo* fi = format_info(t.desc.format);
    if (fi && (fi->flags & fmtflag::hdr)) // DXT would clamp to 0..1
        return {VTF_RGBA16161616F, false, "float data"};
    AutoFormat pick{VTF_DXT1, false, "opaque"};
    switch (alpha_content(host, t)) {
    case AlphaKind::Opaque:
        break;
    case AlphaKind::Cutout:
        pick = {VTF_DXT1, true, "cut-out alpha (only 0 and 255)"};
        break;
    case AlphaKind::Smooth:
        pick = {VTF_DXT5, false, "smooth alpha"};
        break;
    }
    const uint32_t target = *af_format_of(pick.vtf_format);
    if (auto why = encoder_missing(host, target))
        sdk::unsupported(sdk::format("format auto picks %s for this texture (%s), but it cannot be encoded here: %s. "
                                     "Install the bc codec plugin, or name an uncompressed format (e.g. format: "
                                     "BGRA8888)",
                                     std::string(vtf_format_name(pick.vtf_format)).c_str(), pick.why, why->c_str()));
    return pick;
}

} // namespace af::xtf
