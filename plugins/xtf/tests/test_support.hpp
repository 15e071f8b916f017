// Shared by the XTF tests: a small in-process af_host (with the BC codec
// plugin when it has been built), SHA-256 and file helpers.
#pragma once

#include "assetforge/plugin_abi.h"
#include "assetforge/texture.hpp"
#include "core/image.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace xtftest {

std::filesystem::path data_dir();
std::vector<uint8_t> read_bytes(const std::filesystem::path& p);
nlohmann::json manifest(const std::string& fixture);
std::vector<std::string> fixture_names();
std::string sha256(const uint8_t* p, size_t n);
inline std::string sha256(const std::vector<uint8_t>& v) { return sha256(v.data(), v.size()); }

// Host services: malloc, serial or threaded parallel_for, convert through the
// core and, for BC formats, through af_bc when it can be loaded.
const af_host* host(bool threaded = false);
bool bc_codec_available();

// Decodes one surface to RGBA8 (through host()->convert for compressed ones).
af::Image surface_rgba8(const af::Texture& t, uint32_t layer, uint32_t face, uint32_t mip);

} // namespace xtftest
