#include "vtf_formats.hpp"

#include "assetforge/formats.hpp"

#include <string>

namespace af::xtf {

namespace {

struct Row {
    int32_t vtf;
    std::string_view name;
    uint32_t af;
};

// Byte layouts are identical on both sides of every row.
constexpr Row kRows[] = {
    {VTF_RGBA8888, "RGBA8888", FMT_R8G8B8A8_UNORM},
    {VTF_ABGR8888, "ABGR8888", FMT_A8B8G8R8},
    {VTF_RGB888, "RGB888", FMT_R8G8B8},
    {VTF_BGR888, "BGR888", FMT_B8G8R8},
    {VTF_RGB565, "RGB565", FMT_R5G6B5},
    {VTF_I8, "I8", FMT_L8},
    {VTF_IA88, "IA88", FMT_L8A8},
    {VTF_P8, "P8", FMT_P8},
    {VTF_A8, "A8", FMT_A8_UNORM},
    {VTF_RGB888_BLUESCREEN, "RGB888_BLUESCREEN", FMT_R8G8B8_BLUESCREEN},
    {VTF_BGR888_BLUESCREEN, "BGR888_BLUESCREEN", FMT_B8G8R8_BLUESCREEN},
    {VTF_ARGB8888, "ARGB8888", FMT_A8R8G8B8},
    {VTF_BGRA8888, "BGRA8888", FMT_B8G8R8A8_UNORM},
    {VTF_DXT1, "DXT1", FMT_BC1_UNORM},
    {VTF_DXT3, "DXT3", FMT_BC2_UNORM},
    {VTF_DXT5, "DXT5", FMT_BC3_UNORM},
    {VTF_BGRX8888, "BGRX8888", FMT_B8G8R8X8_UNORM},
    {VTF_BGR565, "BGR565", FMT_B5G6R5_UNORM},
    {VTF_BGRX5551, "BGRX5551", FMT_B5G5R5X1},
    {VTF_BGRA4444, "BGRA4444", FMT_B4G4R4A4_UNORM},
    {VTF_DXT1_ONEBITALPHA, "DXT1_ONEBITALPHA", FMT_BC1_UNORM},
    {VTF_BGRA5551, "BGRA5551", FMT_B5G5R5A1_UNORM},
    {VTF_UV88, "UV88", FMT_R8G8_SNORM},
    {VTF_UVWQ8888, "UVWQ8888", FMT_R8G8B8A8_SNORM},
    {VTF_RGBA16161616F, "RGBA16161616F", FMT_R16G16B16A16_FLOAT},
    {VTF_RGBA16161616, "RGBA16161616", FMT_R16G16B16A16_UNORM},
    {VTF_UVLX8888, "UVLX8888", FMT_U8V8L8X8},
};

bool iequal(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
        char x = a[i], y = b[i];
        if (x >= 'a' && x <= 'z') x = char(x - 32);
        if (y >= 'a' && y <= 'z') y = char(y - 32);
        if (x != y) return false;
    }
    return true;
}

constexpr std::string_view kFlagNames[] = {"POINTSAMPLE",
                                           "TRILINEAR",
                                           "CLAMPS",
                                           "CLAMPT",
                                           "ANISOTROPIC",
                                           "HINT_DXT5",
                                           "NOCOMPRESS",
                                           "NORMAL",
                                           "NOMIP",
                                           "NOLOD",
                                           "MINMIP",
                                           "PROCEDURAL",
                                           "ONEBITALPHA",
                                           "EIGHTBITALPHA",
                                           "ENVMAP",
                                           "RENDERTARGET",
                                           "DEPTHRENDERTARGET",
                                           "NODEBUGOVERRIDE",
                                           "SINGLECOPY",
                                           "ONEOVERMIPLEVELINALPHA",
                                           "PREMULTCOLORBYONEOVERMIPLEVEL",
                                           "NORMALTODUDV",
                                           "ALPHATESTMIPGENERATION",
                                           "NODEPTHBUFFER",
                                           "NICEFILTERED",
                                           "CLAMPU"};

} // namespace

std::optional<uint32_t> af_format_of(int32_t vtf_format) {
    for (const Row& r : kRows)
        if (r.vtf == vtf_format) return r.af;
    return std::nullopt;
}

std::optional<int32_t> vtf_format_of(uint32_t af_format) {
    for (const Row& r : kRows)
        if (r.af == af_format) return r.vtf; // first row wins: DXT1 → 13
    return std::nullopt;
}

std::string_view vtf_format_name(int32_t vtf_format) {
    for (const Row& r : kRows)
        if (r.vtf == vtf_format) return r.name;
    return "?";
}

std::optional<int32_t> vtf_format_by_name(std::string_view name) {
    for (const Row& r : kRows)
        if (iequal(r.name, name)) return r.vtf;
    return std::nullopt;
}

std::string flag_names(uint32_t flags, bool xbox) {
    std::string out;
    for (uint32_t bit = 0; bit < 32; ++bit) {
        if (!(flags >> bit & 1)) continue;
        std::string name;
        if (bit < std::size(kFlagNames))
            name = std::string(kFlagNames[bit]);
        else if (xbox && bit == 26)
            name = "PRESWIZZLED";
        else if (xbox && bit == 27)
            name = "CACHEABLE";
        else if (xbox && bit == 28)
            name = "UNFILTERABLE_OK";
        else if (!xbox && bit == 26)
            name = "VERTEXTEXTURE";
        else if (!xbox && bit == 27)
            name = "SSBUMP";
        else if (!xbox && bit == 28)
            name = "LOAD_MOST_MIPS";
        else
            name = "BIT" + std::to_string(bit);
        if (!out.empty()) out.push_back('|');
        out.append(name);
    }
    return out;
}

} // namespace af::xtf
