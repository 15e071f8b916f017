#include "texture/content.hpp"

#include "texture/texture_ops.hpp"

#include <cmath>
#include <span>

namespace af::texture {
namespace {

// The texel rule for tangent-space normal maps, tuned on real ones rather
// than on freshly made maps: after DXT compression only 55–95 % of texels lie
// within 0.1 of unit length (interpolated block colours are shorter), so the
// rule asks for half of them near one and nearly all roughly one. What keeps
// pale blue-grey photos and skies out is the direction: nearly every vector
// points out of the surface and, over a whole map, X and Y average near zero
// while Z dominates.
bool reads_as_normal_map(const VectorStats& v) {
    const bool centred = std::fabs(v.mean_x) < 0.15f && std::fabs(v.mean_y) < 0.15f;
    if (v.two_channel) return centred && v.near_unit >= 0.95f;
    return centred && v.mean_z > 0.5f && v.out_of_surface >= 0.95f && v.near_unit >= 0.5f && v.roughly_unit >= 0.9f;
}

} // namespace

Content analyse(const Texture& img) {
    count_analysis();
    Content c;
    const uint64_t n = texels(img);
    const bool wide = is_float(img);
    const std::span<const float> f = floats(img);
    uint64_t out = 0, near = 0, rough = 0;
    double sx = 0, sy = 0, sz = 0;
    AlphaSeen alpha;
    // Blue left empty by a two-channel decode: 0 from an unsigned format, and
    // from a signed one the 0 of -1..1, which the export maps to 0.5.
    bool blue_zero = true, blue_half = true;
    for (uint64_t i = 0; i < n; ++i) {
        float r, g, b;
        bool grey;
        if (wide) {
            const float* p = &f[i * 4];
            r = p[0], g = p[1], b = p[2];
            grey = std::fabs(r - g) <= 1e-6f && std::fabs(g - b) <= 1e-6f;
            c.above_one |= r > 1.0f || g > 1.0f || b > 1.0f;
            c.negative |= r < 0.0f || g < 0.0f || b < 0.0f;
            alpha.add(p[3]);
            blue_half &= std::fabs(b - 0.5f) <= 0.5f / 255.0f;
        } else {
            const uint8_t* p = &img.data[i * 4];
            grey = p[0] == p[1] && p[1] == p[2];
            r = p[0] / 255.f, g = p[1] / 255.f, b = p[2] / 255.f;
            alpha.add(p[3]);
            blue_half &= p[2] == 127 || p[2] == 128;
        }
        c.grey &= grey;
        blue_zero &= b == 0.0f;
        const float x = r * 2 - 1, y = g * 2 - 1, z = b * 2 - 1;
        const float len = std::sqrt(x * x + y * y + z * z);
        out += z > 0.0f;
        near += std::fabs(len - 1.0f) <= 0.1f;
        rough += std::fabs(len - 1.0f) <= 0.3f;
        sx += x, sy += y, sz += z;
    }
    c.alpha = alpha.kind();
    if (!n) return c;
    VectorStats& v = c.vectors;
    v.two_channel = blue_zero || blue_half;
    if (v.two_channel) { // the XY of a unit vector lies inside the unit circle
        near = 0;
        for (uint64_t i = 0; i < n; ++i) {
            const float x = wide ? f[i * 4] * 2 - 1 : img.data[i * 4] / 127.5f - 1;
            const float y = wide ? f[i * 4 + 1] * 2 - 1 : img.data[i * 4 + 1] / 127.5f - 1;
            near += x * x + y * y <= 1.1f;
        }
    }
    v.out_of_surface = float(double(out) / double(n));
    v.near_unit = float(double(near) / double(n));
    v.roughly_unit = float(double(rough) / double(n));
    v.mean_x = float(sx / double(n)), v.mean_y = float(sy / double(n)), v.mean_z = float(sz / double(n));
    c.unit_vectors = !c.grey && !c.above_one && !c.negative && reads_as_normal_map(v);
    return c;
}

} // namespace af::texture
