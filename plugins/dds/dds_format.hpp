// Parsing the DDS file header (assetforge/dds_header.hpp has its layout).
// Values are kept raw; dds_layout.cpp decides what they mean.
#pragma once

#include "assetforge/dds_header.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace af::dds {

// The on-disk layout, the FourCC table and serialize_header() are the SDK's
// (assetforge/dds_header.hpp), shared with plugins that wrap DDS files.
using namespace sdk::dds;

// Reads magic and headers; throws af::sdk::Error (invalid, with the offset)
// when the file is too short for them or the magic is wrong.
RawHeader parse_raw_header(const uint8_t* data, uint64_t size);

// "DXT1", or "0x00000071 (113)" when the code is not printable.
std::string fourcc_text(uint32_t code);

} // namespace af::dds
