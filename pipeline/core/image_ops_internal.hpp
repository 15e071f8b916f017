// Shared by the image_ops*.cpp files, not part of the core's API: the float
// working plane, the filter kernels, the separable resampler and the
// conversions between a picture and its working representation.
#pragma once

#include "assetforge/picture.hpp"
#include "core/image_ops.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace af::image_ops {

// Float texels, row major, no padding. Four channels (RGBA), or eight when
// colour is premultiplied: RGBA premultiplied, then the straight RGB filtered
// without alpha weighting (and one unused), which gives texels that end up
// fully transparent a colour from their neighbourhood instead of black.
struct WorkPlane {
    uint32_t width = 0, height = 0, channels = 4;
    WorkPlane() = default;
    // Storage is left uninitialised: every producer writes each texel, and
    // zero-filling planes of hundreds of MB costs as much as filtering them.
    WorkPlane(uint32_t w, uint32_t h, uint32_t c = 4)
        : width(w), height(h), channels(c), px_(new float[size_t(w) * h * c]) {}
    WorkPlane(WorkPlane&&) = default;
    WorkPlane& operator=(WorkPlane&&) = default;
    float* row(uint32_t y) { return px_.get() + size_t(y) * width * channels; }
    const float* row(uint32_t y) const { return px_.get() + size_t(y) * width * channels; }
    float* texel(uint32_t y, uint32_t x) { return row(y) + size_t(x) * channels; }
    const float* texel(uint32_t y, uint32_t x) const { return row(y) + size_t(x) * channels; }

  private:
    std::unique_ptr<float[]> px_;
};

// Runs fn(y) for every row, rows split across the calling arena's threads.
// Each row is computed independently, so results do not depend on the split.
template <class F> void for_each_row(uint32_t rows, uint32_t row_texels, F&& fn) {
    size_t grain = std::max<size_t>(1, 16384 / std::max<uint32_t>(1, row_texels));
    tbb::parallel_for(tbb::blocked_range<uint32_t>(0, rows, grain), [&](const tbb::blocked_range<uint32_t>& r) {
        for (uint32_t y = r.begin(); y != r.end(); ++y) fn(y);
    });
}

// ---- filter kernels (image_ops_filters.cpp) ----
struct FilterKernel {
    double radius;              // support at scale 1, in texels
    double (*weight)(double x); // symmetric, defined on [-radius, radius]
};
FilterKernel kernel_of(Filter f);
std::string_view filter_name(Filter f);

// ---- separable polyphase resampler (image_ops_resampler.cpp) ----
// Per output texel along one axis: the source indices (already clamped or
// wrapped) and normalised weights.
struct AxisTaps {
    std::vector<uint32_t> first; // size out+1: taps of output i are [first[i], first[i+1])
    std::vector<int32_t> index;
    std::vector<float> weight;
};
AxisTaps build_axis_taps(uint32_t in, uint32_t out, Filter filter, Edge edge);
// A new plane of out_w x out_h (the size must differ from the input's).
WorkPlane resample(const WorkPlane& in, uint32_t out_w, uint32_t out_h, Filter filter, Edge edge);

// ---- working representation (image_ops_working_space.cpp) ----
struct WorkSpace {
    bool linearise = false;          // RGB stored sRGB, filtered linear
    bool premultiplied = false;      // RGB weighted by alpha
    bool normal = false;             // RGB is a 0..1 encoded unit vector, held as -1..1
    bool normal_two_channel = false; // Z reconstructed from X, Y on entry
};
// Chooses the working space of `img` for these options.
WorkSpace working_space_for(const Texture& img, const ResizeOptions& opt, bool normal_map);
WorkPlane to_working(const Texture& img, const WorkSpace& ws);
// One row of `img` in the working space (ws.premultiplied ? 8 : 4 floats per texel).
void working_row(const Texture& img, const WorkSpace& ws, uint32_t y, float* dst);
// The same result as resample(to_working(img, ws), …), without the working
// plane of the whole source: its rows are converted as the filter needs
// them. The first mip level of a 4096² image needs 256 MB less this way.
WorkPlane resample_image(const Texture& img, const WorkSpace& ws, uint32_t out_w, uint32_t out_h, Filter filter,
                         Edge edge);
// Back to the stored representation. alpha_scale multiplies straight alpha
// (alpha-coverage); the result is RGBA32F when `as_float` (else RGBA8), sRGB tagged when `srgb_tag`.
Texture from_working(const WorkPlane& plane, const WorkSpace& ws, float alpha_scale, bool as_float, bool srgb_tag);
// Normalises each texel's XYZ (held in -1..1) to unit length; zero → +Z.
void renormalize_in_place(WorkPlane& plane);

// ---- alpha coverage (image_ops_alpha_coverage.cpp) ----
// The alpha scale that brings the fraction of texels whose stored alpha
// (clamped, and rounded to 8 bits when `bytes`) is > ref closest to `target`.
float coverage_alpha_scale(const WorkPlane& plane, double target, float ref, bool bytes);

// ---- sRGB curves, table-driven where the input is 8-bit ----
float srgb8_to_linear(uint8_t v);
// Linear → sRGB code 0..255, rounded exactly (thresholds at the midpoints).
uint8_t linear_to_srgb8(float v);

// ---- checks shared by the public entry points ----
// Throws when the pixel buffer does not match width × height.
void check_image(const Texture& img, const char* what);
// Throws a usage error for 0 or oversized targets.
void check_target_size(uint32_t w, uint32_t h, const char* what);
// Parses a channel list such as "rgb" into a 4-bit mask; throws on others.
unsigned channel_mask(std::string_view channels, const char* what);

// Stored channel value in 0..1 (8-bit scaled) and back (8-bit rounded/clamped).
inline float load_channel(const Texture& img, size_t i) {
    return is_float(img) ? floats(img)[i] : float(img.data[i]) * (1.0f / 255.0f);
}
inline uint8_t to_unorm8(float v) { return filtered_to_unorm8(v); }

} // namespace af::image_ops
