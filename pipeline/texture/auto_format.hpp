// The one `auto` policy: which format a texture gets when the user does not
// name one. Every route (the encode step, `convert`) asks here, so the same
// input gets the same format everywhere. The table is in docs/auto-format.md.
#pragma once

#include "texture/content.hpp"
#include "texture/normal_map_rule.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace af::texture {

enum class Quality : uint8_t { Fast, Normal, High, Max };
Quality parse_quality(std::string_view s); // fast|normal|high|max, else a usage error
std::string_view quality_name(Quality q);

struct AutoHints {
    Quality quality = Quality::Normal;
    bool srgb = false;       // the data is sRGB encoded: colour formats get their _SRGB twin
    bool normal_map = false; // the job or the texture says so (AF_TEX_NORMAL_MAP)
    std::string_view name{}; // the input's file name, for the name tokens (normal_map_rule.hpp)
    // The caller already asked recognise_normal_map (encode does): decisive,
    // both ways, and its rule goes into the reason.
    std::optional<NormalMapVerdict> normal{};
    bool grey_in_red = false;  // the shader reads grey data from red alone, so BC4 may store it
    bool float_source = false; // the texture's format holds float (HDR) data, whatever its values
};

struct AutoChoice {
    uint32_t format;
    std::string why; // the rule that fired, for reports and convert's summary
};

AutoChoice choose_format(const Content& c, const AutoHints& h);

} // namespace af::texture
