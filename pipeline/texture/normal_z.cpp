#include "texture/texture_ops.hpp"

#include "assetforge/format_channels.hpp"

namespace af::texture {
namespace {

bool xy_only(const Texture& t) {
    const FormatInfo* f = format_info(t.desc.format);
    return f && stores_xy_only(*f);
}

} // namespace

NormalZ normal_z(const Texture& reference, const Texture& result) {
    NormalZ n;
    // A result that keeps X and Y only is taken for a normal map even unmarked:
    // a blue of 0 everywhere would otherwise be counted as the encode's error.
    n.normal_map = ((reference.desc.flags | result.desc.flags) & AF_TEX_NORMAL_MAP) || xy_only(result);
    n.rebuild_reference = n.normal_map && xy_only(reference);
    n.rebuild_result = n.normal_map && xy_only(result);
    return n;
}

Texture with_normal_z(const Texture& xy) { return reconstruct_normal_z(xy); }

} // namespace af::texture
