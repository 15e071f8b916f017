// Files into frames, as every writer here places them: in the order given,
// each at a multiple of its alignment with zero bytes between, a new frame
// when the next file would pass the size cap or a new group begins.
#pragma once

#include "evr_writer.hpp"

#include "assetforge/plugin_abi.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace af::evr {

struct PackItem {
    int64_t group = -1; // a change of group starts a new frame
    uint32_t alignment = 1;
    std::span<const uint8_t> bytes;
    std::string where; // the file, for messages
};

struct Placement {
    uint32_t frame = kNoFrame; // index among the packed frames, or kNoFrame (empty file, no frame at all)
    uint32_t offset = 0;
};

struct PackedFrames {
    std::vector<std::vector<uint8_t>> frames; // decompressed
    std::vector<Placement> at;                // one per item
};

// A frame holds at most `frame_limit` bytes unless it holds a single file,
// and never more than frame_capacity(limits): an item too large for any
// frame is refused, by name, before anything is packed. Empty files never
// start a frame: they sit where the next file would go, or at the end of the
// last frame.
PackedFrames pack_frames(const std::vector<PackItem>& items, uint64_t frame_limit, const Limits& limits);

// The end of a frame of `size` bytes after the next file of `bytes` bytes is
// placed as place() places it (0 when that cannot be counted in 64 bits).
uint64_t placed_end(uint64_t size, uint32_t alignment, uint64_t bytes);

// Appends `bytes` to `frame` at the next multiple of max(1, alignment); returns its offset.
uint64_t place(std::vector<uint8_t>& frame, uint32_t alignment, std::span<const uint8_t> bytes);

// Each frame compressed as one independent zstd frame, in parallel on the host (null: serially).
std::vector<OutFrame> compress_all(std::vector<std::vector<uint8_t>> frames, const af_host* host);

} // namespace af::evr
