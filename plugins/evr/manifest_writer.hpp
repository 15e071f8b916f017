// Writing the manifest: the body (192-byte header + three tables) and the
// 24-byte archive wrapper around its zstd frame; and compressing one frame.
#pragma once

#include "evr_format.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace af::evr {

// Every section's length, count and element count come from its table; the
// unknown fields (A, B, each section's C and D, the paddings, trailing bytes)
// are written as the model holds them, so a repack keeps what it read.
std::vector<uint8_t> manifest_body(const Manifest& m);

// `ZSTD`, header length 16, body size, compressed size, then the body as one
// zstd frame with its content size.
std::vector<uint8_t> manifest_archive(std::span<const uint8_t> body);

// One independent zstd frame carrying its content size (as the community
// repacker writes it), no checksum, no dictionary.
std::vector<uint8_t> compress_frame(std::span<const uint8_t> data, int level);

// Unknown fields of a set written from scratch, as the last PC builds have them.
Manifest new_manifest();

inline constexpr int kFrameLevel = 3;

} // namespace af::evr
