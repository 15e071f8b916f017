// Alpha-to-coverage preservation: alpha-tested foliage thins out in the small
// mips because averaging pulls alpha below the test reference. Scaling each
// level's alpha so the same fraction of texels passes the test keeps the
// apparent density (the approach of nvtt's scaleAlphaToCoverage and
// texconv --keep-coverage), found by bisection on the scale.
#include "core/image_ops_internal.hpp"

#include "assetforge/plugin.hpp"

#include <tbb/parallel_reduce.h>

#include <algorithm>
#include <cmath>

namespace af::image_ops {

namespace {

void check_ref(float ref) {
    if (!(ref >= 0.0f && ref <= 1.0f)) sdk::usage(sdk::format("alpha coverage reference %g is not in 0..1", ref));
}

// Texels whose alpha × scale, stored, is above ref. Integer sums: the result
// is the same for any split across threads.
template <class AlphaAt>
uint64_t count_above(uint32_t w, uint32_t h, AlphaAt alpha_at, float scale, float ref, bool bytes) {
    const float ref8 = ref * 255.0f;
    return tbb::parallel_reduce(
        tbb::blocked_range<uint32_t>(0, h, std::max<uint32_t>(1, 65536 / std::max<uint32_t>(1, w))), uint64_t(0),
        [&](const tbb::blocked_range<uint32_t>& r, uint64_t n) {
            for (uint32_t y = r.begin(); y != r.end(); ++y)
                for (uint32_t x = 0; x < w; ++x) {
                    float a = std::clamp(alpha_at(y, x) * scale, 0.0f, 1.0f);
                    if (bytes ? float(to_unorm8(a)) > ref8 : a > ref) ++n;
                }
            return n;
        },
        [](uint64_t a, uint64_t b) { return a + b; });
}

template <class AlphaAt>
float find_scale(uint32_t w, uint32_t h, AlphaAt alpha_at, double target, float ref, bool bytes) {
    const double total = double(w) * h;
    auto coverage = [&](float s) { return double(count_above(w, h, alpha_at, s, ref, bytes)) / total; };
    float best = 1.0f;
    double best_err = std::fabs(coverage(1.0f) - target);
    if (best_err == 0.0 || ref >= 1.0f) return best;
    float lo = 0.0f, hi = 4.0f;
    // Levels whose alpha was averaged far down may need a larger factor.
    while (coverage(hi) < target && hi < 65536.0f) hi *= 2.0f;
    for (int it = 0; it < 24; ++it) {
        const float mid = 0.5f * (lo + hi);
        const double c = coverage(mid);
        const double err = std::fabs(c - target);
        if (err < best_err) {
            best_err = err;
            best = mid;
        }
        if (c < target)
            lo = mid;
        else if (c > target)
            hi = mid;
        else
            break;
    }
    return best;
}

} // namespace

float coverage_alpha_scale(const WorkPlane& plane, double target, float ref, bool bytes) {
    check_ref(ref);
    auto alpha_at = [&](uint32_t y, uint32_t x) { return plane.texel(y, x)[3]; };
    return find_scale(plane.width, plane.height, alpha_at, target, ref, bytes);
}

} // namespace af::image_ops

namespace af {

double alpha_coverage(const Texture& in, float ref) {
    image_ops::check_image(in, "alpha coverage");
    image_ops::check_ref(ref);
    if (texels(in) == 0) return 0.0;
    auto alpha_at = [&](uint32_t y, uint32_t x) {
        return image_ops::load_channel(in, (size_t(y) * in.desc.width + x) * 4 + 3);
    };
    // Stored values are compared as they are (scale 1 leaves 8-bit values exact).
    return double(image_ops::count_above(in.desc.width, in.desc.height, alpha_at, 1.0f, ref, !is_float(in))) /
           double(texels(in));
}

Texture scale_alpha_to_coverage(const Texture& in, double coverage, float ref) {
    image_ops::check_image(in, "alpha coverage");
    image_ops::check_ref(ref);
    Texture out = in;
    if (texels(in) == 0) return out;
    auto alpha_at = [&](uint32_t y, uint32_t x) {
        return image_ops::load_channel(in, (size_t(y) * in.desc.width + x) * 4 + 3);
    };
    const float s = image_ops::find_scale(in.desc.width, in.desc.height, alpha_at, coverage, ref, !is_float(in));
    if (s == 1.0f) return out;
    for (size_t i = 3; i < texels(in) * 4; i += 4) {
        float a = std::clamp(image_ops::load_channel(in, i) * s, 0.0f, 1.0f);
        if (is_float(in))
            floats(out)[i] = a;
        else
            out.data[i] = image_ops::to_unorm8(a);
    }
    return out;
}

} // namespace af
