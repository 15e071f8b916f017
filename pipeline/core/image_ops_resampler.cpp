// Separable polyphase resampling of a float RGBA plane: one weight table per
// axis (each output texel's taps computed once), a horizontal pass over every
// source row, then a vertical pass over every output row.
#include "core/image_ops_internal.hpp"

#include <algorithm>
#include <cmath>

namespace af::image_ops {

AxisTaps build_axis_taps(uint32_t in, uint32_t out, Filter filter, Edge edge) {
    AxisTaps t;
    t.first.reserve(size_t(out) + 1);
    t.first.push_back(0);
    const double scale = double(in) / double(out);
    auto place = [&](int64_t j) -> int32_t {
        if (edge == Edge::Wrap) {
            int64_t m = j % int64_t(in);
            return int32_t(m < 0 ? m + in : m);
        }
        return int32_t(std::clamp<int64_t>(j, 0, int64_t(in) - 1));
    };

    if (filter == Filter::Point) {
        // The source texel that contains the output texel's centre.
        for (uint32_t i = 0; i < out; ++i) {
            t.index.push_back(place(int64_t(std::floor((i + 0.5) * scale))));
            t.weight.push_back(1.0f);
            t.first.push_back(uint32_t(t.index.size()));
        }
        return t;
    }

    const FilterKernel k = kernel_of(filter);
    // Downsampling widens the kernel so it low-passes at the output's Nyquist
    // rate; upsampling interpolates with the kernel as is.
    const double fs = std::max(scale, 1.0);
    const double support = k.radius * fs;
    std::vector<double> w;
    std::vector<int32_t> idx;
    for (uint32_t i = 0; i < out; ++i) {
        const double centre = (i + 0.5) * scale - 0.5;
        const int64_t lo = int64_t(std::ceil(centre - support));
        const int64_t hi = int64_t(std::floor(centre + support));
        w.clear();
        idx.clear();
        double sum = 0;
        for (int64_t j = lo; j <= hi; ++j) {
            double wj = k.weight((double(j) - centre) / fs);
            if (wj == 0.0) continue;
            w.push_back(wj);
            idx.push_back(place(j));
            sum += wj;
        }
        if (w.empty() || std::fabs(sum) < 1e-12) { // cannot happen for these kernels; keep the centre texel
            w.assign(1, 1.0);
            idx.assign(1, place(int64_t(std::floor(centre + 0.5))));
            sum = 1.0;
        }
        for (size_t n = 0; n < w.size(); ++n) {
            t.index.push_back(idx[n]);
            t.weight.push_back(float(w[n] / sum));
        }
        t.first.push_back(uint32_t(t.index.size()));
    }
    return t;
}

namespace {

template <uint32_t C> void filter_row(const float* s, float* d, uint32_t out_w, const AxisTaps& taps) {
    for (uint32_t x = 0; x < out_w; ++x) {
        float acc[C] = {};
        for (uint32_t k = taps.first[x]; k < taps.first[x + 1]; ++k) {
            const float* p = s + size_t(taps.index[k]) * C;
            const float wk = taps.weight[k];
            for (uint32_t c = 0; c < C; ++c) acc[c] += wk * p[c];
        }
        for (uint32_t c = 0; c < C; ++c) d[size_t(x) * C + c] = acc[c];
    }
}

// Weighted sum of the source rows that output row y draws from.
void filter_column(const WorkPlane& in, const AxisTaps& taps, uint32_t y, float* d) {
    const size_t n = size_t(in.width) * in.channels;
    uint32_t k = taps.first[y];
    const float* s = in.row(uint32_t(taps.index[k]));
    const float w0 = taps.weight[k];
    for (size_t i = 0; i < n; ++i) d[i] = w0 * s[i];
    for (++k; k < taps.first[y + 1]; ++k) {
        s = in.row(uint32_t(taps.index[k]));
        const float wk = taps.weight[k];
        for (size_t i = 0; i < n; ++i) d[i] += wk * s[i];
    }
}

} // namespace

// Vertical pass first, one output row at a time into a scratch row, then the
// horizontal pass from it: no intermediate plane, and each output row is a
// fixed sequence of operations whatever the thread split.
WorkPlane resample(const WorkPlane& in, uint32_t out_w, uint32_t out_h, Filter filter, Edge edge) {
    const bool horizontal = out_w != in.width, vertical = out_h != in.height;
    const AxisTaps h = horizontal ? build_axis_taps(in.width, out_w, filter, edge) : AxisTaps{};
    const AxisTaps v = vertical ? build_axis_taps(in.height, out_h, filter, edge) : AxisTaps{};
    WorkPlane out(out_w, out_h, in.channels);
    if (!horizontal && !vertical) {
        std::copy(in.row(0), in.row(0) + size_t(in.width) * in.height * in.channels, out.row(0));
        return out;
    }
    const size_t grain = std::max<size_t>(1, 16384 / std::max<uint32_t>(1, in.width));
    tbb::parallel_for(tbb::blocked_range<uint32_t>(0, out_h, grain), [&](const tbb::blocked_range<uint32_t>& r) {
        std::vector<float> scratch(vertical && horizontal ? size_t(in.width) * in.channels : 0);
        for (uint32_t y = r.begin(); y != r.end(); ++y) {
            const float* src = in.row(y);
            if (vertical) {
                float* d = horizontal ? scratch.data() : out.row(y);
                filter_column(in, v, y, d);
                src = d;
            }
            if (!horizontal) continue;
            if (in.channels == 8)
                filter_row<8>(src, out.row(y), out_w, h);
            else
                filter_row<4>(src, out.row(y), out_w, h);
        }
    });
    return out;
}

} // namespace af::image_ops
