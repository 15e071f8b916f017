#include "page_pixels.hpp"

#include "dxt_page.hpp"

#include "assetforge/formats.hpp"
#include "assetforge/plugin.hpp"

namespace af::vtpages {

std::vector<SurfaceImage> page_pixels(const af_host* host, const PagesFile& f, const PageInfo& p) {
    const int32_t c = p.node.compression;
    if (c != kCompDxt)
        sdk::unsupported(sdk::format("%s pixel decoding (compression %d): the engine's codec is a modified HD Photo "
                                     "no stock decoder reads; extract the blocks raw instead",
                                     std::string(compression_name(c)).c_str(), int(c)));
    if (!host || !host->convert)
        sdk::unsupported("DXT pixel decoding needs the host's convert service (bc codec plugin)");
    std::vector<SurfaceImage> out;
    for (const auto& s : dxt_surfaces(p.payload)) {
        auto bytes = f.bytes(p.payload_offset() + s.offset, s.size);
        af_surface src{s.format, kPageTexels, kPageTexels, 1, const_cast<uint8_t*>(bytes.data()), bytes.size()};
        try {
            out.push_back({std::string(s.role), sdk::get_rgba8(host, src)});
        } catch (const sdk::Error& e) {
            sdk::fail(e.status(), AF_NO_OFFSET, std::string("decoding ") + std::string(s.role) + ": " + e.what());
        }
    }
    return out;
}

} // namespace af::vtpages
