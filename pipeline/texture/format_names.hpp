// Every name a user may type for a pixel format, parsed in one place: short
// names (bc1…bc7, dxt1/3/5, ati1/ati2, rgba8, …), VTF/XTF names (BGRA8888,
// DXT1_ONEBITALPHA, …) and format-table names with or without DXGI_FORMAT_.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace af::texture {

// A format as a user named it: short and VTF names follow the data's colour
// space (the _SRGB twin for sRGB data), a format-table name is literal.
struct NamedFormat {
    uint32_t format = 0;
    bool follows_data = false;
    uint32_t for_data(bool srgb) const;
};
std::optional<NamedFormat> parse_named_format(std::string_view name);

// Short and VTF names follow the data's colour space (`srgb` picks the _SRGB
// twin where the format has one); a format-table name is taken literally.
// nullopt for names nobody knows.
std::optional<uint32_t> parse_format_name(std::string_view name, bool srgb);

// As parse_format_name, but an unknown name is a usage error that lists the
// names a user may type.
uint32_t format_from_name(std::string_view name, bool srgb);
NamedFormat named_format(std::string_view name);

// The short names, for documentation and parameter choices.
std::vector<std::string> short_format_names();

// One line for error messages and --help: what may be typed.
std::string format_name_help();

// `name` (any name parse_format_name takes) as one of a container's own
// format names, `choices` (XTF/VTF's DXT1, BGRA8888, …): a choice spelt the
// same in any case, else the first choice that stores the same format (`bc1`
// → DXT1, `rgba8` → RGBA8888). A name no choice stores is a usage error that
// names the nearest choice (`bc7` → DXT5); an unknown name lists what may be
// typed. `owner` names the container in messages.
std::string format_among(std::string_view name, const std::vector<std::string>& choices, std::string_view owner);

} // namespace af::texture
