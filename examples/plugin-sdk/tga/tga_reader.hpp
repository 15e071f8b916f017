// Reading TGA into RGBA8: every kind the header check lets through, either origin, raw or RLE.
#pragma once

#include "tga_format.hpp"

#include <assetforge/plugin_abi.h>

#include <cstdint>
#include <vector>

namespace tga {

// Rows top to bottom, 4 bytes a texel. Throws af::sdk::Error with the offset of what is wrong.
std::vector<uint8_t> decode_rgba8(const Header& h, const uint8_t* data, uint64_t size);

int32_t probe(const uint8_t* head, uint64_t size, const char* path);
af_status read(const af_host* host, const af_input* in, const af_options* options, af_texture* out, af_error* err);
// What read will return, from the header alone: the host's memory estimate, and the bound on read's allocations.
af_status dims(const af_host* host, const af_input* in, const af_options* options, af_dims* out, af_error* err);
af_status info(const af_host* host, const af_input* in, const af_options* options, af_info_text* out, af_error* err);

} // namespace tga
