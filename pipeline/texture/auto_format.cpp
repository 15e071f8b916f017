#include "texture/auto_format.hpp"

#include "assetforge/formats.hpp"
#include "assetforge/plugin.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

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

bool named_like_normal_map(std::string_view file_name) {
    std::string s = std::filesystem::path(std::string(file_name)).stem().string();
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (s.find("normal") != std::string::npos) return true;
    for (std::string_view suffix : {"_n", "_nm", "-nm", "_nrm", "_norm"})
        if (s.size() > suffix.size() && std::string_view(s).substr(s.size() - suffix.size()) == suffix) return true;
    return false;
}

AutoChoice choose_format(const Content& c, const AutoHints& h) {
    const bool best = h.quality == Quality::High || h.quality == Quality::Max;
    if (c.above_one || c.negative || h.float_source)
        return c.negative    ? AutoChoice{FMT_BC6H_SF16, "HDR values below zero"}
               : c.above_one ? AutoChoice{FMT_BC6H_UF16, "HDR values above one"}
                             : AutoChoice{FMT_BC6H_UF16, "float (HDR) source format"};
    if (h.normal_map) return {FMT_BC5_UNORM, "normal map (marked by the job, or recognised when making mips)"};
    if (!h.name.empty() && named_like_normal_map(h.name) && c.alpha == AlphaKind::Opaque)
        return {FMT_BC5_UNORM, "normal map (file name)"};
    if (c.unit_vectors && c.alpha == AlphaKind::Opaque) return {FMT_BC5_UNORM, "normal map (texels are unit vectors)"};
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
