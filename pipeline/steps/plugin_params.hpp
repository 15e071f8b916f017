// What plugins declare about their parameters, options and metadata (plugin
// API 1.2) as the engine's ParamSpecs: for plugin stages, and for the options
// `read`, `encode` and `write` hand on to containers and codecs.
#pragma once

#include "assetforge/plugin_abi.h"
#include "host/plugin_registry.hpp"
#include "steps/param_spec.hpp"

#include <optional>
#include <string>
#include <vector>

namespace af::steps {

// nullopt when `list` is NULL: the plugin declares nothing.
std::optional<std::vector<ParamSpec>> param_specs(const af_param* const* list, uint32_t count,
                                                  std::string_view owner = "the plugin");
std::optional<std::vector<std::string>> meta_key_list(const char* const* list);

// The read options of every container that reads.
PassThrough container_read_options(const host::PluginRegistry& reg);
// The write options of `container`, or of every container that writes when it is empty.
PassThrough container_write_options(const host::PluginRegistry& reg, const std::string& container);
// The encode options of `codec`, or of every codec when it is null.
PassThrough codec_encode_options(const host::PluginRegistry& reg, const af_codec* codec);

// Metadata keys the reading containers declare; nullopt when one declares nothing.
std::optional<std::vector<std::string>> container_meta_keys(const host::PluginRegistry& reg);

} // namespace af::steps
