// Raw BC textures (type 7f5bc1cf8ce51ffd) rebuilt as DDS files from the
// 256-byte texture metadata with the same file symbol.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace af::evr {

inline constexpr uint64_t kTextureMetaSize = 256;

struct TextureMeta {
    uint32_t width = 0, height = 0, mips = 0, dxgi = 0, layers = 1;
};

// The DDS header for a raw BC texture, or the reason none can be made (then
// the raw bytes are written as .bc). `meta` is the metadata file's bytes.
struct DdsPlan {
    std::vector<uint8_t> header; // empty when not usable
    std::string why_not;
};
DdsPlan plan_dds(std::span<const uint8_t> meta, uint64_t raw_size);

// Bytes of the whole mip chain (all layers); 0 when the description is unusable.
uint64_t bc_chain_bytes(const TextureMeta& t);

} // namespace af::evr
