// Writing TGA: 32-bit BGRA, bottom-left origin (what every reader takes), raw or RLE, with the TGA 2.0 footer.
#pragma once

#include <assetforge/plugin.hpp>

#include <cstdint>
#include <vector>

namespace tga {

// `rgba`: rows top to bottom, 4 bytes a texel.
std::vector<uint8_t> encode_bgra32(const uint8_t* rgba, uint32_t width, uint32_t height, bool rle);

// The declared write options; write() takes its defaults from here.
const af::sdk::ParamTable& write_options();

af_status write(const af_host* host, const af_texture* tex, const af_options* options, af_sink* out, af_error* err);

} // namespace tga
