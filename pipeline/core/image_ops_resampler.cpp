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

// Weighted sum of the source rows that output row y draws from; row(i)
// gives source row i as `n` floats.
template <class Rows> void filter_column(Rows&& row, size_t n, const AxisTaps& taps, uint32_t y, float* d) {
    uint32_t k = taps.first[y];
    const float* s = row(uint32_t(taps.index[k]));
    const float w0 = taps.weight[k];
    for (size_t i = 0; i < n; ++i) d[i] = w0 * s[i];
    for (++k; k < taps.first[y + 1]; ++k) {
        s = row(uint32_t(taps.index[k]));
        const float wk = taps.weight[k];
        for (size_t i = 0; i < n; ++i) d[i] += wk * s[i];
    }
}

// Source rows converted on demand, for one thread's run of output rows.
// Consecutive output rows share most of their source rows and move down by
// a few at a time, so first-in-first-out over slightly more rows than one
// output row's taps converts each source row about once.
class RowCache {
  public:
    RowCache(const Texture& img, const WorkSpace& ws, size_t slots)
        : img_(img), ws_(ws), width_(size_t(img.desc.width) * (ws.premultiplied ? 8 : 4)), rows_(slots * width_),
          tags_(slots, -1) {}
    const float* operator()(uint32_t y) {
        for (size_t i = 0; i < tags_.size(); ++i)
            if (tags_[i] == int64_t(y)) return rows_.data() + i * width_;
        const size_t slot = next_++ % tags_.size();
        float* d = rows_.data() + slot * width_;
        working_row(img_, ws_, y, d);
        tags_[slot] = y;
        return d;
    }

  private:
    const Texture& img_;
    const WorkSpace& ws_;
    size_t width_;
    std::vector<float> rows_;
    std::vector<int64_t> tags_;
    size_t next_ = 0;
};

template <class MakeRows>
void resample_rows(MakeRows&& make_rows, uint32_t in_w, uint32_t in_h, uint32_t channels, WorkPlane& out, Filter filter,
                   Edge edge) {
    const uint32_t out_w = out.width, out_h = out.height;
    const bool horizontal = out_w != in_w, vertical = out_h != in_h;
    const AxisTaps h = horizontal ? build_axis_taps(in_w, out_w, filter, edge) : AxisTaps{};
    const AxisTaps v = vertical ? build_axis_taps(in_h, out_h, filter, edge) : AxisTaps{};
    uint32_t most_taps = 1;
    for (uint32_t y = 0; vertical && y < out_h; ++y) most_taps = std::max(most_taps, v.first[y + 1] - v.first[y]);
    const size_t n = size_t(in_w) * channels;
    const size_t grain = std::max<size_t>(1, 16384 / std::max<uint32_t>(1, in_w));
    tbb::parallel_for(tbb::blocked_range<uint32_t>(0, out_h, grain), [&](const tbb::blocked_range<uint32_t>& r) {
        auto rows = make_rows(most_taps + 4);
        std::vector<float> scratch(vertical && horizontal ? n : 0);
        for (uint32_t y = r.begin(); y != r.end(); ++y) {
            const float* src = nullptr;
            if (vertical) {
                float* d = horizontal ? scratch.data() : out.row(y);
                filter_column(rows, n, v, y, d);
                src = d;
            } else {
                src = rows(y);
            }
            if (!horizontal) {
                if (src != out.row(y)) std::copy(src, src + n, out.row(y));
                continue;
            }
            if (channels == 8)
                filter_row<8>(src, out.row(y), out_w, h);
            else
                filter_row<4>(src, out.row(y), out_w, h);
        }
    });
}

} // namespace

// Vertical pass first, one output row at a time into a scratch row, then the
// horizontal pass from it: no intermediate plane, and each output row is a
// fixed sequence of operations whatever the thread split.
WorkPlane resample(const WorkPlane& in, uint32_t out_w, uint32_t out_h, Filter filter, Edge edge) {
    WorkPlane out(out_w, out_h, in.channels);
    if (out_w == in.width && out_h == in.height) {
        std::copy(in.row(0), in.row(0) + size_t(in.width) * in.height * in.channels, out.row(0));
        return out;
    }
    auto plane_rows = [&](size_t) { return [&](uint32_t y) { return in.row(y); }; };
    resample_rows(plane_rows, in.width, in.height, in.channels, out, filter, edge);
    return out;
}

WorkPlane resample_image(const Texture& img, const WorkSpace& ws, uint32_t out_w, uint32_t out_h, Filter filter,
                         Edge edge) {
    const uint32_t channels = ws.premultiplied ? 8 : 4;
    if (out_w == img.desc.width && out_h == img.desc.height) return to_working(img, ws);
    WorkPlane out(out_w, out_h, channels);
    auto cached_rows = [&](size_t slots) { return RowCache(img, ws, slots); };
    resample_rows(cached_rows, img.desc.width, img.desc.height, channels, out, filter, edge);
    return out;
}

} // namespace af::image_ops
