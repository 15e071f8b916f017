// One decoded surface as the writers filter, quantise and encode it: RGBA8
// when the format's channels fit in 8 bits, RGBA32F otherwise, the pixel
// layouts the host's convert and resample services take (pixels.hpp). Depth
// slices are stacked vertically: width × (height · depth).
#pragma once

#include "assetforge/pixels.hpp"

#include <cstdint>
#include <variant>

namespace af::xtf {

using Picture = std::variant<sdk::Rgba8, sdk::Rgba32f>;

inline bool is_float(const Picture& p) { return std::holds_alternative<sdk::Rgba32f>(p); }
inline uint32_t width_of(const Picture& p) {
    return std::visit([](const auto& px) { return px.width; }, p);
}
inline uint32_t height_of(const Picture& p) {
    return std::visit([](const auto& px) { return px.height; }, p);
}
inline bool srgb_of(const Picture& p) {
    return std::visit([](const auto& px) { return px.srgb; }, p);
}

// The byte ⇄ float rules of the host's image operations (x / 255, and
// round-half-up of the clamped value), so a level made here rounds as the
// host's own mip step would round it.
sdk::Rgba32f to_rgba32f(const Picture& p);
sdk::Rgba8 to_rgba8(const Picture& p);
// Float → byte as the host stores a filtered level (v · 255 + 0.5, truncated).
sdk::Rgba8 filtered_to_rgba8(const sdk::Rgba32f& p);

// Whether any texel has alpha below one (what makes the host weight colour by alpha).
bool has_translucency(const Picture& p);

} // namespace af::xtf
