// The VTF image-format enum (shared by VTF and XTF) mapped onto the
// AssetForge format table, and the VTF/XTF flag bits the plugin acts on.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace af::xtf {

// VTF numbering, stored as i32 in both headers.
enum VtfFormat : int32_t {
    VTF_NONE = -1,
    VTF_RGBA8888 = 0,
    VTF_ABGR8888 = 1,
    VTF_RGB888 = 2,
    VTF_BGR888 = 3,
    VTF_RGB565 = 4,
    VTF_I8 = 5,
    VTF_IA88 = 6,
    VTF_P8 = 7,
    VTF_A8 = 8,
    VTF_RGB888_BLUESCREEN = 9,
    VTF_BGR888_BLUESCREEN = 10,
    VTF_ARGB8888 = 11,
    VTF_BGRA8888 = 12,
    VTF_DXT1 = 13,
    VTF_DXT3 = 14,
    VTF_DXT5 = 15,
    VTF_BGRX8888 = 16,
    VTF_BGR565 = 17,
    VTF_BGRX5551 = 18,
    VTF_BGRA4444 = 19,
    VTF_DXT1_ONEBITALPHA = 20,
    VTF_BGRA5551 = 21,
    VTF_UV88 = 22,
    VTF_UVWQ8888 = 23,
    VTF_RGBA16161616F = 24,
    VTF_RGBA16161616 = 25,
    VTF_UVLX8888 = 26,
};
inline constexpr int32_t kVtfFormatCount = 27;

// Flag bits (section 9 of the XTF spec).
namespace vtfflag {
constexpr uint32_t nomip = 0x100;
constexpr uint32_t onebitalpha = 0x1000;
constexpr uint32_t eightbitalpha = 0x2000;
constexpr uint32_t envmap = 0x4000;
constexpr uint32_t preswizzled = 0x4000000;
constexpr uint32_t cacheable = 0x8000000;
constexpr uint32_t unfilterable_ok = 0x10000000;
// Bits that mean different things on Xbox and on PC 7.3+: cleared on conversion.
constexpr uint32_t xbox_only = preswizzled | cacheable | unfilterable_ok;
// Flags PC VTF 7.2 defines (bits 0..25); anything above is 7.3+ or Xbox.
constexpr uint32_t vtf72_mask = 0x03FFFFFF;
} // namespace vtfflag

// nullopt for ids outside 0..26.
std::optional<uint32_t> af_format_of(int32_t vtf_format);
// The VTF id that stores the same bytes; nullopt when VTF has no such layout.
// DXT1 maps to 13 (never 20: alpha is signalled by the ONEBITALPHA flag).
std::optional<int32_t> vtf_format_of(uint32_t af_format);
std::string_view vtf_format_name(int32_t vtf_format); // "?" for unknown ids
// Case-insensitive "BGRA8888", "dxt1", …; nullopt for unknown names.
std::optional<int32_t> vtf_format_by_name(std::string_view name);

// Names of the set bits, "|"-separated ("EIGHTBITALPHA|CACHEABLE").
std::string flag_names(uint32_t flags, bool xbox);

} // namespace af::xtf
