#include "texture/auto_format.hpp"

#include "assetforge/formats.hpp"
#include "assetforge/plugin.hpp"

namespace af::texture {

Quality parse_quality(std::string_view s) {
    if (s == "fast") return Quality::Fast;
    if (s == "normal") return Quality::Normal;
    if (s == "high") return Quality::High;
    if (s == "max") return Quality::Max;
    sdk::usage("quality '" + std::string(s) + "': use fast, normal, high or max");
}

std::string_view quality_name(Quality q) {
    static constexpr std::string_view names[] = {"fast", "normal", "high", "max"};
    return names[int(q)];
}

AutoChoice choose_format(const Content& c, const AutoHints& h) {
    const bool best = h.quality == Quality::High || h.quality == Quality::Max;
    if (c.above_one || c.negative || h.float_source)
        return c.negative    ? AutoChoice{FMT_BC6H_SF16, "HDR values below zero"}
               : c.above_one ? AutoChoice{FMT_BC6H_UF16, "HDR values above one"}
                             : AutoChoice{FMT_BC6H_UF16, "float (HDR) source format"};
    std::string normal;
    if (h.normal) {
        if (h.normal->yes) normal = h.normal->rule;
    } else if (h.normal_map) {
        normal = "marked by the job, or recognised when making mips";
    } else if (std::string tok = h.name.empty() ? "" : normal_map_name_token(h.name); !tok.empty()) {
        normal = "file name token '" + tok + "'";
    } else if (c.unit_vectors) {
        normal = "texels are unit vectors";
    }
    if (!normal.empty()) {
        // BC5 keeps X and Y only: a normal map whose alpha holds data (height,
        // gloss) keeps it in a format with alpha, never the sRGB twin.
        if (c.alpha == AlphaKind::Opaque) return {FMT_BC5_UNORM, "normal map (" + normal + ")"};
        return best ? AutoChoice{FMT_BC7_UNORM, "normal map with data in alpha (" + normal + ")"}
                    : AutoChoice{FMT_BC3_UNORM, "normal map with data in alpha (" + normal + ")"};
    }
    if (c.grey && c.alpha == AlphaKind::Opaque && h.grey_in_red)
        return {FMT_BC4_UNORM, "greyscale, opaque, shader reads red"};
    switch (c.alpha) {
    case AlphaKind::Opaque:
        if (best) return {with_srgb(FMT_BC7_UNORM, h.srgb), c.grey ? "greyscale, opaque" : "colour, opaque"};
        return {with_srgb(FMT_BC1_UNORM, h.srgb), c.grey ? "greyscale, opaque" : "colour, opaque"};
    case AlphaKind::Cutout:
        if (best) return {with_srgb(FMT_BC7_UNORM, h.srgb), "cut-out alpha"};
        return {with_srgb(FMT_BC1_UNORM, h.srgb), "cut-out alpha (BC1 one-bit alpha)"};
    case AlphaKind::Smooth:
        break;
    }
    if (best) return {with_srgb(FMT_BC7_UNORM, h.srgb), "smooth alpha"};
    return {with_srgb(FMT_BC3_UNORM, h.srgb), "smooth alpha"};
}

} // namespace af::texture
