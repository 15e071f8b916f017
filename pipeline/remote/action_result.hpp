// CacheEntry <-> the REAPI ActionResult protobuf that Bazel HTTP caches store under ac/.
#pragma once

#include "remote/cache_entry.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace af::remote {

// Output files in the given order, exit code 0, the warnings as stderr_raw (one a line), and a worker name so
// the body is never empty.
std::string encode_action_result(const CacheEntry& entry);

// Only the wire format and what AssetForge can restore are checked here (see entry_checks.hpp for the rest):
// nullopt, with *why set, for bytes that are not an ActionResult, a failed action, or one with directory or
// symlink outputs.
std::optional<CacheEntry> decode_action_result(std::string_view bytes, std::string* why);

} // namespace af::remote
