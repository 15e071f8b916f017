// BC1 colour-block encoder (BC1 itself, and the colour half of BC2/BC3).
//
// Every candidate pair of endpoints is scored against the exact decoder
// palette (bc_block.hpp) with optimal per-texel index choice, so rounding of
// the 565 endpoints and of the interpolants is part of the search. Levels add
// work in this order: least-squares refinement (0+), the 3-colour palette
// (1+), greedy ±1 moves of the six endpoint components (3+), cluster fit over
// orderings along the principal axis (5+), more of everything up to 10.
#include "bc1_tables.hpp"
#include "bc_block.hpp"

#include <algorithm>
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
    auto q = [](float v, int bits) {
        int n = (1 << bits) - 1;
        int x = int(std::clamp(v, 0.0f, 255.0f) * (float(n) / 255.0f) + 0.5f);
        // Bit replication makes rounding off by one near some values: check neighbours.
        int best = x;
        float be = std::fabs(float(tables::expand(x, bits)) - v);
        for (int y = std::max(0, x - 1); y <= std::min(n, x + 1); ++y) {
            float e = std::fabs(float(tables::expand(y, bits)) - v);
            if (e < be) be = e, best = y;
        }
        return best;
    };
    return pack565(q(r, 5), q(g, 6), q(b, 5));
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
            __m128i opaque = _mm_setr_epi32(-int((t.opaque_mask >> (4 * q)) & 1), -int((t.opaque_mask >> (4 * q + 1)) & 1),
                                            -int((t.opaque_mask >> (4 * q + 2)) & 1),
                                            -int((t.opaque_mask >> (4 * q + 3)) & 1));
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
void try_endpoints(const Texels& t, const float e0[3], const float e1[3], bool four, bool force_four,
                   Candidate& best) {
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
        aa += s * s; ab += s * u; bb += u * u;
        ax[0] += s * t.r[i]; ax[1] += s * t.g[i]; ax[2] += s * t.b[i];
        bx[0] += u * t.r[i]; bx[1] += u * t.g[i]; bx[2] += u * t.b[i];
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
    float n = 0, m[3] = {};
    for (int i = 0; i < 16; ++i)
        if ((t.opaque_mask >> i) & 1) m[0] += t.r[i], m[1] += t.g[i], m[2] += t.b[i], n += 1;
    for (int c = 0; c < 3; ++c) mean[c] = m[c] / n;
    float cov[6] = {};
    for (int i = 0; i < 16; ++i) {
        if (!((t.opaque_mask >> i) & 1)) continue;
        float r = t.r[i] - mean[0], g = t.g[i] - mean[1], b = t.b[i] - mean[2];
        cov[0] += r * r; cov[1] += r * g; cov[2] += r * b; cov[3] += g * g; cov[4] += g * b; cov[5] += b * b;
    }
    // Power iteration from the row of largest variance.
    float v[3];
    if (cov[0] >= cov[3] && cov[0] >= cov[5]) v[0] = cov[0], v[1] = cov[1], v[2] = cov[2];
    else if (cov[3] >= cov[5]) v[0] = cov[1], v[1] = cov[3], v[2] = cov[4];
    else v[0] = cov[2], v[1] = cov[4], v[2] = cov[5];
    for (int it = 0; it < 6; ++it) {
        float x = cov[0] * v[0] + cov[1] * v[1] + cov[2] * v[2];
        float y = cov[1] * v[0] + cov[3] * v[1] + cov[4] * v[2];
        float z = cov[2] * v[0] + cov[4] * v[1] + cov[5] * v[2];
        float l = std::max({std::fabs(x), std::fabs(y), std::fabs(z)});
        if (l < 1e-12f) break;
        v[0] = x / l; v[1] = y / l; v[2] = z / l;
    }
    float l = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (l < 1e-12f) v[0] = v[1] = v[2] = 0.57735f, l = 1;
    for (int c = 0; c < 3; ++c) axis[c] = v[c] / l;
}

// Cluster fit: texels ordered along `axis`; every split of the ordering into
// consecutive runs per palette entry gets its least-squares endpoints and
// analytic error; the best few are quantised and scored exactly.
void cluster_fit(const Texels& t, const float axis[3], bool four, bool force_four, int keep, Candidate& best) {
    int order[16], n = 0;
    float key[16];
    for (int i = 0; i < 16; ++i)
        if ((t.opaque_mask >> i) & 1) key[n] = t.r[i] * axis[0] + t.g[i] * axis[1] + t.b[i] * axis[2], order[n++] = i;
    for (int i = 1; i < n; ++i) // insertion sort: n <= 16
        for (int j = i; j > 0 && key[j] < key[j - 1]; --j) std::swap(key[j], key[j - 1]), std::swap(order[j], order[j - 1]);
    // Prefix sums of colour along the ordering.
    float pr[17][3] = {};
    for (int i = 0; i < n; ++i) {
        int k = order[i];
        pr[i + 1][0] = pr[i][0] + t.r[k]; pr[i + 1][1] = pr[i][1] + t.g[k]; pr[i + 1][2] = pr[i][2] + t.b[k];
    }
    const float w[3] = {t.wr, t.wg, t.wb};
    struct Fit { float err; float e0[3], e1[3]; };
    Fit top[8];
    int ntop = 0;
    keep = std::min(keep, 8);
    auto consider = [&](float s_aa, float s_ab, float s_bb, const float ax[3], const float bx[3]) {
        float det = s_aa * s_bb - s_ab * s_ab;
        if (det < 1e-4f) return;
        Fit f;
        float err = 0;
        for (int c = 0; c < 3; ++c) {
            float a = (s_bb * ax[c] - s_ab * bx[c]) / det, b = (s_aa * bx[c] - s_ab * ax[c]) / det;
            f.e0[c] = a; f.e1[c] = b;
            // Σ(x - (s a + u b))² minus the constant Σx², enough for ranking.
            err += w[c] * (s_aa * a * a + 2 * s_ab * a * b + s_bb * b * b - 2 * (a * ax[c] + b * bx[c]));
        }
        f.err = err;
        if (ntop < keep) {
            top[ntop++] = f;
        } else {
            int worst = 0;
            for (int i = 1; i < ntop; ++i) if (top[i].err > top[worst].err) worst = i;
            if (err >= top[worst].err) return;
            top[worst] = f;
        }
    };
    if (four) {
        // runs: [0,i) → endpoint 0 weight 1, [i,j) → 2/3, [j,k) → 1/3, [k,n) → 0
        for (int i = 0; i <= n; ++i)
            for (int j = i; j <= n; ++j)
                for (int k = j; k <= n; ++k) {
                    float c1 = float(j - i), c2 = float(k - j), c0 = float(i), c3 = float(n - k);
                    float s_aa = c0 + c1 * (4 / 9.f) + c2 * (1 / 9.f);
                    float s_ab = (c1 + c2) * (2 / 9.f);
                    float s_bb = c3 + c1 * (1 / 9.f) + c2 * (4 / 9.f);
                    float ax[3], bx[3];
                    for (int c = 0; c < 3; ++c) {
                        float S0 = pr[i][c], S1 = pr[j][c] - pr[i][c], S2 = pr[k][c] - pr[j][c], S3 = pr[n][c] - pr[k][c];
                        ax[c] = S0 + S1 * (2 / 3.f) + S2 * (1 / 3.f);
                        bx[c] = S3 + S1 * (1 / 3.f) + S2 * (2 / 3.f);
                    }
                    consider(s_aa, s_ab, s_bb, ax, bx);
                }
    } else {
        for (int i = 0; i <= n; ++i)
            for (int j = i; j <= n; ++j) {
                float c0 = float(i), c1 = float(j - i), c2 = float(n - j);
                float s_aa = c0 + c1 * 0.25f, s_ab = c1 * 0.25f, s_bb = c2 + c1 * 0.25f;
                float ax[3], bx[3];
                for (int c = 0; c < 3; ++c) {
                    float S0 = pr[i][c], S1 = pr[j][c] - pr[i][c], S2 = pr[n][c] - pr[j][c];
                    ax[c] = S0 + S1 * 0.5f;
                    bx[c] = S2 + S1 * 0.5f;
                }
                consider(s_aa, s_ab, s_bb, ax, bx);
            }
    }
    for (int i = 0; i < ntop; ++i) {
        for (int c = 0; c < 3; ++c) top[i].e0[c] = std::clamp(top[i].e0[c], 0.0f, 255.0f), top[i].e1[c] = std::clamp(top[i].e1[c], 0.0f, 255.0f);
        Candidate c;
        try_endpoints(t, top[i].e0, top[i].e1, four, force_four, c);
        refine(t, c, force_four);
        if (c.err < best.err) best = c;
    }
}

// Exact (or nearest) single colour via the interpolant tables.
void solid(const Texels& t, int r, int g, int b, bool four_allowed, bool force_four, Candidate& best) {
    using namespace tables;
    if (four_allowed) {
        uint16_t hi = pack565(kThird5[r].hi, kThird6[g].hi, kThird5[b].hi);
        uint16_t lo = pack565(kThird5[r].lo, kThird6[g].lo, kThird5[b].lo);
        if (hi > lo || force_four) evaluate(t, hi, lo, force_four, best); // index 2 of (hi, lo)
        else if (hi < lo) evaluate(t, lo, hi, false, best);                // index 3 of (lo, hi): same value
        else evaluate(t, hi, lo, false, best);                             // one colour, exact endpoint
    }
    if (!force_four) {
        uint16_t x = pack565(kHalf5[r].hi, kHalf6[g].hi, kHalf5[b].hi);
        uint16_t y = pack565(kHalf5[r].lo, kHalf6[g].lo, kHalf5[b].lo);
        evaluate(t, std::min(x, y), std::max(x, y), false, best);
    }
}

void store(const Candidate& c, uint8_t out[8]) {
    uint32_t idx = c.idx;
    if (c.four && c.c0 == c.c1) idx = 0; // only under force_four: every entry is the same colour
    out[0] = uint8_t(c.c0); out[1] = uint8_t(c.c0 >> 8);
    out[2] = uint8_t(c.c1); out[3] = uint8_t(c.c1 >> 8);
    std::memcpy(out + 4, &idx, 4);
}

// sRGB-encoded values: errors in dark texels matter less in linear light.
float linear_slope(float v) {
    float x = v / 255.0f;
    if (x <= 0.04045f) return 1 / 12.92f;
    return 2.4f / 1.055f * std::pow((x + 0.055f) / 1.055f, 1.4f);
}

void encode_colour(const uint8_t rgba[64], uint8_t out[8], const EncodeOptions& opt, bool force_four) {
    Texels t;
    uint32_t opaque = 0;
    const bool punch = !force_four && opt.bc1_punchthrough;
    for (int i = 0; i < 16; ++i) {
        t.r[i] = rgba[4 * i]; t.g[i] = rgba[4 * i + 1]; t.b[i] = rgba[4 * i + 2];
        if (!punch || rgba[4 * i + 3] >= opt.alpha_threshold) opaque |= 1u << i;
    }
    t.opaque_mask = opaque;
    t.count = __builtin_popcount(opaque);
    if (t.count == 0) { // all transparent: 3-colour mode, every index 3
        const uint8_t b[8] = {0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
        std::memcpy(out, b, 8);
        return;
    }
    if (opt.perceptual) t.wr = 0.2126f * 3, t.wg = 0.7152f * 3, t.wb = 0.0722f * 3;
    if (opt.srgb) {
        float m[3] = {};
        for (int i = 0; i < 16; ++i) m[0] += t.r[i], m[1] += t.g[i], m[2] += t.b[i];
        float s0 = linear_slope(m[0] / 16), s1 = linear_slope(m[1] / 16), s2 = linear_slope(m[2] / 16);
        t.wr *= s0 * s0; t.wg *= s1 * s1; t.wb *= s2 * s2;
    }
    // Translucent texels force the 3-colour palette; otherwise both are allowed.
    const bool four_allowed = force_four || t.count == 16;
    const bool three_allowed = !force_four && (t.count < 16 || opt.bc1_3color);
    const int level = std::clamp(opt.level, 0, 10);

    Candidate best;
    // Solid colour (over the opaque texels): table lookup is optimal.
    {
        int first = __builtin_ctz(opaque);
        bool same = true;
        for (int i = 0; i < 16 && same; ++i)
            if ((opaque >> i) & 1)
                same = t.r[i] == t.r[first] && t.g[i] == t.g[first] && t.b[i] == t.b[first];
        if (same) {
            solid(t, int(t.r[first]), int(t.g[first]), int(t.b[first]), four_allowed, force_four, best);
            store(best, out);
            return;
        }
    }

    float mean[3], axis[3];
    principal_axis(t, mean, axis);
    float tmin = 3.4e38f, tmax = -3.4e38f;
    for (int i = 0; i < 16; ++i) {
        if (!((opaque >> i) & 1)) continue;
        float p = (t.r[i] - mean[0]) * axis[0] + (t.g[i] - mean[1]) * axis[1] + (t.b[i] - mean[2]) * axis[2];
        tmin = std::min(tmin, p), tmax = std::max(tmax, p);
    }
    float hi[3], lo[3];
    for (int c = 0; c < 3; ++c) {
        hi[c] = std::clamp(mean[c] + axis[c] * tmax, 0.0f, 255.0f);
        lo[c] = std::clamp(mean[c] + axis[c] * tmin, 0.0f, 255.0f);
    }
    const int ls_iters = level == 0 ? 1 : level < 3 ? 2 : level < 6 ? 3 : 4;
    if (four_allowed) {
        Candidate c;
        try_endpoints(t, hi, lo, true, force_four, c);
        for (int i = 0; i < ls_iters && refine(t, c, force_four); ++i) {}
        if (c.err < best.err) best = c;
    }
    if (three_allowed && (level >= 1 || !four_allowed)) {
        Candidate c;
        try_endpoints(t, hi, lo, false, false, c);
        for (int i = 0; i < ls_iters && refine(t, c, false); ++i) {}
        if (c.err < best.err) best = c;
    }
    if (level >= 5) {
        const int keep = level >= 9 ? 6 : level >= 7 ? 3 : 1;
        const int rounds = level >= 8 ? 2 : 1;
        float ax[3] = {axis[0], axis[1], axis[2]};
        for (int r = 0; r < rounds; ++r) {
            if (four_allowed) cluster_fit(t, ax, true, force_four, keep, best);
            if (three_allowed && level >= 6) cluster_fit(t, ax, false, false, keep, best);
            // Iterate along the direction of the best endpoints found so far.
            uint8_t pal[16];
            bc1_palette(best.c0, best.c1, true, pal);
            float d[3] = {float(pal[0]) - pal[4], float(pal[1]) - pal[5], float(pal[2]) - pal[6]};
            float l = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            if (l < 1e-3f) break;
            for (int c = 0; c < 3; ++c) ax[c] = d[c] / l;
        }
    }
    if (level >= 3) {
        const int passes = level >= 9 ? 8 : level >= 6 ? 4 : 2;
        const int reach = level >= 8 ? 2 : 1;
        perturb(t, best, force_four, passes, reach);
        if (level >= 4) refine(t, best, force_four);
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
