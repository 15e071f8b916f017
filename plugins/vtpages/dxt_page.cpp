#include "dxt_page.hpp"

#include "assetforge/formats.hpp"
#include "pages_format.hpp"

namespace af::vtpages {

std::vector<DxtSurface> dxt_surfaces(uint64_t payload_size) {
    if (payload_size != kDxtPageSmall && payload_size != kDxtPageLarge) return {};
    std::vector<DxtSurface> s = {
        {"surface0-dxt1", FMT_BC1_UNORM, 0, 8192},
        {"surface1-ycocg-dxt5", FMT_BC3_UNORM, 8192, 16384},
        {"surface2-dxt5", FMT_BC3_UNORM, 24576, 16384},
    };
    if (payload_size == kDxtPageLarge) s.push_back({"surface3-dxt1", FMT_BC1_UNORM, 40960, 8192});
    return s;
}

} // namespace af::vtpages
