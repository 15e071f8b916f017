// How pages, headers and censuses are shown: one JSON shape and one text shape
// each, shared by the commands and the stages.
#pragma once

#include "pages_census.hpp"
#include "pages_reader.hpp"

#include <string>

namespace af::vtpages {

// The JSON shapes are templates over the document type, instantiated for
// nlohmann::json in page_report.cpp: only the files that print JSON include
// the library.
template <class Json> Json header_json(const PagesFile& f);
template <class Json> Json page_json(const PagesFile& f, const PageInfo& p, bool with_planes);
template <class Json> Json census_json(const Census& c);
template <class Json> Json compression_json(int32_t c); // {"number": 5, "name": "HDP"}

// One walk line: offset level x y compression reserved-field reservation used flags sizes
std::string walk_line(const PageInfo& p);
inline constexpr const char* kWalkColumns =
    "offset level x y compression reserved_field reservation used flags diffuse/normal/specular/power/alpha";

// Plane header of one block as JSON, or {"error": …} when it does not parse.
template <class Json> Json plane_json(std::span<const uint8_t> block);

} // namespace af::vtpages
