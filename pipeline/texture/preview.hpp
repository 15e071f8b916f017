// Pictures for people to look at (the build's HTML report): a small
// thumbnail and a quickly written PNG of a decoded surface. Not outputs of a
// job: speed first, no colour-managed filtering.
#pragma once

#include "assetforge/picture.hpp"

#include <cstdint>
#include <vector>

namespace af::texture {

// At most `side` texels on its longer side, 8-bit (float pictures clamped to
// 0..1): the mean of each k×k block (k the largest that keeps `side`), then
// the nearest texel for what is left. At ~100 px nobody tells it from a better filter.
Texture thumbnail(const Texture& in, uint32_t side);

// An 8-bit PNG (float pictures clamped to 0..1), stored rather than deflated:
// a 256² photo-like texture takes 3.3 ms at level 1 for 58% of its raw size,
// 0.6 ms stored. Such pictures are throwaway, the build's time is not
// (bench/report_overhead.py).
std::vector<uint8_t> preview_png(const Texture& img);

} // namespace af::texture
