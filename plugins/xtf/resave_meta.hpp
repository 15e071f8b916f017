// What re-saving an XTF needs from the file a texture was read from. The host
// hands a writer the texture's pixels and its metadata strings, nothing else,
// so the reader records here the header values and preload data (low-res
// image, palettes, fallback) that the pixels alone cannot reproduce, and the
// writer falls back on them for every option the user did not give.
#pragma once

#include "xtf_reader.hpp"

#include "assetforge/texture.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace af::xtf {

struct XtfSource {
    int32_t format = 0; // VTF id as stored
    uint32_t flags = 0; // as stored, every bit
    uint32_t mips = 1;  // 1 or the full chain
    uint8_t mip_skip = 0;
    float bumpmap_scale = 1.0f;
    std::array<float, 3> reflectivity{};
    uint32_t lowres_width = 0, lowres_height = 0;
    std::vector<uint8_t> lowres; // R, G, B as stored
    uint32_t fallback_width = 0, fallback_height = 0, fallback_mips = 0;
    std::vector<uint8_t> fallback; // linear, in the stored format (P8: indices), Texture layout
    std::vector<uint8_t> palettes; // P8: frames × 256 × (B, G, R, A) as stored
    // mip0_digest of the texture the reader handed out. The low-res image,
    // reflectivity and fallback are functions of mip 0: they are reused only
    // while it is unchanged.
    std::string pixels;
};

// The metadata keys, null-terminated (the container declares them).
extern const char* const kResaveMetaKeys[];

// A PC VTF records only its format (key vtf_format): an XTF written from it
// with no format named keeps that Valve format instead of picking by content.
extern const char* const kVtfMetaKeys[];
std::map<std::string, std::string> vtf_source_meta(int32_t vtf_format);
// nullopt without the key; throws af::sdk::Error (usage) when it names no format.
std::optional<int32_t> vtf_source_format(const std::map<std::string, std::string>& meta);

// Digest of mip 0 of every frame and face, with the format and extents (and
// P8 palettes): what the stored derived data was computed from.
std::string mip0_digest(const Texture& t);

// Metadata describing `file`, for the texture `out` made from it.
std::map<std::string, std::string> resave_meta(const XtfFile& file, const Texture& out);

// nullopt when the texture was not read from an XTF (no xtf_format key).
// Throws af::sdk::Error (usage) naming the key when a value is malformed.
std::optional<XtfSource> parse_resave_meta(const std::map<std::string, std::string>& meta);

} // namespace af::xtf
