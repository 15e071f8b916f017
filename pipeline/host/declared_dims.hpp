// A container's `dims` entry (API 1.4): what a file's header declares,
// asked of the plugin with the file's first bytes only.
#pragma once

#include "assetforge/plugin_abi.h"
#include "assetforge/texture.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace af::host {

class PluginRegistry;

// How much of a file `dims` is given: enough for any header worth the name,
// little enough to cross to a plugin worker inline with the request.
constexpr uint64_t kDimsHeadBytes = 64u << 10;

inline bool has_dims(const af_container& c) { return c.dims != nullptr; }

// Calls c.dims on the first kDimsHeadBytes of `data`. An af_dims the plugin
// leaves with a zero width or height is a failure (AF_ERR_INVALID_DATA).
af_status call_dims(const af_container& c, const af_host* host, const char* path, const uint8_t* data, uint64_t size,
                    const af_options* options, af_dims* out, af_error* error);

struct DeclaredTexture {
    TextureDesc desc;      // what the header declares (counts of 0 read as 1)
    std::string container; // the container that declared it
};

// What the container that claims `path` declares from `head` (the file's
// first bytes), when it has a `dims` entry and the call succeeds; otherwise
// nothing (the read that follows reports what is wrong).
std::optional<DeclaredTexture> declared_texture(const PluginRegistry& reg, const std::string& path,
                                                std::span<const uint8_t> head);

} // namespace af::host
