#include "texture/format_names.hpp"

#include "assetforge/format_channels.hpp"
#include "assetforge/formats.hpp"
#include "assetforge/plugin.hpp"

#include <bit>
#include <cctype>
#include <cmath>

namespace af::texture {
namespace {

struct Alias {
    std::string_view name;
    uint32_t format;
};

// Names modders type (texconv, nvtt, Compressonator habits). BC4/BC5 have no
// sRGB form; `bc6h` is the unsigned variant.
constexpr Alias kShort[] = {
    {"bc1", FMT_BC1_UNORM},
    {"dxt1", FMT_BC1_UNORM},
    {"bc2", FMT_BC2_UNORM},
    {"dxt3", FMT_BC2_UNORM},
    {"bc3", FMT_BC3_UNORM},
    {"dxt5", FMT_BC3_UNORM},
    {"bc4", FMT_BC4_UNORM},
    {"ati1", FMT_BC4_UNORM},
    {"bc4s", FMT_BC4_SNORM},
    {"bc5", FMT_BC5_UNORM},
    {"ati2", FMT_BC5_UNORM},
    {"bc5s", FMT_BC5_SNORM},
    {"bc6h", FMT_BC6H_UF16},
    {"bc6hs", FMT_BC6H_SF16},
    {"bc7", FMT_BC7_UNORM},
    {"rgba8", FMT_R8G8B8A8_UNORM},
    {"bgra8", FMT_B8G8R8A8_UNORM},
    {"bgrx8", FMT_B8G8R8X8_UNORM},
    {"rgba16", FMT_R16G16B16A16_UNORM},
    {"rgba16f", FMT_R16G16B16A16_FLOAT},
    {"rgba32f", FMT_R32G32B32A32_FLOAT},
    {"r8", FMT_R8_UNORM},
    {"rg8", FMT_R8G8_UNORM},
};

// VTF / XTF format names (Valve's IMAGE_FORMAT_ without the prefix). The
// byte layouts are the same as the format ids they map to.
constexpr Alias kVtf[] = {
    {"RGBA8888", FMT_R8G8B8A8_UNORM},
    {"ABGR8888", FMT_A8B8G8R8},
    {"RGB888", FMT_R8G8B8},
    {"BGR888", FMT_B8G8R8},
    {"RGB565", FMT_R5G6B5},
    {"I8", FMT_L8},
    {"IA88", FMT_L8A8},
    {"P8", FMT_P8},
    {"A8", FMT_A8_UNORM},
    {"RGB888_BLUESCREEN", FMT_R8G8B8_BLUESCREEN},
    {"BGR888_BLUESCREEN", FMT_B8G8R8_BLUESCREEN},
    {"ARGB8888", FMT_A8R8G8B8},
    {"BGRA8888", FMT_B8G8R8A8_UNORM},
    {"DXT1", FMT_BC1_UNORM},
    {"DXT3", FMT_BC2_UNORM},
    {"DXT5", FMT_BC3_UNORM},
    {"BGRX8888", FMT_B8G8R8X8_UNORM},
    {"BGR565", FMT_B5G6R5_UNORM},
    {"BGRX5551", FMT_B5G5R5X1},
    {"BGRA4444", FMT_B4G4R4A4_UNORM},
    {"DXT1_ONEBITALPHA", FMT_BC1_UNORM},
    {"BGRA5551", FMT_B5G5R5A1_UNORM},
    {"UV88", FMT_R8G8_SNORM},
    {"UVWQ8888", FMT_R8G8B8A8_SNORM},
    {"RGBA16161616F", FMT_R16G16B16A16_FLOAT},
    {"RGBA16161616", FMT_R16G16B16A16_UNORM},
    {"UVLX8888", FMT_U8V8L8X8},
};

bool iequal(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    return true;
}

} // namespace

uint32_t NamedFormat::for_data(bool srgb) const { return follows_data ? with_srgb(format, srgb) : format; }

std::optional<NamedFormat> parse_named_format(std::string_view name) {
    for (std::string_view prefix : {"IMAGE_FORMAT_", "DXGI_FORMAT_"})
        if (name.size() > prefix.size() && iequal(name.substr(0, prefix.size()), prefix)) {
            name.remove_prefix(prefix.size());
            break;
        }
    for (const auto& a : kShort)
        if (iequal(name, a.name)) return NamedFormat{a.format, true};
    if (const FormatInfo* f = format_by_name(name)) return NamedFormat{f->id, false}; // literal: the user named the tag
    for (const auto& a : kVtf)
        if (iequal(name, a.name)) return NamedFormat{a.format, true};
    return std::nullopt;
}

std::optional<uint32_t> parse_format_name(std::string_view name, bool srgb) {
    if (auto f = parse_named_format(name)) return f->for_data(srgb);
    return std::nullopt;
}

NamedFormat named_format(std::string_view name) {
    if (auto f = parse_named_format(name)) return *f;
    sdk::usage("unknown format '" + std::string(name) + "': " + format_name_help());
}

uint32_t format_from_name(std::string_view name, bool srgb) { return named_format(name).for_data(srgb); }

std::vector<std::string> short_format_names() {
    std::vector<std::string> v;
    for (const auto& a : kShort) v.emplace_back(a.name);
    return v;
}

std::string format_name_help() {
    std::string s = "use auto, keep, match (with the original to match: like, --like), ";
    for (const auto& a : kShort) s += std::string(a.name) + ", ";
    return s + "a VTF name such as BGRA8888 or DXT1_ONEBITALPHA, or a format-table name such as BC7_UNORM_SRGB";
}

namespace {

// How far storing `want` as `have` is from storing it as itself: range (HDR,
// signed) first, then alpha, channels, compression, size.
double distance(const FormatInfo& want, const FormatInfo& have) {
    double d = 0;
    if (bool(want.flags & fmtflag::hdr) != bool(have.flags & fmtflag::hdr)) d += 100;
    if (want.is_signed() != have.is_signed()) d += 40;
    if (want.has_alpha() != have.has_alpha()) d += 20;
    d += 5.0 * std::abs(std::popcount(stored_channels(want)) - std::popcount(stored_channels(have)));
    if (want.compressed() != have.compressed()) d += 10;
    const auto bytes = [](const FormatInfo& f) { return double(f.block_bytes) / (f.block_w * f.block_h); };
    // BC2's alpha is 4-bit steps; every other alpha-carrying block format interpolates (BC7 → BC3, not BC2).
    const bool bc2 = with_srgb(have.id, false) == FMT_BC2_UNORM, want_bc2 = with_srgb(want.id, false) == FMT_BC2_UNORM;
    if (bc2 && !want_bc2) d += 0.5;
    return d + std::abs(bytes(want) - bytes(have));
}

} // namespace

std::string format_among(std::string_view name, const std::vector<std::string>& choices, std::string_view owner) {
    for (const auto& c : choices)
        if (iequal(c, name)) return c;
    const uint32_t want = with_srgb(format_from_name(name, false), false);
    for (const auto& c : choices)
        if (auto f = parse_format_name(c, false); f && with_srgb(*f, false) == want) return c;
    const FormatInfo* wi = format_info(want);
    std::string nearest;
    double best = 1e300;
    for (const auto& c : choices) {
        auto f = parse_format_name(c, false);
        const FormatInfo* ci = f ? format_info(*f) : nullptr;
        if (!wi || !ci) continue;
        if (double d = distance(*wi, *ci); d < best) best = d, nearest = c;
    }
    std::string msg = std::string(owner) + " has no format that stores " + std::string(name);
    if (wi) msg += " (" + std::string(wi->name) + ")";
    if (!nearest.empty()) msg += "; the nearest it has is " + nearest;
    std::string all;
    for (const auto& c : choices) all += (all.empty() ? "" : ", ") + c;
    sdk::usage(msg + " (its formats: " + all + ")");
}

} // namespace af::texture
