// `convert -O KEY=VALUE` (ImageMagick's `-define` habit): options for the
// containers a conversion goes through. A key the output's writer declares
// goes to the writer; otherwise one the input's reader declares goes to the
// reader; anything else is a usage error listing what both take. Values are
// checked against the declaration as a pipeline's are when it loads.
#pragma once

#include "host/plugin_registry.hpp"
#include "host/texture_io.hpp"

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace af::cli {

using Define = std::pair<std::string, std::string>;

struct ContainerDefines {
    host::OptionMap read, write;
};

// "KEY=VALUE" → {KEY, VALUE}; throws sdk::Error (AF_ERR_USAGE) for anything else.
Define parse_define(const std::string& text);

// Routes and checks the defines. `in_container`/`out_container` are the
// containers that read IN and write OUT ("" when there is none).
ContainerDefines route_defines(const host::PluginRegistry& reg, const std::string& in_container,
                               const std::string& out_container, const std::vector<Define>& defines);

// The container that reads `path`, by its first bytes and name; "" when none claims it.
std::string reading_container(const host::PluginRegistry& reg, const std::filesystem::path& path);

} // namespace af::cli
