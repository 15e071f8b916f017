#include "bc7_endpoint_fit.hpp"

#include "bptc_tables.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace af::bc::bc7fit {

namespace {

struct Palette {
    int n;
    float c[16][4];
};

// Closest stored field for every 8-bit target, per field width (1..8 bits)
// and p-bit state (none, 0, 1); built at compile time from the decoder's expansion.
struct QuantTables {
    uint8_t q[9][3][256];
};
consteval QuantTables make_quant_tables() {
    QuantTables t{};
    for (int bits = 1; bits <= 8; ++bits)
        for (int pm = 0; pm < 3; ++pm) {
            const int pbits = pm ? 1 : 0, p = pm == 2;
            if (pbits && bits == 8) continue;
            for (int v = 0; v < 256; ++v) {
                int best = 0, best_d = 1 << 20;
                for (int q = 0; q < (1 << bits); ++q) {
                    const int n = bits + pbits, x = pbits ? (q << 1) | p : q;
                    const int dec = n >= 8 ? x : (x << (8 - n)) | (x >> (2 * n - 8 < 0 ? 0 : 2 * n - 8));
                    const int d = dec > v ? dec - v : v - dec;
                    if (d < best_d) best_d = d, best = q;
                }
                t.q[bits][pm][v] = uint8_t(best);
            }
        }
    return t;
}
constexpr QuantTables kQuant = make_quant_tables();

inline int quantize_channel(float v, int bits, int pbits, int p, int& decoded) {
    const int iv = std::clamp(int(v + 0.5f), 0, 255);
    const int q = kQuant.q[bits][pbits ? 1 + p : 0][iv];
    decoded = dequantize(q, p, bits, pbits);
    return q;
}

template <int NC>
void quantize_endpoint(const float* v, const EndpointFormat& f, int p, int* q, int* decoded, const float* w,
                       float& err) {
    err = 0;
    for (int c = 0; c < NC; ++c) {
        q[c] = quantize_channel(v[c], f.bits[c], f.pbits, p, decoded[c]);
        const float d = float(decoded[c]) - v[c];
        err += w[c] * d * d;
    }
}

template <int NC>
void build_palette(const int (&q)[2][4], const int (&p)[2], const EndpointFormat& f, Palette& pal) {
    const uint8_t* wt = bptc::weights_for_bits(f.index_bits);
    pal.n = 1 << f.index_bits;
    int e[2][4];
    for (int k = 0; k < 2; ++k)
        for (int c = 0; c < NC; ++c) e[k][c] = dequantize(q[k][c], p[k], f.bits[c], f.pbits);
    for (int i = 0; i < pal.n; ++i)
        for (int c = 0; c < NC; ++c)
            pal.c[i][c] = float(((64 - wt[i]) * e[0][c] + wt[i] * e[1][c] + 32) >> 6);
}

// Assigns each texel its best palette entry; returns the summed error.
template <int NC>
float assign_indices(const Subset& s, const EndpointFormat&, const Palette& pal, bool exhaustive,
                     uint8_t* index) {
    constexpr int nc = NC;
    const float* w = s.weights;
    float total = 0;
    if (exhaustive) {
        for (int i = 0; i < s.count; ++i) {
            const int t = s.texels[i];
            float best = FLT_MAX;
            int bi = 0;
            for (int k = 0; k < pal.n; ++k) {
                float e = 0;
                for (int c = 0; c < nc; ++c) {
                    const float d = s.px[t][c] - pal.c[k][c];
                    e += w[c] * d * d;
                }
                if (e < best) best = e, bi = k;
            }
            index[t] = uint8_t(bi);
            total += best;
        }
        return total;
    }
    // Project on the palette's line, then test the two entries around the projection.
    float dir[4], len2 = 0;
    for (int c = 0; c < nc; ++c) {
        dir[c] = pal.c[pal.n - 1][c] - pal.c[0][c];
        len2 += w[c] * dir[c] * dir[c];
    }
    const float scale = len2 > 0 ? float(pal.n - 1) / len2 : 0.0f;
    for (int i = 0; i < s.count; ++i) {
        const int t = s.texels[i];
        float dot = 0;
        for (int c = 0; c < nc; ++c) dot += w[c] * (s.px[t][c] - pal.c[0][c]) * dir[c];
        int k0 = int(dot * scale);
        k0 = std::clamp(k0, 0, pal.n - 2);
        float best = FLT_MAX;
        int bi = k0;
        for (int k = k0; k <= k0 + 1; ++k) {
            float e = 0;
            for (int c = 0; c < nc; ++c) {
                const float d = s.px[t][c] - pal.c[k][c];
                e += w[c] * d * d;
            }
            if (e < best) best = e, bi = k;
        }
        index[t] = uint8_t(bi);
        total += best;
    }
    return total;
}

struct Candidate {
    int q[2][4];
    int p[2];
    uint8_t index[16];
    float error = FLT_MAX;
};

template <int NC>
float evaluate(const Subset& s, const EndpointFormat& f, const FitParams& prm, Candidate& c) {
    Palette pal;
    build_palette<NC>(c.q, c.p, f, pal);
    c.error = assign_indices<NC>(s, f, pal, prm.exhaustive_index, c.index);
    return c.error;
}

// Quantises float endpoints, choosing p-bits; evaluates and keeps the best in `best`.
template <int NC>
void quantize_and_evaluate(const Subset& s, const EndpointFormat& f, const FitParams& prm, const float (&e)[2][4],
                           Candidate& best) {
    Candidate c;
    int dec[4];
    if (!f.pbits || f.force_p1) {
        const int p = f.force_p1 ? 1 : 0;
        float err;
        for (int k = 0; k < 2; ++k) {
            quantize_endpoint<NC>(e[k], f, p, c.q[k], dec, s.weights, err);
            c.p[k] = p;
        }
        if (evaluate<NC>(s, f, prm, c) < best.error) best = c;
        return;
    }
    if (prm.try_all_pbits) {
        const int combos = f.pbits == 1 ? 2 : 4;
        for (int m = 0; m < combos; ++m) {
            const int p0 = m & 1, p1 = f.pbits == 1 ? p0 : (m >> 1) & 1;
            float err;
            quantize_endpoint<NC>(e[0], f, p0, c.q[0], dec, s.weights, err);
            quantize_endpoint<NC>(e[1], f, p1, c.q[1], dec, s.weights, err);
            c.p[0] = p0, c.p[1] = p1;
            if (evaluate<NC>(s, f, prm, c) < best.error) best = c;
        }
        return;
    }
    // Choose p-bits by endpoint quantisation error alone.
    int qa[2][2][4];
    float ea[2][2];
    for (int k = 0; k < 2; ++k)
        for (int p = 0; p < 2; ++p) quantize_endpoint<NC>(e[k], f, p, qa[k][p], dec, s.weights, ea[k][p]);
    int p0, p1;
    if (f.pbits == 1) {
        p0 = p1 = (ea[0][1] + ea[1][1] < ea[0][0] + ea[1][0]) ? 1 : 0;
    } else {
        p0 = ea[0][1] < ea[0][0];
        p1 = ea[1][1] < ea[1][0];
    }
    for (int ch = 0; ch < 4; ++ch) c.q[0][ch] = qa[0][p0][ch], c.q[1][ch] = qa[1][p1][ch];
    c.p[0] = p0, c.p[1] = p1;
    if (evaluate<NC>(s, f, prm, c) < best.error) best = c;
}

// Least-squares endpoints for fixed indices; false when the indices do not span the line.
template <int NC>
bool least_squares(const Subset& s, const EndpointFormat& f, const uint8_t* index, float (&e)[2][4]) {
    const uint8_t* wt = bptc::weights_for_bits(f.index_bits);
    float aa = 0, ab = 0, bb = 0, ax[4] = {}, bx[4] = {};
    for (int i = 0; i < s.count; ++i) {
        const int t = s.texels[i];
        const float b = float(wt[index[t]]) / 64.0f, a = 1.0f - b;
        aa += a * a, ab += a * b, bb += b * b;
        for (int c = 0; c < NC; ++c) ax[c] += a * s.px[t][c], bx[c] += b * s.px[t][c];
    }
    const float det = aa * bb - ab * ab;
    if (std::fabs(det) < 1e-6f) return false;
    const float inv = 1.0f / det;
    for (int c = 0; c < NC; ++c) {
        e[0][c] = std::clamp((ax[c] * bb - bx[c] * ab) * inv, 0.0f, 255.0f);
        e[1][c] = std::clamp((bx[c] * aa - ax[c] * ab) * inv, 0.0f, 255.0f);
    }
    return true;
}

template <int NC>
void initial_endpoints(const Subset& s, const EndpointFormat&, float (&e)[2][4]) {
    constexpr int nc = NC;
    float mean[4] = {};
    for (int i = 0; i < s.count; ++i)
        for (int c = 0; c < nc; ++c) mean[c] += s.px[s.texels[i]][c];
    for (int c = 0; c < nc; ++c) mean[c] /= float(s.count);
    if (nc == 1) {
        float lo = 255, hi = 0;
        for (int i = 0; i < s.count; ++i) lo = std::min(lo, s.px[s.texels[i]][0]), hi = std::max(hi, s.px[s.texels[i]][0]);
        e[0][0] = lo, e[1][0] = hi;
        return;
    }
    float cov[4][4] = {};
    for (int i = 0; i < s.count; ++i) {
        float d[4];
        for (int c = 0; c < nc; ++c) d[c] = (s.px[s.texels[i]][c] - mean[c]) * s.weights[c];
        for (int a = 0; a < nc; ++a)
            for (int b = a; b < nc; ++b) cov[a][b] += d[a] * d[b];
    }
    for (int a = 0; a < nc; ++a)
        for (int b = 0; b < a; ++b) cov[a][b] = cov[b][a];
    // Power iteration from the row with the largest diagonal.
    int start = 0;
    for (int c = 1; c < nc; ++c)
        if (cov[c][c] > cov[start][start]) start = c;
    float axis[4];
    for (int c = 0; c < nc; ++c) axis[c] = cov[start][c];
    for (int it = 0; it < 4; ++it) {
        float nxt[4] = {}, mx = 0;
        for (int a = 0; a < nc; ++a) {
            for (int b = 0; b < nc; ++b) nxt[a] += cov[a][b] * axis[b];
            mx = std::max(mx, std::fabs(nxt[a]));
        }
        if (mx <= 0) break;
        for (int c = 0; c < nc; ++c) axis[c] = nxt[c] / mx;
    }
    float len2 = 0;
    for (int c = 0; c < nc; ++c) len2 += axis[c] * axis[c];
    if (len2 <= 1e-12f) {
        for (int k = 0; k < 2; ++k)
            for (int c = 0; c < nc; ++c) e[k][c] = mean[c];
        return;
    }
    float tmin = FLT_MAX, tmax = -FLT_MAX;
    for (int i = 0; i < s.count; ++i) {
        float t = 0;
        for (int c = 0; c < nc; ++c) t += (s.px[s.texels[i]][c] - mean[c]) * axis[c];
        tmin = std::min(tmin, t), tmax = std::max(tmax, t);
    }
    for (int c = 0; c < nc; ++c) {
        e[0][c] = std::clamp(mean[c] + tmin * axis[c] / len2, 0.0f, 255.0f);
        e[1][c] = std::clamp(mean[c] + tmax * axis[c] / len2, 0.0f, 255.0f);
    }
}

template <int NC>
void perturb(const Subset& s, const EndpointFormat& f, const FitParams& prm, Candidate& best) {
    for (int pass = 0; pass < prm.perturb_passes; ++pass) {
        bool improved = false;
        for (int k = 0; k < 2; ++k)
            for (int c = 0; c < NC; ++c)
                for (int delta : {-1, 1}) {
                    Candidate cand = best;
                    const int v = cand.q[k][c] + delta;
                    if (v < 0 || v >= (1 << f.bits[c])) continue;
                    cand.q[k][c] = v;
                    if (evaluate<NC>(s, f, prm, cand) < best.error) best = cand, improved = true;
                }
        if (!f.force_p1 && f.pbits == 2 && pass == 0) {
            for (int k = 0; k < 2; ++k) {
                Candidate cand = best;
                cand.p[k] ^= 1;
                if (evaluate<NC>(s, f, prm, cand) < best.error) best = cand, improved = true;
            }
        }
        if (!improved) break;
    }
}

} // namespace

namespace {
template <int NC>
void fit_subset_nc(const Subset& s, const EndpointFormat& f, const FitParams& prm, FitResult& out) {
    float e[2][4];
    initial_endpoints<NC>(s, f, e);
    Candidate best;
    quantize_and_evaluate<NC>(s, f, prm, e, best);
    for (int it = 0; it < prm.refine_iterations && best.error > 0; ++it) {
        const float before = best.error;
        if (!least_squares<NC>(s, f, best.index, e)) break;
        quantize_and_evaluate<NC>(s, f, prm, e, best);
        if (best.error >= before) break;
    }
    if (best.error > 0) perturb<NC>(s, f, prm, best);
    for (int k = 0; k < 2; ++k) {
        out.p[k] = best.p[k];
        for (int c = 0; c < 4; ++c) out.q[k][c] = c < f.channels ? best.q[k][c] : 0;
    }
    for (int i = 0; i < s.count; ++i) out.index[s.texels[i]] = best.index[s.texels[i]];
    out.error = best.error;
}

} // namespace

void fit_subset(const Subset& s, const EndpointFormat& f, const FitParams& prm, FitResult& out) {
    switch (f.channels) {
    case 1: fit_subset_nc<1>(s, f, prm, out); break;
    case 3: fit_subset_nc<3>(s, f, prm, out); break;
    default: fit_subset_nc<4>(s, f, prm, out); break;
    }
}

} // namespace af::bc::bc7fit
