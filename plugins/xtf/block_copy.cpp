#include "block_copy.hpp"

#include "xbox_swizzle.hpp"

#include "assetforge/plugin.hpp"

#include <cstring>

namespace af::xtf {

namespace {
constexpr uint64_t kBandBytes = 64 * 1024;

struct Band {
    const BlockCopy* block;
    uint64_t first_row, rows;
};
} // namespace

void copy_blocks(const af_host* host, const std::vector<BlockCopy>& blocks, uint32_t texel_bytes, bool to_file) {
    std::vector<Band> bands;
    for (const BlockCopy& b : blocks) {
        const uint64_t rows = uint64_t(b.height) * b.depth;
        if (texel_bytes && !swizzle_representable(b.width, b.height, b.depth))
            sdk::unsupported(sdk::format("%s: uncompressed %ux%ux%u image has no defined Xbox swizzle (extents must "
                                         "be powers of two)",
                                         b.what.c_str(), b.width, b.height, b.depth));
        const uint64_t row_bytes = texel_bytes ? uint64_t(b.width) * texel_bytes : b.size;
        const uint64_t per_band =
            texel_bytes ? std::max<uint64_t>(1, kBandBytes / std::max<uint64_t>(1, row_bytes)) : rows;
        for (uint64_t r = 0; r < rows; r += per_band) bands.push_back({&b, r, std::min(per_band, rows - r)});
    }
    sdk::parallel_for(host, bands.size(), 1, [&](uint64_t lo, uint64_t hi) {
        for (uint64_t i = lo; i < hi; ++i) {
            const Band& band = bands[i];
            const BlockCopy& b = *band.block;
            if (!texel_bytes)
                std::memcpy(b.dst, b.src, b.size);
            else if (to_file)
                swizzle_rows(b.src, b.dst, b.width, b.height, b.depth, texel_bytes, band.first_row, band.rows);
            else
                deswizzle_rows(b.src, b.dst, b.width, b.height, b.depth, texel_bytes, band.first_row, band.rows);
        }
    });
}

} // namespace af::xtf
