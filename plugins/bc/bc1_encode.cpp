// BC1 colour-block encoder (BC1 itself, and the colour half of BC2/BC3).
//
// Every candidate pair of endpoints is scored against the exact decoder
// palette (bc_block.hpp) with optimal per-texel index choice, so rounding of
// the 565 endpoints and of the interpolants is part of the search. Levels add
// work in this order: least-squares refinement (0+), the 3-colour palette
// (1+), greedy ±1 moves of the six endpoint components (3+), cluster fit over
// orderings along the principal axis (5+), more of everything up to 10.
#include "bc1_fast.hpp"
#include "bc1_tables.hpp"
#include "bc_block.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <smmintrin.h>

namespace af::bc {
namespace {

struct Texels {
    alignas(16) float r[16], g[16], b[16];
    uint32_t opaque_mask = 0xffff; // texels that carry colour (others are transparent)
    int count = 16;
    float wr = 1, wg = 1, wb = 1;
};

struct Candidate {
    float err = 3.4e38f;
    uint16_t c0 = 0, c1 = 0; // as stored
    uint32_t idx = 0;
    bool four = true;
};

inline uint16_t pack565(int r, int g, int b) { return uint16_t(r << 11 | g << 5 | b); }

// Float RGB (0..255) → nearest 565 code per channel (by expanded value).
inline uint16_t quantise(float r, float g, float b) {
    auto idx = [](float v) { return int(std::clamp(v, 0.0f, 255.0f) + 0.5f); };
    return pack565(tables::kNearest5[idx(r)], tables::kNearest6[idx(g)], tables::kNearest5[idx(b)]);
}

// Scores endpoints (c0, c1) as stored, in the palette the decoder will pick
// (four colours when c0 > c1 or forced, else three + transparent).
// Transparent texels take index 3 in 3-colour mode and cost nothing.
void evaluate(const Texels& t, uint16_t c0, uint16_t c1, bool force_four, Candidate& best) {
    bool four = force_four || c0 > c1;
    alignas(16) uint8_t pal[16];
    bc1_palette(c0, c1, force_four, pal);
    const int entries = four ? 4 : 3;
    const __m128 wr = _mm_set1_ps(t.wr), wg = _mm_set1_ps(t.wg), wb = _mm_set1_ps(t.wb);
    __m128 total = _mm_setzero_ps();
    uint32_t idx = 0;
    for (int q = 0; q < 4; ++q) {
        __m128 r = _mm_load_ps(t.r + 4 * q), g = _mm_load_ps(t.g + 4 * q), b = _mm_load_ps(t.b + 4 * q);
        __m128 be = _mm_set1_ps(3.4e38f);
        __m128i bi = _mm_setzero_si128();
        for (int k = 0; k < entries; ++k) {
            __m128 dr = _mm_sub_ps(r, _mm_set1_ps(pal[4 * k])), dg = _mm_sub_ps(g, _mm_set1_ps(pal[4 * k + 1])),
                   db = _mm_sub_ps(b, _mm_set1_ps(pal[4 * k + 2]));
            __m128 e = _mm_add_ps(_mm_add_ps(_mm_mul_ps(_mm_mul_ps(dr, dr), wr), _mm_mul_ps(_mm_mul_ps(dg, dg), wg)),
                                  _mm_mul_ps(_mm_mul_ps(db, db), wb));
            __m128 lt = _mm_cmplt_ps(e, be);
            be = _mm_min_ps(e, be);
            bi = _mm_blendv_epi8(bi, _mm_set1_epi32(k), _mm_castps_si128(lt));
        }
        if (t.opaque_mask != 0xffff) {
            __m128i opaque =
                _mm_setr_epi32(-int((t.opaque_mask >> (4 * q)) & 1), -int((t.opaque_mask >> (4 * q + 1)) & 1),
                               -int((t.opaque_mask >> (4 * q + 2)) & 1), -int((t.opaque_mask >> (4 * q + 3)) & 1));
            be = _mm_and_ps(be, _mm_castsi128_ps(opaque));
            bi = _mm_blendv_epi8(_mm_set1_epi32(3), bi, opaque);
        }
        total = _mm_add_ps(total, be);
        alignas(16) int32_t ix[4];
        _mm_store_si128(reinterpret_cast<__m128i*>(ix), bi);
        idx |= uint32_t(ix[0]) << (8 * q) | uint32_t(ix[1]) << (8 * q + 2) | uint32_t(ix[2]) << (8 * q + 4) |
               uint32_t(ix[3]) << (8 * q + 6);
    }
    total = _mm_add_ps(total, _mm_movehl_ps(total, total));
    total = _mm_add_ss(total, _mm_shuffle_ps(total, total, 1));
    float err = _mm_cvtss_f32(total);
    if (err < best.err) {
        best.err = err;
        best.c0 = c0;
        best.c1 = c1;
        best.idx = idx;
        best.four = four;
    }
}

// Tries a pair of float endpoints in the requested palette mode, ordering the
// stored codes so the decoder picks that mode.
void try_endpoints(const Texels& t, const float e0[3], const float e1[3], bool four, bool force_four, Candidate& best) {
    uint16_t a = quantise(e0[0], e0[1], e0[2]), b = quantise(e1[0], e1[1], e1[2]);
    if (force_four) {
        evaluate(t, a, b, true, best);
        return;
    }
    if (four) {
        if (a < b) std::swap(a, b);
        if (a == b) { // a 4-colour palette needs c0 > c1: nudge one endpoint
            if (a > 0) evaluate(t, a, uint16_t(b - 1), false, best);
            if (a < 0xffff) evaluate(t, uint16_t(a + 1), b, false, best);
            evaluate(t, a, b, false, best); // 3-colour, one colour: still valid
            return;
        }
    } else if (a > b) {
        std::swap(a, b);
    }
    evaluate(t, a, b, false, best);
}

// Palette position weights of endpoint 0 per index, for least squares.
constexpr float kW4[4] = {1, 0, 2 / 3.f, 1 / 3.f};
constexpr float kW3[4] = {1, 0, 0.5f, -1};

// Least-squares endpoints for the candidate's indices, tried in its mode.
bool refine(const Texels& t, Candidate& best, bool force_four) {
    const float* w = best.four ? kW4 : kW3;
    float aa = 0, ab = 0, bb = 0, ax[3] = {}, bx[3] = {};
    for (int i = 0; i < 16; ++i) {
        if (!((t.opaque_mask >> i) & 1)) continue;
        float s = w[(best.idx >> (2 * i)) & 3];
        if (s < 0) continue;
        float u = 1 - s;
        aa += s * s;
        ab += s * u;
        bb += u * u;
        ax[0] += s * t.r[i];
        ax[1] += s * t.g[i];
        ax[2] += s * t.b[i];
        bx[0] += u * t.r[i];
        bx[1] += u * t.g[i];
        bx[2] += u * t.b[i];
    }
    float det = aa * bb - ab * ab;
    if (std::fabs(det) < 1e-4f) return false;
    float e0[3], e1[3];
    for (int c = 0; c < 3; ++c) {
        e0[c] = std::clamp((bb * ax[c] - ab * bx[c]) / det, 0.0f, 255.0f);
        e1[c] = std::clamp((aa * bx[c] - ab * ax[c]) / det, 0.0f, 255.0f);
    }
    float before = best.err;
    try_endpoints(t, e0, e1, best.four, force_four, best);
    return best.err < before;
}

// Greedy coordinate moves on the stored endpoint codes.
void perturb(const Texels& t, Candidate& best, bool force_four, int passes, int reach) {
    static constexpr int shift[6] = {11, 5, 0, 11, 5, 0};
    static constexpr int maxv[6] = {31, 63, 31, 31, 63, 31};
    for (int p = 0; p < passes; ++p) {
        bool improved = false;
        for (int c = 0; c < 6; ++c)
            for (int d = -reach; d <= reach; ++d) {
                if (!d) continue;
                uint16_t e[2] = {best.c0, best.c1};
                uint16_t& x = e[c / 3];
                int v = (x >> shift[c]) & maxv[c];
                int nv = v + d;
                if (nv < 0 || nv > maxv[c]) continue;
                x = uint16_t((x & ~(maxv[c] << shift[c])) | (nv << shift[c]));
                // keep the palette mode: a move that flips the order is scored in the other mode
                if (!force_four && best.four && e[0] <= e[1]) continue;
                if (!force_four && !best.four && e[0] > e[1]) continue;
                float before = best.err;
                evaluate(t, e[0], e[1], force_four, best);
                if (best.err < before) improved = true;
            }
        if (!improved) break;
    }
}

void principal_axis(const Texels& t, float mean[3], float axis[3]) {
    // Masked sums without branches so the compiler vectorises them.
    float wt[16];
    for (int i = 0; i < 16; ++i) wt[i] = float((t.opaque_mask >> i) & 1);
    float n = 0, m0 = 0, m1 = 0, m2 = 0;
    for (int i = 0; i < 16; ++i) n += wt[i], m0 += wt[i] * t.r[i], m1 += wt[i] * t.g[i], m2 += wt[i] * t.b[i];
    mean[0] = m0 / n, mean[1] = m1 / n, mean[2] = m2 / n;
    float c0 = 0, c1 = 0, c2 = 0, c3 = 0, c4 = 0, c5 = 0;
    for (int i = 0; i < 16; ++i) {
        float r = (t.r[i] - mean[0]) * wt[i], g = (t.g[i] - mean[1]) * wt[i], b = (t.b[i] - mean[2]) * wt[i];
        c0 += r * r, c1 += r * g, c2 += r * b, c3 += g * g, c4 += g * b, c5 += b * b;
    }
    const float cov[6] = {c0, c1, c2, c3, c4, c5};
    // Power iteration from the row of largest variance.
    float v[3];
    if (cov[0] >= cov[3] && cov[0] >= cov[5])
        v[0] = cov[0], v[1] = cov[1], v[2] = cov[2];
    else if (cov[3] >= cov[5])
        v[0] = cov[1], v[1] = cov[3], v[2] = cov[4];
    else
        v[0] = cov[2], v[1] = cov[4], v[2] = cov[5];
    for (int it = 0; it < 4; ++it) {
        float x = cov[0] * v[0] + cov[1] * v[1] + cov[2] * v[2];
        float y = cov[1] * v[0] + cov[3] * v[1] + cov[4] * v[2];
        float z = cov[2] * v[0] + cov[4] * v[1] + cov[5] * v[2];
        float l = std::max({std::fabs(x), std::fabs(y), std::fabs(z)});
        if (l < 1e-12f) break;
        float inv = 1.0f / l;
        v[0] = x * inv;
        v[1] = y * inv;
        v[2] = z * inv;
    }
    float l = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (l < 1e-12f) v[0] = v[1] = v[2] = 0.57735f, l = 1;
    for (int c = 0; c < 3; ++c) axis[c] = v[c] / l;
}

// Cluster fit: texels ordered along `axis`; every split of the ordering into
// consecutive runs per palette entry has closed-form least-squares endpoints.
// With prefix sums P of the ordered colours and runs [0,i) [i,j) [j,k) [k,n)
// at weights 1, 2/3, 1/3, 0 of endpoint a, the scaled sums are
//   AX = P[i] + P[j] + P[k],  BX = 3·P[n] − AX,
//   A = 9c0 + 4c1 + c2,  C = 2(c1 + c2),  B = 9c3 + c1 + 4c2,
// and the residual drops by Σ_ch w (B·AX² − 2C·AX·BX + A·BX²) / (AB − C²):
// the split maximising that is the best, and needs no solve to rank.
// (3 colours: weights 1, 1/2, 0, AX = P[i] + P[j], BX = 2·P[n] − AX,
//  A = 4c0 + c1, C = c1, B = 4c2 + c1.) The best `keep` splits are solved,
// quantised, scored exactly and refined.
// The opaque texels ordered along the axis, as prefix sums per channel.
struct AxisOrder {
    int n = 0;
    float P[3][17];
};

inline void order_along_axis(const Texels& t, const float axis[3], AxisOrder& o) {
    int order[16], n = 0;
    float key[16];
    for (int i = 0; i < 16; ++i)
        if ((t.opaque_mask >> i) & 1) key[n] = t.r[i] * axis[0] + t.g[i] * axis[1] + t.b[i] * axis[2], order[n++] = i;
    for (int i = 1; i < n; ++i) // insertion sort: n <= 16
        for (int j = i; j > 0 && key[j] < key[j - 1]; --j)
            std::swap(key[j], key[j - 1]), std::swap(order[j], order[j - 1]);
    o.n = n;
    o.P[0][0] = o.P[1][0] = o.P[2][0] = 0;
    for (int i = 0; i < n; ++i) {
        int k = order[i];
        o.P[0][i + 1] = o.P[0][i] + t.r[k], o.P[1][i + 1] = o.P[1][i] + t.g[k], o.P[2][i + 1] = o.P[2][i] + t.b[k];
    }
}

// The best `keep` splits seen so far, ranked by how much they lower the residual.
struct TopSplits {
    struct Split {
        float q;
        int i, j, k;
    };
    Split top[8];
    int n = 0, keep = 1;
    float worst = -1; // the bar a split must pass; -1 until `keep` are held

    void offer(float q, int i, int j, int k) {
        if (n < keep) {
            top[n++] = {q, i, j, k};
        } else {
            int wi = 0;
            for (int x = 1; x < n; ++x)
                if (top[x].q < top[wi].q) wi = x;
            top[wi] = {q, i, j, k};
        }
        worst = top[0].q;
        for (int x = 1; x < n; ++x) worst = std::min(worst, top[x].q);
        if (n < keep) worst = -1;
    }
};

// 3 colours: every (i, j), with k = n.
inline void search_three(const Texels& t, const AxisOrder& o, TopSplits& top) {
    const int n = o.n;
    const auto& P = o.P;
    const float w0 = t.wr, w1 = t.wg, w2 = t.wb;
    const float T0 = 2.0f * P[0][n], T1 = 2.0f * P[1][n], T2 = 2.0f * P[2][n];
    float worst = top.worst; // a local copy the loop can keep in a register
    for (int i = 0; i <= n; ++i)
        for (int j = i; j <= n; ++j) {
            const float ax0 = P[0][i] + P[0][j], ax1 = P[1][i] + P[1][j], ax2 = P[2][i] + P[2][j];
            const float c0 = float(i), c1 = float(j - i);
            const float A = 4 * c0 + c1, C = c1, B = 4 * float(n - j) + c1;
            const float D = A * B - C * C;
            if (D <= 0.5f) continue;
            const float bx0 = T0 - ax0, bx1 = T1 - ax1, bx2 = T2 - ax2;
            const float num = w0 * (B * ax0 * ax0 - 2 * C * ax0 * bx0 + A * bx0 * bx0) +
                              w1 * (B * ax1 * ax1 - 2 * C * ax1 * bx1 + A * bx1 * bx1) +
                              w2 * (B * ax2 * ax2 - 2 * C * ax2 * bx2 + A * bx2 * bx2);
            if (num > worst * D) { // divide only the few that qualify
                top.offer(num / D, i, j, n);
                worst = top.worst;
            }
        }
}

// 4 colours: every (i, j), and k = j … n four at a time (A, B, C are linear in k).
inline void search_four(const Texels& t, const AxisOrder& o, TopSplits& top) {
    const int n = o.n;
    const auto& P = o.P;
    const float T0 = 3.0f * P[0][n], T1 = 3.0f * P[1][n], T2 = 3.0f * P[2][n];
    // Padded copies so the 4-wide loop over k may read past n (lanes beyond n are masked off).
    alignas(16) float Pk[3][20];
    for (int c = 0; c < 3; ++c) {
        for (int x = 0; x <= n; ++x) Pk[c][x] = P[c][x];
        for (int x = n + 1; x < 20; ++x) Pk[c][x] = P[c][n];
    }
    const __m128 vw0 = _mm_set1_ps(t.wr), vw1 = _mm_set1_ps(t.wg), vw2 = _mm_set1_ps(t.wb);
    const __m128 vT0 = _mm_set1_ps(T0), vT1 = _mm_set1_ps(T1), vT2 = _mm_set1_ps(T2);
    const __m128 lane = _mm_setr_ps(0, 1, 2, 3);
    float worst = top.worst; // a local copy the loop can keep in a register
    for (int i = 0; i <= n; ++i)
        for (int j = i; j <= n; ++j) {
            const float pij0 = P[0][i] + P[0][j], pij1 = P[1][i] + P[1][j], pij2 = P[2][i] + P[2][j];
            const float c0 = float(i), c1 = float(j - i);
            const __m128 vp0 = _mm_set1_ps(pij0), vp1 = _mm_set1_ps(pij1), vp2 = _mm_set1_ps(pij2);
            for (int k = j; k <= n; k += 4) {
                const __m128 vk = _mm_add_ps(_mm_set1_ps(float(k)), lane);
                const __m128 c2 = _mm_sub_ps(vk, _mm_set1_ps(float(j)));
                const __m128 c3 = _mm_sub_ps(_mm_set1_ps(float(n)), vk);
                const __m128 A = _mm_add_ps(_mm_set1_ps(9 * c0 + 4 * c1), c2);
                const __m128 C = _mm_mul_ps(_mm_set1_ps(2), _mm_add_ps(_mm_set1_ps(c1), c2));
                const __m128 B = _mm_add_ps(_mm_add_ps(_mm_mul_ps(_mm_set1_ps(9), c3), _mm_set1_ps(c1)),
                                            _mm_mul_ps(_mm_set1_ps(4), c2));
                const __m128 D = _mm_sub_ps(_mm_mul_ps(A, B), _mm_mul_ps(C, C));
                auto term = [&](__m128 p, __m128 T, const float* Pc, __m128 w) {
                    __m128 ax = _mm_add_ps(p, _mm_loadu_ps(Pc + k));
                    __m128 bx = _mm_sub_ps(T, ax);
                    __m128 x =
                        _mm_sub_ps(_mm_add_ps(_mm_mul_ps(B, _mm_mul_ps(ax, ax)), _mm_mul_ps(A, _mm_mul_ps(bx, bx))),
                                   _mm_mul_ps(_mm_mul_ps(_mm_set1_ps(2), C), _mm_mul_ps(ax, bx)));
                    return _mm_mul_ps(w, x);
                };
                const __m128 num = _mm_add_ps(_mm_add_ps(term(vp0, vT0, Pk[0], vw0), term(vp1, vT1, Pk[1], vw1)),
                                              term(vp2, vT2, Pk[2], vw2));
                __m128 ok = _mm_and_ps(_mm_cmpgt_ps(num, _mm_mul_ps(_mm_set1_ps(worst), D)),
                                       _mm_cmpgt_ps(D, _mm_set1_ps(0.5f)));
                ok = _mm_and_ps(ok, _mm_cmple_ps(vk, _mm_set1_ps(float(n))));
                int mask = _mm_movemask_ps(ok);
                if (!mask) continue;
                alignas(16) float nv[4], dv[4];
                _mm_store_ps(nv, num);
                _mm_store_ps(dv, D);
                for (int l = 0; l < 4; ++l)
                    if (((mask >> l) & 1) && nv[l] > worst * dv[l]) {
                        top.offer(nv[l] / dv[l], i, j, k + l);
                        worst = top.worst;
                    }
            }
        }
}

// Each kept split: its least-squares endpoints, quantised, scored exactly and refined.
inline void solve_splits(const Texels& t, const AxisOrder& o, const TopSplits& top, bool four, bool force_four,
                         Candidate& best) {
    const int n = o.n;
    const auto& P = o.P;
    const float mul = four ? 3.0f : 2.0f;
    for (int s = 0; s < top.n; ++s) {
        const int i = top.top[s].i, j = top.top[s].j, k = top.top[s].k;
        const float c0 = float(i), c1 = float(j - i), c2 = float(k - j), c3 = float(n - k);
        float A, B, C;
        if (four)
            A = 9 * c0 + 4 * c1 + c2, C = 2 * (c1 + c2), B = 9 * c3 + c1 + 4 * c2;
        else
            A = 4 * c0 + c1, C = c1, B = 4 * float(n - j) + c1;
        const float D = A * B - C * C;
        float e0[3], e1[3];
        for (int ch = 0; ch < 3; ++ch) {
            float ax = P[ch][i] + P[ch][j] + (four ? P[ch][k] : 0.0f);
            float bx = mul * P[ch][n] - ax;
            e0[ch] = std::clamp(mul * (B * ax - C * bx) / D, 0.0f, 255.0f);
            e1[ch] = std::clamp(mul * (A * bx - C * ax) / D, 0.0f, 255.0f);
        }
        Candidate c;
        try_endpoints(t, e0, e1, four, force_four, c);
        refine(t, c, force_four);
        if (c.err < best.err) best = c;
    }
}

void cluster_fit(const Texels& t, const float axis[3], bool four, bool force_four, int keep, Candidate& best) {
    AxisOrder o;
    order_along_axis(t, axis, o);
    TopSplits top;
    top.keep = std::clamp(keep, 1, 8);
    if (four)
        search_four(t, o, top);
    else
        search_three(t, o, top);
    solve_splits(t, o, top, four, force_four, best);
}

// Exact (or nearest) single colour via the interpolant tables.
void solid(const Texels& t, int r, int g, int b, bool four_allowed, bool three_allowed, bool force_four,
           Candidate& best) {
    using namespace tables;
    if (four_allowed) {
        uint16_t hi = pack565(kThird5[r].hi, kThird6[g].hi, kThird5[b].hi);
        uint16_t lo = pack565(kThird5[r].lo, kThird6[g].lo, kThird5[b].lo);
        if (hi > lo || force_four)
            evaluate(t, hi, lo, force_four, best); // index 2 of (hi, lo)
        else if (hi < lo)
            evaluate(t, lo, hi, false, best); // index 3 of (lo, hi): same value
        else
            evaluate(t, hi, lo, false, best); // one colour, exact endpoint
    }
    if (three_allowed) {
        uint16_t x = pack565(kHalf5[r].hi, kHalf6[g].hi, kHalf5[b].hi);
        uint16_t y = pack565(kHalf5[r].lo, kHalf6[g].lo, kHalf5[b].lo);
        evaluate(t, std::min(x, y), std::max(x, y), false, best);
    }
}

void store(const Candidate& c, uint8_t out[8]) {
    uint32_t idx = c.idx;
    if (c.four && c.c0 == c.c1) idx = 0; // only under force_four: every entry is the same colour
    out[0] = uint8_t(c.c0);
    out[1] = uint8_t(c.c0 >> 8);
    out[2] = uint8_t(c.c1);
    out[3] = uint8_t(c.c1 >> 8);
    std::memcpy(out + 4, &idx, 4);
}

// sRGB-encoded values: errors in dark texels matter less in linear light.
float linear_slope(float v) {
    float x = v / 255.0f;
    if (x <= 0.04045f) return 1 / 12.92f;
    return 2.4f / 1.055f * std::pow((x + 0.055f) / 1.055f, 1.4f);
}

// Work per level, measured on the corpus with bench/bc_bench (see the report):
// least squares from the principal-axis extremes, the 3-colour palette,
// cluster fit (the main quality step), greedy endpoint moves.
struct Effort {
    int ls_iters;
    bool three_ls;
    int cf_keep, cf_rounds;
    bool cf_three;
    int perturb_passes, perturb_reach;
};
constexpr Effort kEffort[11] = {
    {1, false, 0, 0, false, 0, 0}, // 0 fast
    {2, true, 0, 0, false, 0, 0},  // 1
    {2, true, 0, 0, false, 1, 1},  // 2
    {2, true, 1, 1, false, 1, 1},  // 3 normal
    {3, true, 1, 1, true, 1, 1},   // 4
    {3, true, 2, 1, true, 1, 1},   // 5
    {3, true, 2, 1, true, 2, 1},   // 6 high
    {3, true, 3, 2, true, 2, 1},   // 7
    {4, true, 4, 2, true, 2, 2},   // 8
    {4, true, 6, 2, true, 4, 2},   // 9
    {4, true, 8, 3, true, 8, 2},   // 10 max
};

// Error weights per channel for the options (the same in every path).
inline ColourWeights channel_weights(const uint8_t rgba[64], const EncodeOptions& opt) {
    ColourWeights w;
    if (!opt.perceptual && !opt.srgb) return w;
    if (opt.perceptual) w.r = 0.2126f * 3, w.g = 0.7152f * 3, w.b = 0.0722f * 3;
    if (opt.srgb) {
        int m[3] = {};
        for (int i = 0; i < 16; ++i) m[0] += rgba[4 * i], m[1] += rgba[4 * i + 1], m[2] += rgba[4 * i + 2];
        float s0 = linear_slope(float(m[0]) / 16), s1 = linear_slope(float(m[1]) / 16),
              s2 = linear_slope(float(m[2]) / 16);
        w.r *= s0 * s0;
        w.g *= s1 * s1;
        w.b *= s2 * s2;
    }
    return w;
}

// Texels with alpha at or above the threshold, as a 16-bit mask.
uint32_t opaque_texels(const uint8_t rgba[64], uint8_t threshold) {
    const __m128i alpha = _mm_setr_epi8(-1, -1, -1, 3, -1, -1, -1, 7, -1, -1, -1, 11, -1, -1, -1, 15);
    const __m128i th = _mm_set1_epi8(char(threshold));
    uint32_t mask = 0;
    for (int q = 0; q < 4; ++q) {
        __m128i a = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(rgba + 16 * q)), alpha);
        // a >= th  <=>  max(a, th) == a, on the alpha byte of each texel
        __m128i ge = _mm_cmpeq_epi8(_mm_max_epu8(a, th), a);
        mask |= uint32_t(_mm_movemask_ps(_mm_castsi128_ps(ge))) << (4 * q);
    }
    return mask;
}

bool one_colour(const uint8_t rgba[64]) {
    const __m128i mask = _mm_set1_epi32(0x00ffffff);
    const __m128i first = _mm_and_si128(_mm_set1_epi32(int(uint32_t(rgba[0]) | rgba[1] << 8 | rgba[2] << 16)), mask);
    __m128i diff = _mm_setzero_si128();
    for (int i = 0; i < 4; ++i)
        diff = _mm_or_si128(
            diff, _mm_xor_si128(_mm_and_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(rgba + 16 * i)), mask),
                                first));
    return _mm_testz_si128(diff, diff);
}

// A block of one opaque colour, straight from the single-colour tables: the
// value at index 2 of the 4-colour palette (or 3 with the endpoints swapped),
// or the 3-colour midpoint when that is closer and allowed. The tables'
// errors are the per-channel minima over every index, so this is optimal.
void solid_opaque(int r, int g, int b, const ColourWeights& w, bool force_four, bool three_allowed, uint8_t out[8]) {
    using namespace tables;
    uint16_t c0 = pack565(kThird5[r].hi, kThird6[g].hi, kThird5[b].hi);
    uint16_t c1 = pack565(kThird5[r].lo, kThird6[g].lo, kThird5[b].lo);
    uint32_t idx = 0xaaaaaaaa; // index 2 everywhere
    if (c0 == c1)
        idx = 0;
    else if (c0 < c1 && !force_four)
        std::swap(c0, c1), idx = 0xffffffff; // index 3 of (c1, c0): same value
    auto sq = [](int e) { return float(e * e); };
    if (three_allowed) {
        const float e4 = w.r * sq(kThird5[r].err) + w.g * sq(kThird6[g].err) + w.b * sq(kThird5[b].err);
        const float e3 = w.r * sq(kHalf5[r].err) + w.g * sq(kHalf6[g].err) + w.b * sq(kHalf5[b].err);
        if (e3 < e4) {
            const uint16_t x = pack565(kHalf5[r].hi, kHalf6[g].hi, kHalf5[b].hi);
            const uint16_t y = pack565(kHalf5[r].lo, kHalf6[g].lo, kHalf5[b].lo);
            c0 = std::min(x, y), c1 = std::max(x, y), idx = x == y ? 0 : 0xaaaaaaaa; // 3-colour (c0 <= c1)
        }
    }
    out[0] = uint8_t(c0);
    out[1] = uint8_t(c0 >> 8);
    out[2] = uint8_t(c1);
    out[3] = uint8_t(c1 >> 8);
    std::memcpy(out + 4, &idx, 4);
}

// Which palettes a block may use.
struct Palettes {
    bool four;       // the 4-colour palette (every texel opaque, or BC2/3 colour)
    bool three;      // the 3-colour palette
    bool force_four; // BC2/3 colour: 4 colours whatever the endpoint order
};

// Splits the texels into R, G, B float lanes, 4 texels per SSE load; true
// when every texel has the RGB of texel 0.
inline bool load_texels(const uint8_t rgba[64], Texels& t) {
    bool solid_block = true;
    const __m128i rgb_mask = _mm_set1_epi32(0x00ffffff);
    const __m128i first = _mm_set1_epi32(int(uint32_t(rgba[0]) | rgba[1] << 8 | rgba[2] << 16));
    for (int q = 0; q < 4; ++q) {
        __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rgba + 16 * q));
        _mm_store_ps(t.r + 4 * q, _mm_cvtepi32_ps(_mm_and_si128(x, _mm_set1_epi32(0xff))));
        _mm_store_ps(t.g + 4 * q, _mm_cvtepi32_ps(_mm_and_si128(_mm_srli_epi32(x, 8), _mm_set1_epi32(0xff))));
        _mm_store_ps(t.b + 4 * q, _mm_cvtepi32_ps(_mm_and_si128(_mm_srli_epi32(x, 16), _mm_set1_epi32(0xff))));
        solid_block = solid_block && _mm_movemask_epi8(_mm_cmpeq_epi32(_mm_and_si128(x, rgb_mask), first)) == 0xffff;
    }
    return solid_block;
}

// Solid colour over the opaque texels: the table lookup is optimal, so it is
// the answer when it applies (true).
inline bool solid_over_opaque(const Texels& t, const Palettes& p, Candidate& best) {
    const uint32_t opaque = t.opaque_mask;
    int first = __builtin_ctz(opaque);
    bool same = true;
    for (int i = 0; i < 16 && same; ++i)
        if ((opaque >> i) & 1) same = t.r[i] == t.r[first] && t.g[i] == t.g[first] && t.b[i] == t.b[first];
    if (!same) return false;
    solid(t, int(t.r[first]), int(t.g[first]), int(t.b[first]), p.four, p.three, p.force_four, best);
    return true;
}

// The colour line: mean, principal axis, and the endpoints at the extremes of
// the opaque texels' projections onto it.
struct ColourLine {
    float mean[3], axis[3];
    float hi[3], lo[3];
};

inline void fit_line(const Texels& t, ColourLine& line) {
    principal_axis(t, line.mean, line.axis);
    const float* mean = line.mean;
    const float* axis = line.axis;
    float tmin = 3.4e38f, tmax = -3.4e38f;
    for (int i = 0; i < 16; ++i) { // transparent texels are pushed to the projection's middle (0)
        float m = float((t.opaque_mask >> i) & 1);
        float p = m * ((t.r[i] - mean[0]) * axis[0] + (t.g[i] - mean[1]) * axis[1] + (t.b[i] - mean[2]) * axis[2]);
        tmin = std::min(tmin, p), tmax = std::max(tmax, p);
    }
    for (int c = 0; c < 3; ++c) {
        line.hi[c] = std::clamp(mean[c] + axis[c] * tmax, 0.0f, 255.0f);
        line.lo[c] = std::clamp(mean[c] + axis[c] * tmin, 0.0f, 255.0f);
    }
}

// Least squares from the line's extremes, in each allowed palette.
inline void least_squares(const Texels& t, const ColourLine& line, const Effort& e, const Palettes& p,
                          Candidate& best) {
    if (p.four) {
        Candidate c;
        try_endpoints(t, line.hi, line.lo, true, p.force_four, c);
        for (int i = 0; i < e.ls_iters && refine(t, c, p.force_four); ++i) {
        }
        if (c.err < best.err) best = c;
    }
    if (p.three && (e.three_ls || !p.four)) {
        Candidate c;
        try_endpoints(t, line.hi, line.lo, false, false, c);
        for (int i = 0; i < e.ls_iters && refine(t, c, false); ++i) {
        }
        if (c.err < best.err) best = c;
    }
}

// Cluster fit rounds, each along the direction of the best endpoints so far.
inline void cluster_rounds(const Texels& t, const float axis[3], const Effort& e, const Palettes& p, Candidate& best) {
    float ax[3] = {axis[0], axis[1], axis[2]};
    for (int r = 0; r < e.cf_rounds; ++r) {
        if (p.four) cluster_fit(t, ax, true, p.force_four, e.cf_keep, best);
        if (p.three && (e.cf_three || !p.four)) cluster_fit(t, ax, false, false, e.cf_keep, best);
        uint8_t pal[16];
        bc1_palette(best.c0, best.c1, true, pal);
        float d[3] = {float(pal[0]) - pal[4], float(pal[1]) - pal[5], float(pal[2]) - pal[6]};
        float l = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        if (l < 1e-3f) break;
        for (int c = 0; c < 3; ++c) ax[c] = d[c] / l;
    }
}

void encode_colour(const uint8_t rgba[64], uint8_t out[8], const EncodeOptions& opt, bool force_four) {
    const bool punch = !force_four && opt.bc1_punchthrough;
    const uint32_t opaque = punch ? opaque_texels(rgba, opt.alpha_threshold) : 0xffff;
    const int level = std::clamp(opt.level, 0, 10);
    if (opaque == 0xffff) {
        if (one_colour(rgba)) {
            solid_opaque(rgba[0], rgba[1], rgba[2], channel_weights(rgba, opt), force_four,
                         !force_four && opt.bc1_3color, out);
            return;
        }
        if (level == 0) {
            encode_colour_fast(rgba, out, channel_weights(rgba, opt));
            return;
        }
    }

    Texels t;
    const bool solid_block = load_texels(rgba, t);
    t.opaque_mask = opaque;
    t.count = __builtin_popcount(opaque);
    if (t.count == 0) { // all transparent: 3-colour mode, every index 3
        const uint8_t b[8] = {0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
        std::memcpy(out, b, 8);
        return;
    }
    const ColourWeights w = channel_weights(rgba, opt);
    t.wr = w.r, t.wg = w.g, t.wb = w.b;
    // Translucent texels force the 3-colour palette; otherwise both are allowed.
    const Palettes p{force_four || t.count == 16, !force_four && (t.count < 16 || opt.bc1_3color), force_four};

    Candidate best;
    if ((opaque != 0xffff || solid_block) && solid_over_opaque(t, p, best)) {
        store(best, out);
        return;
    }

    ColourLine line;
    fit_line(t, line);
    const Effort& e = kEffort[level];
    least_squares(t, line, e, p, best);
    // The mean colour reproduced exactly (single-colour tables): smooth blocks whose extent
    // is below the 565 steps are often best served by it, and the searches below start from it.
    solid(t, int(line.mean[0] + 0.5f), int(line.mean[1] + 0.5f), int(line.mean[2] + 0.5f), p.four, p.three, force_four,
          best);
    if (e.cf_keep) cluster_rounds(t, line.axis, e, p, best);
    if (e.perturb_passes) {
        perturb(t, best, force_four, e.perturb_passes, e.perturb_reach);
        refine(t, best, force_four);
    }
    store(best, out);
}

} // namespace

void encode_bc1(const uint8_t rgba[64], uint8_t out[8], const EncodeOptions& opt) {
    encode_colour(rgba, out, opt, false);
}

void encode_colour4(const uint8_t rgba[64], uint8_t out[8], const EncodeOptions& opt) {
    EncodeOptions o = opt;
    o.bc1_punchthrough = false;
    encode_colour(rgba, out, o, true);
}

} // namespace af::bc
