// Straight ⇄ premultiplied alpha for whole images.
#include "core/image_ops_internal.hpp"

namespace af {

namespace {

template <class F> Texture map_linear_colour(const Texture& in, F&& fn) {
    image_ops::WorkSpace ws;
    ws.linearise = is_srgb(in.desc); // multiply light, not encoded values
    image_ops::WorkPlane p = image_ops::to_working(in, ws);
    image_ops::for_each_row(p.height, p.width, [&](uint32_t y) {
        float* d = p.row(y);
        for (uint32_t x = 0; x < p.width; ++x) fn(d + size_t(x) * p.channels);
    });
    return image_ops::from_working(p, ws, 1.0f, is_float(in), is_srgb(in.desc));
}

} // namespace

Texture premultiply_alpha(const Texture& in) {
    image_ops::check_image(in, "premultiply");
    return map_linear_colour(in, [](float* c) {
        for (int k = 0; k < 3; ++k) c[k] *= c[3];
    });
}

Texture unpremultiply_alpha(const Texture& in) {
    image_ops::check_image(in, "unpremultiply");
    return map_linear_colour(in, [](float* c) {
        const float inv = c[3] > 0.0f ? 1.0f / c[3] : 0.0f;
        for (int k = 0; k < 3; ++k) c[k] *= inv;
    });
}

} // namespace af
