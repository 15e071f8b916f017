#include "texture/content.hpp"

#include <cmath>

namespace af::texture {
namespace {

// A tangent-space normal encoded 0..1: length within 10 % of one and z ≥ 0.
// The mean blue check keeps pale blue-grey photos out: real maps average
// z ≈ 0.9 (blue ≈ 0.95).
bool unit_vector(float r, float g, float b) {
    float x = r * 2 - 1, y = g * 2 - 1, z = b * 2 - 1;
    float len2 = x * x + y * y + z * z;
    return len2 > 0.81f && len2 < 1.21f && z > -0.01f;
}

} // namespace

Content analyse(const Image& img) {
    Content c;
    const uint64_t n = img.texels();
    uint64_t unit = 0;
    double blue = 0;
    bool has_zero = false, has_partial = false;
    for (uint64_t i = 0; i < n; ++i) {
        float r, g, b, a;
        bool grey;
        if (img.is_float()) {
            const float* p = &img.rgba32f[i * 4];
            r = p[0], g = p[1], b = p[2], a = p[3];
            grey = std::fabs(r - g) <= 1e-6f && std::fabs(g - b) <= 1e-6f;
            c.above_one |= r > 1.0f || g > 1.0f || b > 1.0f;
            c.negative |= r < 0.0f || g < 0.0f || b < 0.0f;
            has_zero |= a <= 0.0f;
            has_partial |= a > 0.0f && a < 1.0f;
        } else {
            const uint8_t* p = &img.rgba8[i * 4];
            grey = p[0] == p[1] && p[1] == p[2];
            r = p[0] / 255.f, g = p[1] / 255.f, b = p[2] / 255.f;
            has_zero |= p[3] == 0;
            has_partial |= p[3] != 0 && p[3] != 255;
        }
        c.grey &= grey;
        if (unit_vector(r, g, b)) ++unit;
        blue += b;
        (void)a;
    }
    c.alpha = has_partial ? AlphaKind::Smooth : has_zero ? AlphaKind::Cutout : AlphaKind::Opaque;
    c.unit_vectors = n && !c.grey && unit >= n * 95 / 100 && blue / double(n) > 0.6;
    return c;
}

} // namespace af::texture
