// Moves image blocks between a file buffer and a Texture: swizzling
// uncompressed formats on the way into a file and deswizzling on the way out,
// plain copies for block-compressed ones. Large images are split into row
// bands so one big mip still uses every thread of the host's arena.
#pragma once

#include "assetforge/plugin_abi.h"

#include <cstdint>
#include <string>
#include <vector>

namespace af::xtf {

struct BlockCopy {
    const uint8_t* src;
    uint8_t* dst;
    uint32_t width, height, depth;
    uint64_t size;
    std::string what; // "frame 0 face 1 mip 2 at offset 1536", for errors
};

// `texel_bytes` 0 means block-compressed (copied as is).
void copy_blocks(const af_host* host, const std::vector<BlockCopy>& blocks, uint32_t texel_bytes, bool to_file);

} // namespace af::xtf
