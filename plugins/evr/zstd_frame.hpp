// One zstd frame decompressed to exactly the length the manifest declares,
// never more: the frame's own header is a claim to check, not a size to trust.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace af::evr {

// Bytes produced by a frame; uninitialised storage, filled by the decoder.
struct FrameBytes {
    std::unique_ptr<uint8_t[]> data;
    uint64_t size = 0;
    std::span<const uint8_t> bytes() const { return {data.get(), size}; }
};

// `in` must be exactly one complete zstd frame that decompresses to exactly
// `length` bytes. Errors are AF_ERR_INVALID_DATA and start with `what`;
// `claim` names who declared the length ("the manifest"). Nothing is
// allocated before the frame's blocks are shown able to produce `length`.
FrameBytes decompress_frame(std::span<const uint8_t> in, uint64_t length, const std::string& what, const char* claim);

// The most bytes the blocks of the frame at the start of `in` can produce,
// read from the block headers alone; throws when they run past `in`.
uint64_t frame_output_bound(std::span<const uint8_t> in, const std::string& what);

} // namespace af::evr
