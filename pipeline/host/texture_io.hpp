// What the CLI and the engine use to read, write and convert textures through
// plugins, with errors that name the file.
#pragma once

#include "assetforge/picture.hpp"
#include "assetforge/texture.hpp"
#include "host/plugin_registry.hpp"

#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace af::host {

using OptionMap = std::map<std::string, std::string>;

struct Diagnostic {
    uint64_t offset;
    std::string message;
};

struct ReadResult {
    Texture texture;
    std::string container; // plugin container name that read it
    std::vector<Diagnostic> warnings;
};

// Reads any file a container plugin claims (PNG is built in). Throws
// af::sdk::Error whose message starts with the path (and offset, if known).
ReadResult read_texture(const PluginRegistry& reg, const std::filesystem::path& path, const OptionMap& opts = {});
ReadResult read_texture_bytes(const PluginRegistry& reg, const std::string& name, std::span<const uint8_t> bytes,
                              const OptionMap& opts = {});

// The container that writes a file: the one named `container`, else the one
// that claims `extension` (a path's extension(), any case; ".png" is the
// built-in writer's). The one decision of write_texture, `convert` and the
// pipeline's `write`; null when nothing does (callers word the error).
Found<af_container> output_container(const PluginRegistry& reg, std::string_view container, std::string extension);

// Writes through output_container (`container` or the path's extension).
// Atomic: temp file + rename.
void write_texture(const PluginRegistry& reg, const std::filesystem::path& path, const Texture& tex,
                   const std::string& container = "", const OptionMap& opts = {});
std::vector<uint8_t> encode_texture(const PluginRegistry& reg, const std::string& container, const Texture& tex,
                                    const OptionMap& opts = {});

// One surface → a picture (RGBA8 or RGBA32F), decoding compressed formats through codecs.
Texture decode_surface(const PluginRegistry& reg, const Texture& tex, uint32_t layer, uint32_t face, uint32_t mip,
                       const OptionMap& opts = {});

// Converts a whole texture to another format (every surface), encoding or
// decoding through codec plugins where needed.
Texture convert_texture(const PluginRegistry& reg, const Texture& tex, uint32_t format, const OptionMap& opts = {});

} // namespace af::host
