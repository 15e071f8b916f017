// DXT pages (compression 2): fixed-size payloads of BC surfaces, 128×128 each.
// The split below follows the engine constants (40960 = DXT1 8192 + 2 × DXT5
// 16384; the 49152 variant adds one more DXT1); which channels each surface
// carries is NOT verified, so surfaces are exposed as plain BC1/BC3 images.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace af::vtpages {

struct DxtSurface {
    std::string_view role; // "surface0-dxt1", …
    uint32_t format;       // FMT_BC1_UNORM or FMT_BC3_UNORM
    uint64_t offset;       // within the payload
    uint64_t size;
};

std::vector<DxtSurface> dxt_surfaces(uint64_t payload_size); // empty for unknown sizes

} // namespace af::vtpages
