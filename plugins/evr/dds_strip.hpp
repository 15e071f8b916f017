// A DDS file given as the replacement of a raw BC texture: its header is
// checked (2D, no cube or volume, a BC format, data exactly the mip chain)
// and, when the set describes the texture, compared with that description;
// what the game stores is the data after the header.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace af::evr {

// Returns the raw BC bytes inside `dds`. `meta` is the 256-byte texture
// metadata with the same file symbol, or empty when the set has none.
// Throws sdk::Error (AF_ERR_INVALID_DATA) starting with `where`, saying what
// the game expects when the texture does not match its metadata.
std::span<const uint8_t> raw_bc_from_dds(std::span<const uint8_t> dds, std::span<const uint8_t> meta,
                                         const std::string& where);

} // namespace af::evr
