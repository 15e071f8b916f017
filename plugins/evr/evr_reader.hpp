// The manifest file: archive wrapper (24-byte header + one zstd frame) around
// a body of a 192-byte header and three tables. Checks 1-9 of the reader
// checks, in the order a damaged file meets them.
#pragma once

#include "evr_format.hpp"

#include <functional>
#include <span>
#include <string>

namespace af::evr {

using WarnFn = std::function<void(const std::string&)>;

// `path` names the manifest in every message. Throws sdk::Error
// (AF_ERR_INVALID_DATA) on the first failed check; calls `warn` for legal oddities.
Manifest read_manifest(std::span<const uint8_t> file, const std::string& path, const Limits& limits,
                       const WarnFn& warn);

// The body alone (already decompressed): header and tables, checks 7-9.
Manifest parse_manifest_body(std::span<const uint8_t> body, const std::string& path, const WarnFn& warn);

} // namespace af::evr
