// BC6H encoder (UF16 and SF16), quality levels 0–10.
//
// Works in the decoder's interpolation domain: a target half h corresponds to
// X = h·64/31 (unsigned) or ±|h|·32/31 (signed), in which interpolation is
// linear, and errors are measured as squared differences of half bit patterns
// (signed as sign-magnitude integers) — roughly a logarithmic error, as half
// floats are — with a floor 10 binades below the block's brightest value
// (metric()). Every mode is tried: for one region the four modes, for two
// regions the ten modes over the best-ranked partitions; endpoints are placed
// by principal axis + least squares, held to the block's per-channel range,
// quantised to the mode's precision, and deltas that do not fit are clamped
// before the final index assignment. A candidate that would decode outside the
// block's range by more than one endpoint step is refused (assign()).
#include "bc6h_modes.hpp"
#include "bit_stream.hpp"
#include "bptc.hpp"
#include "bptc_tables.hpp"

#include "assetforge/half.hpp"

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace af::bc {

namespace {

using namespace bc6h;

struct Bc6hLevel {
    int partitions;               // two-region partitions fitted (of 32)
    int refine;                   // least-squares rounds per candidate
    bool all_modes_per_partition; // every two-region mode for every partition (else the likeliest few)
};

Bc6hLevel bc6h_level(int level) {
    static const Bc6hLevel table[11] = {
        {1, 1, false}, {2, 1, false}, {2, 2, false}, {3, 2, false}, {3, 2, true},  {4, 2, true},
        {4, 3, true},  {6, 3, true},  {8, 3, true},  {12, 4, true}, {16, 4, true},
    };
    return table[std::clamp(level, 0, 10)];
}

struct HdrTexels {
    float x[16][3];       // fitting targets in the interpolation domain
    int h[16][3];         // source halves as integers (signed: sign-magnitude → int)
    int g[16][3];         // h as the error metric sees it (see metric())
    int lo[3], hi[3];     // per-channel range of h over the block
    float xlo[3], xhi[3]; // the same range in the interpolation domain: where endpoints may go
    int metric_floor;     // magnitudes up to this (half as integer) count as zero in the error
    bool is_signed;
};

int half_as_int(uint16_t h, bool is_signed) {
    if (is_signed && (h & 0x8000)) return -int(h & 0x7fff);
    return int(h);
}

float to_x(int h, bool is_signed) { return float(h) * (is_signed ? 32.0f : 64.0f) / 31.0f; }

// The error metric: squared differences of halves as integers (their bit
// patterns, 1024 codes per binade, so roughly a logarithmic error), with
// every magnitude up to `floor` counted as zero. Bit patterns alone put an
// exact 0 fifteen binades' worth of codes below 1.0 (as far as 1.0 is below
// 32768), so a zero channel in a bright block outweighed every other texel:
// endpoints went to 0, and the colours interpolated towards them came out
// ten times too bright or too dark, a mid-grey texel as a saturated colour.
// The floor sits kFloorBinades × 1024 codes below the block's largest
// magnitude: the error sees 1024:1 of contrast inside a block, and values
// darker than that may come back anywhere between the block's minimum and the
// floor. 8 measured best in both benches (an image metric with a fixed toe at
// 1.0 favours ignoring dark texels), 12 or more gave back part of the zeros'
// pull; 10 keeps a mid grey next to values up to 500 as a grey.
constexpr int kFloorBinades = 10;
int metric(int h, int floor) { return h - std::clamp(h, -floor, floor); }

// How far (half as integer) a decoded endpoint may lie outside the block's
// range: one step of the mode's endpoint precision, 2^(16 − epb) in the
// interpolation domain, which finish_unquantize scales by 31/64 (unsigned) or
// 31/32 (signed). Endpoints are placed inside the range and rounded to the
// nearest stored value, at most 0.75 of a step away (the steps next to 0 and
// to the largest value are 1.5 wide), so a candidate this refuses is a bug.
// Rounding inwards instead kept decoded values strictly inside, for 1 dB
// less in bptc_bench.
int step_tolerance(int epb, bool is_signed) {
    const int step_x = epb >= 16 ? 1 : 1 << (16 - epb);
    return (step_x * 31 + (is_signed ? 31 : 63)) / (is_signed ? 32 : 64);
}

// Stored endpoint value → interpolation domain (the decoder's unquantize).
int unq(int q, int epb, bool is_signed) { return unquantize(q, epb, is_signed); }

// Closest stored endpoint value to X for the given precision.
int quantize(float x, int epb, bool is_signed) {
    if (!is_signed) {
        const int qmax = (1 << epb) - 1;
        // Full precision: finish_unquantize floors x·31/64, so the ceiling of X decodes back to h exactly.
        if (epb >= 15) return std::clamp(int(std::ceil(x - 1e-3f)), 0, qmax);
        const int q0 = std::clamp(int(x * float(1 << epb) / 65536.0f), 0, qmax);
        int best = q0;
        float be = FLT_MAX;
        for (int q = std::max(0, q0 - 1); q <= std::min(qmax, q0 + 1); ++q) {
            const float e = std::fabs(float(unq(q, epb, false)) - x);
            if (e < be) be = e, best = q;
        }
        return best;
    }
    if (epb >= 16) {
        const int m = std::min(int(std::ceil(std::fabs(x) - 1e-3f)), 32767);
        return x < 0 ? -m : m;
    }
    const int mmax = (1 << (epb - 1)) - 1;
    const float m = std::fabs(x);
    const int q0 = std::clamp(int(m * float(1 << (epb - 1)) / 32768.0f), 0, mmax);
    int best = q0;
    float be = FLT_MAX;
    for (int q = std::max(0, q0 - 1); q <= std::min(mmax, q0 + 1); ++q) {
        const float e = std::fabs(float(unq(q, epb, true)) - m);
        if (e < be) be = e, best = q;
    }
    return x < 0 ? -best : best;
}

// Decoded halves (as integers) of an index's interpolation between two unquantized endpoints.
int decoded_value(int ua, int ub, int w, bool is_signed) {
    return half_as_int(finish_unquantize((ua * (64 - w) + ub * w + 32) >> 6, is_signed), is_signed);
}

struct RegionFit {
    float e[2][3]; // float endpoints in the interpolation domain
};

// Principal-axis endpoints of a region, oriented so the anchor texel is nearer e[0].
void initial_fit(const HdrTexels& tx, const uint8_t* texels, int n, int anchor, RegionFit& f) {
    float mean[3] = {};
    for (int i = 0; i < n; ++i)
        for (int c = 0; c < 3; ++c) mean[c] += tx.x[texels[i]][c];
    for (int c = 0; c < 3; ++c) mean[c] /= float(n);
    float cov[3][3] = {};
    for (int i = 0; i < n; ++i) {
        float d[3];
        for (int c = 0; c < 3; ++c) d[c] = tx.x[texels[i]][c] - mean[c];
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b) cov[a][b] += d[a] * d[b];
    }
    int start = 0;
    for (int c = 1; c < 3; ++c)
        if (cov[c][c] > cov[start][start]) start = c;
    float axis[3] = {cov[start][0], cov[start][1], cov[start][2]};
    for (int it = 0; it < 4; ++it) {
        float nx[3] = {}, mx = 0;
        for (int a = 0; a < 3; ++a) {
            for (int b = 0; b < 3; ++b) nx[a] += cov[a][b] * axis[b];
            mx = std::max(mx, std::fabs(nx[a]));
        }
        if (mx <= 0) break;
        for (int c = 0; c < 3; ++c) axis[c] = nx[c] / mx;
    }
    float len2 = axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2];
    if (len2 <= 1e-20f) {
        for (int k = 0; k < 2; ++k)
            for (int c = 0; c < 3; ++c) f.e[k][c] = mean[c];
        return;
    }
    float tmin = FLT_MAX, tmax = -FLT_MAX;
    for (int i = 0; i < n; ++i) {
        float t = 0;
        for (int c = 0; c < 3; ++c) t += (tx.x[texels[i]][c] - mean[c]) * axis[c];
        tmin = std::min(tmin, t), tmax = std::max(tmax, t);
    }
    float ta = 0;
    for (int c = 0; c < 3; ++c) ta += (tx.x[anchor][c] - mean[c]) * axis[c];
    if (ta - tmin > tmax - ta) std::swap(tmin, tmax);
    for (int c = 0; c < 3; ++c) {
        f.e[0][c] = mean[c] + tmin * axis[c] / len2;
        f.e[1][c] = mean[c] + tmax * axis[c] / len2;
    }
}

struct HdrCandidate {
    int mode = -1; // index into kModes
    int partition = 0;
    int q[4][3] = {}; // stored endpoints (full precision, before delta coding)
    uint8_t index[16] = {};
    double error = DBL_MAX;
};

// Chooses indices for quantised endpoints; anchors restricted to the lower half.
// A candidate whose endpoints decode outside the block's range (beyond one
// step) is refused: its error is DBL_MAX, so it never wins.
double assign(const HdrTexels& tx, const ModeLayout& m, const uint8_t* subset, uint16_t anchors, HdrCandidate& c) {
    const int ib = m.subsets == 2 ? 3 : 4, n = 1 << ib;
    const uint8_t* w = bptc::weights_for_bits(ib);
    const int tol = step_tolerance(m.epb, tx.is_signed);
    int pal[2][16 * 3]; // entry k, channel ch at 3k + ch: one flat run, so the metric below vectorises
    for (int s = 0; s < m.subsets; ++s) {
        int ua[3], ub[3];
        for (int ch = 0; ch < 3; ++ch) {
            ua[ch] = unq(c.q[2 * s][ch], m.epb, tx.is_signed);
            ub[ch] = unq(c.q[2 * s + 1][ch], m.epb, tx.is_signed);
        }
        for (int k = 0; k < n; ++k)
            for (int ch = 0; ch < 3; ++ch) pal[s][3 * k + ch] = decoded_value(ua[ch], ub[ch], w[k], tx.is_signed);
        // Interpolation is monotonic, so the two ends bound every entry.
        for (int ch = 0; ch < 3; ++ch) {
            const int a = pal[s][ch], b = pal[s][3 * (n - 1) + ch];
            if (std::min(a, b) < tx.lo[ch] - tol || std::max(a, b) > tx.hi[ch] + tol) {
                c.error = DBL_MAX;
                return DBL_MAX;
            }
        }
        for (int i = 0; i < 3 * n; ++i) pal[s][i] = metric(pal[s][i], tx.metric_floor);
    }
    double total = 0;
    for (int t = 0; t < 16; ++t) {
        const int s = subset[t];
        const int limit = (anchors >> t) & 1 ? n / 2 : n;
        int64_t best = INT64_MAX;
        int bi = 0;
        for (int k = 0; k < limit; ++k) {
            int64_t e = 0;
            for (int ch = 0; ch < 3; ++ch) {
                const int64_t d = pal[s][3 * k + ch] - tx.g[t][ch];
                e += d * d;
            }
            if (e < best) best = e, bi = k;
        }
        c.index[t] = uint8_t(bi);
        total += double(best);
    }
    c.error = total;
    return total;
}

// Quantises float endpoints for a mode, clamping deltas that do not fit.
// Endpoints are held to the block's range first: least squares extrapolates
// past it, and such an endpoint decodes to values the block never had.
// A clamped delta leaves the endpoint between endpoint 0 and its target
// (both in range), so it stays in range too.
void quantize_endpoints(const RegionFit* fits, const ModeLayout& m, const HdrTexels& tx, HdrCandidate& c) {
    const bool is_signed = tx.is_signed;
    for (int s = 0; s < m.subsets; ++s)
        for (int k = 0; k < 2; ++k)
            for (int ch = 0; ch < 3; ++ch)
                c.q[2 * s + k][ch] = quantize(std::clamp(fits[s].e[k][ch], tx.xlo[ch], tx.xhi[ch]), m.epb, is_signed);
    if (!m.transformed) return;
    for (int i = 1; i < 2 * m.subsets; ++i)
        for (int ch = 0; ch < 3; ++ch) {
            const int lo = -(1 << (m.delta[ch] - 1)), hi = (1 << (m.delta[ch] - 1)) - 1;
            const int d = std::clamp(c.q[i][ch] - c.q[0][ch], lo, hi);
            int v = c.q[0][ch] + d;
            if (!is_signed)
                v = std::clamp(v, 0, (1 << m.epb) - 1);
            else
                v = std::clamp(v, -(1 << (m.epb - 1)), (1 << (m.epb - 1)) - 1);
            c.q[i][ch] = v;
        }
}

// Least-squares endpoints of each region for the candidate's indices.
void least_squares(const HdrTexels& tx, const ModeLayout& m, const uint8_t* subset, const HdrCandidate& c,
                   RegionFit* fits) {
    const uint8_t* w = bptc::weights_for_bits(m.subsets == 2 ? 3 : 4);
    for (int s = 0; s < m.subsets; ++s) {
        float aa = 0, ab = 0, bb = 0, ax[3] = {}, bx[3] = {};
        for (int t = 0; t < 16; ++t) {
            if (subset[t] != s) continue;
            const float b = float(w[c.index[t]]) / 64.0f, a = 1.0f - b;
            aa += a * a, ab += a * b, bb += b * b;
            for (int ch = 0; ch < 3; ++ch) ax[ch] += a * tx.x[t][ch], bx[ch] += b * tx.x[t][ch];
        }
        const float det = aa * bb - ab * ab;
        if (std::fabs(det) < 1e-6f) continue;
        for (int ch = 0; ch < 3; ++ch) {
            fits[s].e[0][ch] = (ax[ch] * bb - bx[ch] * ab) / det;
            fits[s].e[1][ch] = (bx[ch] * aa - ax[ch] * ab) / det;
        }
    }
}

void try_mode(const HdrTexels& tx, int mode, int partition, const RegionFit* initial, int refine, HdrCandidate& best) {
    const ModeLayout& m = kModes[mode];
    const uint8_t* subset = bptc::subset_map(m.subsets, partition);
    const uint16_t anchors = bptc::anchor_mask(m.subsets, partition);
    RegionFit fits[2] = {initial[0], initial[1]};
    HdrCandidate c;
    c.mode = mode;
    c.partition = partition;
    quantize_endpoints(fits, m, tx, c);
    assign(tx, m, subset, anchors, c);
    HdrCandidate local = c;
    for (int it = 0; it < refine && local.error > 0 && local.error < DBL_MAX; ++it) {
        least_squares(tx, m, subset, local, fits);
        // Keep each region's orientation (anchor near e0) so the anchor restriction costs little.
        quantize_endpoints(fits, m, tx, c);
        if (assign(tx, m, subset, anchors, c) < local.error)
            local = c;
        else
            break;
    }
    if (local.error < best.error) best = local;
}

// Sum of line-fit residuals of the two regions of a partition (in the X domain).
float partition_estimate(const HdrTexels& tx, int partition) {
    const uint8_t* subset = bptc::kSubsets2[partition].data();
    float e = 0;
    for (int s = 0; s < 2; ++s) {
        float n = 0, sum[3] = {}, cov[3][3] = {};
        for (int t = 0; t < 16; ++t)
            if (subset[t] == s) {
                n += 1;
                for (int c = 0; c < 3; ++c) sum[c] += tx.x[t][c];
            }
        if (n < 2) continue;
        float mean[3];
        for (int c = 0; c < 3; ++c) mean[c] = sum[c] / n;
        for (int t = 0; t < 16; ++t)
            if (subset[t] == s) {
                float d[3];
                for (int c = 0; c < 3; ++c) d[c] = tx.x[t][c] - mean[c];
                for (int a = 0; a < 3; ++a)
                    for (int b = 0; b < 3; ++b) cov[a][b] += d[a] * d[b];
            }
        const float trace = cov[0][0] + cov[1][1] + cov[2][2];
        float v[3] = {1, 1, 1}, lambda = 0;
        for (int it = 0; it < 4; ++it) {
            float nv[3] = {}, mx = 0;
            for (int a = 0; a < 3; ++a) {
                for (int b = 0; b < 3; ++b) nv[a] += cov[a][b] * v[b];
                mx = std::max(mx, std::fabs(nv[a]));
            }
            if (mx <= 0) break;
            for (int a = 0; a < 3; ++a) v[a] = nv[a] / mx;
            lambda = mx;
        }
        e += std::max(0.0f, trace - lambda);
    }
    return e;
}

void pack(const HdrCandidate& c, uint8_t out[16]) {
    const ModeLayout& m = kModes[c.mode];
    const ParsedLayout& layout = kLayouts[c.mode];
    int f[12] = {};
    for (int i = 0; i < 2 * m.subsets; ++i)
        for (int ch = 0; ch < 3; ++ch) {
            int v = c.q[i][ch];
            if (m.transformed && i > 0) v -= c.q[0][ch];
            f[3 * i + ch] = v;
        }
    BitWriter128 w;
    w.write(m.code, m.code_bits);
    for (int r = 0; r < layout.run_count; ++r) {
        const BitRun& run = layout.runs[r];
        uint32_t v = (uint32_t(f[run.field]) >> run.shift) & ((1u << run.count) - 1);
        if (run.reversed) v = reverse_bits(v, run.count);
        w.write(v, run.count);
    }
    if (m.subsets == 2) w.write(uint32_t(c.partition), 5);
    const uint16_t anchors = bptc::anchor_mask(m.subsets, c.partition);
    const int ib = m.subsets == 2 ? 3 : 4;
    for (int t = 0; t < 16; ++t) w.write(c.index[t], ib - ((anchors >> t) & 1));
    w.store(out);
}

} // namespace

void encode_bc6h_block(const float rgb[48], uint8_t out[16], const Bc6hOptions& opt) {
    HdrTexels tx;
    tx.is_signed = opt.is_signed;
    const float lo = opt.is_signed ? -65504.0f : 0.0f;
    int peak = 0;
    for (int t = 0; t < 16; ++t)
        for (int c = 0; c < 3; ++c) {
            float v = rgb[3 * t + c];
            if (!(v == v)) v = 0; // NaN
            v = std::clamp(v, lo, 65504.0f);
            tx.h[t][c] = half_as_int(af::float_to_half(v), opt.is_signed);
            peak = std::max(peak, std::abs(tx.h[t][c]));
        }
    tx.metric_floor = std::max(0, peak - kFloorBinades * 1024);
    for (int c = 0; c < 3; ++c) {
        tx.lo[c] = tx.hi[c] = tx.h[0][c];
        int sum = 0;
        for (int t = 0; t < 16; ++t) {
            tx.lo[c] = std::min(tx.lo[c], tx.h[t][c]), tx.hi[c] = std::max(tx.hi[c], tx.h[t][c]);
            sum += tx.h[t][c];
        }
        tx.xlo[c] = to_x(tx.lo[c], opt.is_signed), tx.xhi[c] = to_x(tx.hi[c], opt.is_signed);
        // Texels the metric counts as zero are fitted at the point of that
        // band nearest the channel's mean, not at their own value far below.
        const int near_zero = std::clamp(sum / 16, -tx.metric_floor, tx.metric_floor);
        for (int t = 0; t < 16; ++t) {
            const int h = tx.h[t][c];
            tx.g[t][c] = metric(h, tx.metric_floor);
            tx.x[t][c] = to_x(tx.g[t][c] == 0 ? near_zero : h, opt.is_signed);
        }
    }
    const Bc6hLevel lv = bc6h_level(opt.level);
    HdrCandidate best;

    // One region: modes 3, 7, 11, 15 (indices 10..13).
    static constexpr uint8_t kAll[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    RegionFit one[2];
    initial_fit(tx, kAll, 16, 0, one[0]);
    one[1] = one[0];
    for (int mode = 10; mode < 14; ++mode) try_mode(tx, mode, 0, one, lv.refine, best);

    // Two regions: rank the 32 partitions, fit the best few with every mode.
    std::array<std::pair<float, int>, 32> est;
    for (int p = 0; p < 32; ++p) est[p] = {partition_estimate(tx, p), p};
    const int np = std::min(lv.partitions, 32);
    std::partial_sort(est.begin(), est.begin() + np, est.end());
    for (int i = 0; i < np; ++i) {
        const int p = est[i].second;
        const uint8_t* subset = bptc::kSubsets2[p].data();
        RegionFit two[2];
        for (int s = 0; s < 2; ++s) {
            uint8_t texels[16];
            int n = 0;
            for (int t = 0; t < 16; ++t)
                if (subset[t] == s) texels[n++] = uint8_t(t);
            initial_fit(tx, texels, n, bptc::anchor_texel(2, p, s), two[s]);
        }
        if (lv.all_modes_per_partition || i == 0) {
            for (int mode = 0; mode < 10; ++mode) try_mode(tx, mode, p, two, lv.refine, best);
        } else {
            // Lower levels: the widest-delta mode of each precision family is enough for later partitions.
            for (int mode : {0, 1, 5, 9}) try_mode(tx, mode, p, two, lv.refine, best);
        }
    }
    pack(best, out);
}

} // namespace af::bc
