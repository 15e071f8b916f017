// How pages, headers and censuses are shown: one JSON shape and one text shape
// each, shared by the commands and the stages.
#pragma once

#include "pages_census.hpp"
#include "pages_reader.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace af::vtpages {

nlohmann::json header_json(const PagesFile& f);
nlohmann::json page_json(const PagesFile& f, const PageInfo& p, bool with_planes);
nlohmann::json census_json(const Census& c);
nlohmann::json compression_json(int32_t c); // {"number": 5, "name": "HDP"}

// One walk line: offset level x y compression reserved-field reservation used flags sizes
std::string walk_line(const PageInfo& p);
inline constexpr const char* kWalkColumns =
    "offset level x y compression reserved_field reservation used flags diffuse/normal/specular/power/alpha";

// Plane header of one block as JSON, or {"error": …} when it does not parse.
nlohmann::json plane_json(std::span<const uint8_t> block);

} // namespace af::vtpages
