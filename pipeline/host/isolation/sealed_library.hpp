// The host's side of loading a third-party plugin without ever mapping its code: a sealed copy of the library's
// bytes (what is hashed and what every worker loads), and the worker that describes the plugin's tables.
#pragma once

#include "core/content_hash.hpp"

#include <filesystem>
#include <string>

namespace af::host {
struct LoadedPlugin;
}

namespace af::host::isolation {

// Copies `file` into a memory file sealed against every change, and hashes the copy. The descriptor (close-on-exec)
// in `fd`; false with `why` set on failure.
bool seal_library(const std::filesystem::path& file, int& fd, Hash128& hash, std::string& why);

// Starts a worker on the sealed copy, which loads the plugin inside its sandbox and describes it; fills out's name,
// version, API, tables (entry points not yet routed) and confinement. false with `why` set: the worker's reason
// for refusing the plugin, or what was wrong with its description.
bool describe_sealed(const std::filesystem::path& file, int image_fd, LoadedPlugin& out, std::string& why);

} // namespace af::host::isolation
