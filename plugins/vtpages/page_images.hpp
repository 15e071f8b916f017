// Images made from what the container itself knows (never from the HDP
// blocks): the occupancy map of a level and a page's 1-bit cover mask. PNGs
// are encoded by the host's PNG writer (af_host.write_texture).
#pragma once

#include "pages_reader.hpp"

#include "assetforge/picture.hpp"
#include "assetforge/plugin_abi.h"

#include <cstdint>
#include <span>
#include <vector>

namespace af::vtpages {

struct OccupancyMap {
    Texture image;     // RGBA8: one cell per page, black = absent; a colour bar at the bottom
    uint32_t grid = 0; // pages per side at this level
    uint32_t cell = 1; // pixels per page
    uint64_t present = 0;
    uint64_t min_used = 0, max_used = 0; // colour bar: left = min, right = max bytes
};
OccupancyMap occupancy_map(const PagesFile& f, int level);
// Blue (small) → cyan → green → yellow → red (large); t in [0, 1].
void size_colour(double t, uint8_t rgb[3]);

// The cover mask is 128×128 bits, 16 bytes per row. Which bit of a byte is
// the leftmost texel is not established; LSB-first is the default (G).
enum class BitOrder { LsbFirst, MsbFirst };
bool cover_bit(std::span<const uint8_t> mask, uint32_t x, uint32_t y, BitOrder order);
// A 1-bit greyscale PNG, white = bit set.
std::vector<uint8_t> cover_png(const af_host* host, std::span<const uint8_t> mask, BitOrder order);
// An RGBA8 PNG (untagged, as the pages hold no colour-space information).
std::vector<uint8_t> png_of(const af_host* host, const Texture& image);

} // namespace af::vtpages
