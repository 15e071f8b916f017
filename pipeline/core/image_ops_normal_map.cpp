// Tangent-space normal maps stored 0..1 in RGB.
#include "core/image_ops_internal.hpp"

namespace af {

Texture reconstruct_normal_z(const Texture& in) {
    image_ops::check_image(in, "reconstruct Z");
    image_ops::WorkSpace ws;
    ws.normal = true;
    ws.normal_two_channel = true; // to_working derives Z from X and Y
    return image_ops::from_working(image_ops::to_working(in, ws), ws, 1.0f, is_float(in), is_srgb(in.desc));
}

Texture renormalize_normals(const Texture& in) {
    image_ops::check_image(in, "renormalise");
    image_ops::WorkSpace ws;
    ws.normal = true;
    image_ops::WorkPlane p = image_ops::to_working(in, ws);
    image_ops::renormalize_in_place(p);
    return image_ops::from_working(p, ws, 1.0f, is_float(in), is_srgb(in.desc));
}

} // namespace af
