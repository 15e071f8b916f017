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

WorkPlane resample_rows(const WorkPlane& in, uint32_t out_w, Filter filter, Edge edge) {
    const AxisTaps taps = build_axis_taps(in.width, out_w, filter, edge);
    WorkPlane out(out_w, in.height);
    for_each_row(in.height, out_w, [&](uint32_t y) {
        const float* s = in.row(y);
        float* d = out.row(y);
        for (uint32_t x = 0; x < out_w; ++x) {
            float r = 0, g = 0, b = 0, a = 0;
            for (uint32_t k = taps.first[x]; k < taps.first[x + 1]; ++k) {
                const float* p = s + size_t(taps.index[k]) * 4;
                const float wk = taps.weight[k];
                r += wk * p[0];
                g += wk * p[1];
                b += wk * p[2];
                a += wk * p[3];
            }
            d[x * 4 + 0] = r;
            d[x * 4 + 1] = g;
            d[x * 4 + 2] = b;
            d[x * 4 + 3] = a;
        }
    });
    return out;
}

WorkPlane resample_columns(const WorkPlane& in, uint32_t out_h, Filter filter, Edge edge) {
    const AxisTaps taps = build_axis_taps(in.height, out_h, filter, edge);
    WorkPlane out(in.width, out_h);
    const size_t n = size_t(in.width) * 4;
    for_each_row(out_h, in.width, [&](uint32_t y) {
        float* d = out.row(y);
        for (uint32_t k = taps.first[y]; k < taps.first[y + 1]; ++k) {
            const float* s = in.row(uint32_t(taps.index[k]));
            const float wk = taps.weight[k];
            for (size_t i = 0; i < n; ++i) d[i] += wk * s[i];
        }
    });
    return out;
}

} // namespace

WorkPlane resample(const WorkPlane& in, uint32_t out_w, uint32_t out_h, Filter filter, Edge edge) {
    if (out_w == in.width && out_h == in.height) return in;
    if (out_w == in.width) return resample_columns(in, out_h, filter, edge);
    WorkPlane rows = resample_rows(in, out_w, filter, edge);
    if (out_h == in.height) return rows;
    return resample_columns(rows, out_h, filter, edge);
}

} // namespace af::image_ops
