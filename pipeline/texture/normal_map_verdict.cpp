#include "texture/texture_ops.hpp"

namespace af::texture {

NormalMapVerdict normal_map_of(Ops& ops, const Texture& t, std::string_view name, NormalMapMode mode,
                               std::string_view why, const Content* known) {
    if (known) return recognise_normal_map(t, *known, name, mode, why);
    return recognise_normal_map(t, analyse(measured_image(ops, t, 0, 0, 0)), name, mode, why);
}

} // namespace af::texture
