// BC7 encoder: every mode, quality levels 0–10. Each level decides how many
// partitions (ranked by a cheap line-fit estimate) are fitted for the
// partitioned modes, whether modes 4/5 try rotations, and how hard the
// per-subset endpoint fit works (see bc7_endpoint_fit.hpp).
#include "bc7_endpoint_fit.hpp"
#include "bc7_modes.hpp"
#include "bit_stream.hpp"
#include "bptc.hpp"
#include "bptc_tables.hpp"

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <cstring>

namespace af::bc {

namespace {

using bc7fit::EndpointFormat;
using bc7fit::FitParams;
using bc7fit::FitResult;
using bc7fit::Subset;

struct Encoding {
    int mode = -1, partition = 0, rotation = 0, index_sel = 0;
    int q[3][2][4] = {}; // stored endpoint fields [subset][endpoint][channel slot]
    int p[3][2] = {};
    uint8_t color_index[16] = {}, alpha_index[16] = {};
    float error = FLT_MAX;
};

// The best few encodings found so far, best first.
class TopList {
  public:
    explicit TopList(int capacity) : cap_(std::clamp(capacity, 1, kMax)) {}
    // n_ > 0 is implied by cap_ >= 1; spelled out for GCC's array-bounds check.
    float bound() const { return n_ < cap_ || n_ == 0 ? FLT_MAX : e_[n_ - 1].error; }
    void offer(const Encoding& enc) {
        if (enc.error >= bound()) return;
        int i = n_ < cap_ ? n_++ : n_ - 1;
        for (; i > 0 && e_[i - 1].error > enc.error; --i) e_[i] = e_[i - 1];
        e_[i] = enc;
    }
    int size() const { return n_; }
    const Encoding& operator[](int i) const { return e_[i]; }

  private:
    static constexpr int kMax = 8;
    Encoding e_[kMax];
    int cap_, n_ = 0;
};

struct LevelParams {
    int partitions2; // candidates fitted for modes 1, 3 (and 7)
    int partitions3; // candidates fitted for modes 0 and 2
    int rotations;   // rotations of modes 4/5 tried: 0, 1 (the best by estimate) or 3
    bool mode3;      // mode 3 as well as mode 1 for opaque blocks
    int shortlist;   // partitions kept by the cheap estimate before the line-fit estimate
    FitParams fit;   // first pass: every candidate mode / partition / rotation
    int refine;      // candidates of the first pass fitted again with `refit`
    FitParams refit;
};

LevelParams level_params(int level) {
    level = std::clamp(level, 0, 10);
    // partitions2, partitions3, rotations, mode3, shortlist, first-pass fit, refined candidates, refit
    // (fits: {least-squares rounds, perturbation passes, exhaustive indices, all p-bit combinations})
    static const LevelParams table[11] = {
        {1, 0, 0, true, 8, {1, 0, false, false}, 0, {}},                   // 0 fast
        {1, 0, 0, true, 8, {1, 0, false, false}, 1, {2, 0, false, true}},  // 1
        {1, 0, 1, true, 8, {1, 0, false, false}, 0, {}},                   // 2
        {1, 0, 1, true, 8, {1, 0, false, false}, 1, {2, 0, false, true}},  // 3 normal
        {1, 0, 1, true, 16, {1, 0, false, false}, 1, {2, 0, false, true}}, // 4
        {1, 0, 1, true, 8, {1, 0, false, false}, 1, {1, 1, false, false}}, // 5
        {1, 0, 1, true, 8, {1, 0, false, false}, 1, {1, 1, false, true}},  // 6 high
        {2, 1, 1, true, 8, {1, 0, false, false}, 1, {2, 1, false, true}},  // 7
        {4, 2, 3, true, 16, {1, 0, false, true}, 2, {3, 2, true, true}},   // 8
        {8, 4, 3, true, 16, {2, 0, false, true}, 3, {4, 4, true, true}},   // 9
        {16, 8, 3, true, 32, {2, 1, true, true}, 4, {6, 8, true, true}},   // 10 max
    };
    return table[level];
}

struct Block {
    float px[16][4];
    float w[4];
    float sw[4]; // square roots of w
    bool opaque;
};

// ---- partition ranking -----------------------------------------------------

// Per-texel moments (values and products) of the NC fitted channels, so a
// subset's covariance is a sum over its texels.
template <int NC> struct Moments {
    static constexpr int K = NC + NC * (NC + 1) / 2;
    float v[K] = {};
};

// Residual of the best line through a subset from its moments: trace minus
// the largest eigenvalue of the covariance, in weighted units.
template <int NC> float line_residual(const Moments<NC>& m, float n) {
    if (n < 2) return 0;
    float cov[NC][NC];
    int k = NC;
    for (int a = 0; a < NC; ++a)
        for (int b = a; b < NC; ++b, ++k) cov[a][b] = cov[b][a] = m.v[k] - m.v[a] * m.v[b] / n;
    float trace = 0;
    int start = 0;
    for (int a = 0; a < NC; ++a) {
        trace += cov[a][a];
        if (cov[a][a] > cov[start][start]) start = a;
    }
    if (trace <= 0) return 0;
    // Two power iterations from the dominant row, then the Rayleigh quotient.
    float v[NC], cv[NC] = {};
    for (int a = 0; a < NC; ++a) v[a] = cov[start][a];
    for (int a = 0; a < NC; ++a)
        for (int b = 0; b < NC; ++b) cv[a] += cov[a][b] * v[b];
    float mx = 0;
    for (int a = 0; a < NC; ++a) mx = std::max(mx, std::fabs(cv[a]));
    if (mx <= 0) return trace;
    const float inv = 1.0f / mx;
    float num = 0, den = 0;
    for (int a = 0; a < NC; ++a) v[a] = cv[a] * inv, den += v[a] * v[a];
    for (int a = 0; a < NC; ++a) {
        float r = 0;
        for (int b = 0; b < NC; ++b) r += cov[a][b] * v[b];
        num += v[a] * r;
    }
    const float lambda = num / den;
    return std::max(0.0f, trace - lambda);
}

// Partition subset masks (bit t set when texel t is in subset k), from the tables.
struct SubsetMasks {
    uint16_t m[2][64][3]; // [2 or 3 subsets][partition][subset]
};
consteval SubsetMasks make_subset_masks() {
    SubsetMasks s{};
    for (int p = 0; p < 64; ++p)
        for (int t = 0; t < 16; ++t) {
            s.m[0][p][bptc::kSubsets2[p][t]] |= uint16_t(1u << t);
            s.m[1][p][bptc::kSubsets3[p][t]] |= uint16_t(1u << t);
        }
    return s;
}
constexpr SubsetMasks kMasks = make_subset_masks();

template <int NC> struct RankInput {
    Moments<NC> per[16], total;
    float y[16][NC];
};

template <int NC> void rank_input(const Block& b, RankInput<NC>& in) {
    for (int t = 0; t < 16; ++t) {
        for (int c = 0; c < NC; ++c) in.y[t][c] = b.px[t][c] * b.sw[c];
        int k = NC;
        for (int a = 0; a < NC; ++a) {
            in.per[t].v[a] = in.y[t][a];
            for (int c = a; c < NC; ++c, ++k) in.per[t].v[k] = in.y[t][a] * in.y[t][c];
        }
        for (int i = 0; i < Moments<NC>::K; ++i) in.total.v[i] += in.per[t].v[i];
    }
}

// Cheap estimate: squared distance of texels to their subset means.
template <int NC> float cluster_residual(const RankInput<NC>& in, const uint16_t* masks, int subsets) {
    float s[3][NC] = {}, ss[3] = {}, n[3] = {};
    for (int k = 1; k < subsets; ++k)
        for (uint32_t m = masks[k]; m; m &= m - 1) {
            const int t = __builtin_ctz(m);
            for (int c = 0; c < NC; ++c) s[k][c] += in.y[t][c], ss[k] += in.y[t][c] * in.y[t][c];
            n[k] += 1;
        }
    n[0] = 16 - n[1] - n[2];
    float total_ss = 0;
    int kk = NC;
    for (int a = 0; a < NC; ++a)
        for (int c = a; c < NC; ++c, ++kk)
            if (a == c) total_ss += in.total.v[kk];
    ss[0] = total_ss - ss[1] - ss[2];
    for (int c = 0; c < NC; ++c) s[0][c] = in.total.v[c] - s[1][c] - s[2][c];
    float e = 0;
    for (int k = 0; k < subsets; ++k) {
        if (n[k] <= 0) continue;
        float m2 = 0;
        for (int c = 0; c < NC; ++c) m2 += s[k][c] * s[k][c];
        e += ss[k] - m2 / n[k];
    }
    return e;
}

template <int NC> float line_fit_residual(const RankInput<NC>& in, const uint16_t* masks, int subsets) {
    Moments<NC> sub[3];
    float n[3] = {0, 0, 0};
    for (int k = 1; k < subsets; ++k)
        for (uint32_t m = masks[k]; m; m &= m - 1) {
            const int t = __builtin_ctz(m);
            for (int i = 0; i < Moments<NC>::K; ++i) sub[k].v[i] += in.per[t].v[i];
            n[k] += 1;
        }
    n[0] = 16 - n[1] - n[2];
    for (int i = 0; i < Moments<NC>::K; ++i) sub[0].v[i] = in.total.v[i] - sub[1].v[i] - sub[2].v[i];
    float e = 0;
    for (int k = 0; k < subsets; ++k) e += line_residual<NC>(sub[k], n[k]);
    return e;
}

template <int NC>
int rank_partitions_nc(const Block& b, int subsets, int limit, int count, int shortlist_min, int* out) {
    RankInput<NC> in;
    rank_input<NC>(b, in);
    const auto& masks = kMasks.m[subsets - 2];
    count = std::min(count, limit);
    std::array<std::pair<float, int>, 64> est;
    // Shortlist by the cluster estimate (kept sorted by insertion), then order
    // the shortlist by the line-fit estimate.
    const int shortlist = std::min(limit, std::max(shortlist_min, 4 * count));
    if (shortlist < limit) {
        int n = 0;
        for (int p = 0; p < limit; ++p) {
            const float e = cluster_residual<NC>(in, masks[p], subsets);
            if (n == shortlist && e >= est[n - 1].first) continue;
            int i = n < shortlist ? n++ : n - 1;
            for (; i > 0 && est[i - 1].first > e; --i) est[i] = est[i - 1];
            est[i] = {e, p};
        }
    } else {
        for (int p = 0; p < limit; ++p) est[p] = {0.0f, p};
    }
    for (int i = 0; i < shortlist; ++i) est[i].first = line_fit_residual<NC>(in, masks[est[i].second], subsets);
    if (count == 1)
        std::swap(est[0], *std::min_element(est.begin(), est.begin() + shortlist));
    else
        std::partial_sort(est.begin(), est.begin() + count, est.begin() + shortlist);
    for (int i = 0; i < count; ++i) out[i] = est[i].second;
    return count;
}

// Rotation (1..3) whose colour part (the other two channels and alpha) lies
// closest to a line, i.e. the channel that least follows the others.
int best_rotation(const Block& b) {
    float best = FLT_MAX;
    int best_rot = 1;
    for (int rot = 1; rot < 4; ++rot) {
        Moments<3> m;
        for (int t = 0; t < 16; ++t) {
            float y[3];
            for (int c = 0; c < 3; ++c) y[c] = c == rot - 1 ? b.px[t][3] * b.sw[3] : b.px[t][c] * b.sw[c];
            int k = 3;
            for (int a = 0; a < 3; ++a) {
                m.v[a] += y[a];
                for (int c = a; c < 3; ++c, ++k) m.v[k] += y[a] * y[c];
            }
        }
        const float e = line_residual<3>(m, 16);
        if (e < best) best = e, best_rot = rot;
    }
    return best_rot;
}

// The `count` best partitions of `subsets`-subset layouts among the first `limit`.
int rank_partitions(const Block& b, int subsets, int limit, int count, int shortlist_min, int* out) {
    return b.opaque ? rank_partitions_nc<3>(b, subsets, limit, count, shortlist_min, out)
                    : rank_partitions_nc<4>(b, subsets, limit, count, shortlist_min, out);
}

// ---- mode fits ---------------------------------------------------------------

// Modes 0–3, 6 (opaque or not) and 7: one index set for all fitted channels.
void try_partitioned(const Block& b, int mode, int partition, const FitParams& fp, TopList& top) {
    const Bc7ModeInfo& m = kBc7Modes[mode];
    Encoding enc;
    enc.mode = mode;
    enc.partition = partition;
    EndpointFormat f{};
    const bool with_alpha = m.alpha_bits && !b.opaque;
    f.channels = with_alpha ? 4 : 3;
    for (int c = 0; c < 3; ++c) f.bits[c] = m.color_bits;
    f.bits[3] = m.alpha_bits;
    f.pbits = m.endpoint_pbits ? 2 : m.shared_pbits ? 1 : 0;
    f.force_p1 = m.alpha_bits && b.opaque; // opaque alpha needs all-ones endpoints with p = 1
    f.index_bits = m.index_bits;

    float error = 0;
    if (!m.alpha_bits)
        for (int t = 0; t < 16; ++t) error += b.w[3] * (255.0f - b.px[t][3]) * (255.0f - b.px[t][3]);
    const uint8_t* map = bptc::subset_map(m.subsets, partition);
    for (int k = 0; k < m.subsets; ++k) {
        uint8_t texels[16];
        int n = 0;
        for (int t = 0; t < 16; ++t)
            if (map[t] == k) texels[n++] = uint8_t(t);
        FitResult r;
        bc7fit::fit_subset(Subset{b.px, texels, n, b.w}, f, fp, r);
        error += r.error;
        if (error >= top.bound()) return;
        for (int e = 0; e < 2; ++e) {
            for (int c = 0; c < 4; ++c) enc.q[k][e][c] = r.q[e][c];
            if (m.alpha_bits && b.opaque) enc.q[k][e][3] = (1 << m.alpha_bits) - 1;
            enc.p[k][e] = r.p[e];
        }
        for (int i = 0; i < n; ++i) enc.color_index[texels[i]] = enc.alpha_index[texels[i]] = r.index[texels[i]];
    }
    enc.error = error;
    top.offer(enc);
}

// Modes 4 and 5: colour and a scalar channel with separate indices; rotation
// puts R, G or B in the scalar slot and alpha in its colour slot.
void try_separate_alpha(const Block& b, int mode, int rotation, int index_sel, const FitParams& fp, TopList& top) {
    const Bc7ModeInfo& m = kBc7Modes[mode];
    const int scalar_ch = rotation ? rotation - 1 : 3;
    float vec[16][4], sca[16][4];
    float wv[4], ws[4] = {b.w[scalar_ch], 0, 0, 0};
    for (int c = 0; c < 3; ++c) wv[c] = c == scalar_ch ? b.w[3] : b.w[c];
    for (int t = 0; t < 16; ++t) {
        for (int c = 0; c < 3; ++c) vec[t][c] = c == scalar_ch ? b.px[t][3] : b.px[t][c];
        sca[t][0] = b.px[t][scalar_ch];
    }
    static constexpr uint8_t kAll[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    const int color_ib = index_sel ? m.index2_bits : m.index_bits;
    const int alpha_ib = index_sel ? m.index_bits : (m.index2_bits ? m.index2_bits : m.index_bits);
    EndpointFormat fv{3, {m.color_bits, m.color_bits, m.color_bits, 0}, 0, false, color_ib};
    EndpointFormat fs{1, {m.alpha_bits, 0, 0, 0}, 0, false, alpha_ib};
    FitResult rv, rs;
    bc7fit::fit_subset(Subset{vec, kAll, 16, wv}, fv, fp, rv);
    if (rv.error >= top.bound()) return;
    bc7fit::fit_subset(Subset{sca, kAll, 16, ws}, fs, fp, rs);
    if (rv.error + rs.error >= top.bound()) return;
    Encoding enc;
    enc.mode = mode, enc.rotation = rotation, enc.index_sel = index_sel;
    for (int e = 0; e < 2; ++e) {
        for (int c = 0; c < 3; ++c) enc.q[0][e][c] = rv.q[e][c];
        enc.q[0][e][3] = rs.q[e][0];
    }
    memcpy(enc.color_index, rv.index, 16);
    memcpy(enc.alpha_index, rs.index, 16);
    enc.error = rv.error + rs.error;
    top.offer(enc);
}

// ---- packing -----------------------------------------------------------------

void swap_endpoints(Encoding& enc, int subset, int c_begin, int c_end) {
    for (int c = c_begin; c < c_end; ++c) std::swap(enc.q[subset][0][c], enc.q[subset][1][c]);
}

// Makes the top bit of every anchor index zero by swapping that subset's endpoints.
void fix_anchors(Encoding& enc) {
    const Bc7ModeInfo& m = kBc7Modes[enc.mode];
    if (m.index2_bits) { // modes 4/5: colour and alpha index sets are independent
        const int cib = enc.index_sel ? m.index2_bits : m.index_bits;
        const int aib = enc.index_sel ? m.index_bits : m.index2_bits;
        if (enc.color_index[0] >> (cib - 1)) {
            swap_endpoints(enc, 0, 0, 3);
            for (auto& i : enc.color_index) i = uint8_t((1 << cib) - 1 - i);
        }
        if (enc.alpha_index[0] >> (aib - 1)) {
            swap_endpoints(enc, 0, 3, 4);
            for (auto& i : enc.alpha_index) i = uint8_t((1 << aib) - 1 - i);
        }
        return;
    }
    const uint8_t* map = bptc::subset_map(m.subsets, enc.partition);
    for (int s = 0; s < m.subsets; ++s) {
        const int a = bptc::anchor_texel(m.subsets, enc.partition, s);
        if (!(enc.color_index[a] >> (m.index_bits - 1))) continue;
        swap_endpoints(enc, s, 0, 4);
        std::swap(enc.p[s][0], enc.p[s][1]);
        for (int t = 0; t < 16; ++t)
            if (map[t] == s) enc.color_index[t] = uint8_t((1 << m.index_bits) - 1 - enc.color_index[t]);
    }
}

void pack(Encoding enc, uint8_t out[16]) {
    fix_anchors(enc);
    const Bc7ModeInfo& m = kBc7Modes[enc.mode];
    BitWriter128 w;
    w.write(1u << enc.mode, enc.mode + 1);
    w.write(uint32_t(enc.partition), m.partition_bits);
    w.write(uint32_t(enc.rotation), m.rotation_bits);
    w.write(uint32_t(enc.index_sel), m.index_sel_bits);
    for (int c = 0; c < 3; ++c)
        for (int s = 0; s < m.subsets; ++s)
            for (int e = 0; e < 2; ++e) w.write(uint32_t(enc.q[s][e][c]), m.color_bits);
    if (m.alpha_bits)
        for (int s = 0; s < m.subsets; ++s)
            for (int e = 0; e < 2; ++e) w.write(uint32_t(enc.q[s][e][3]), m.alpha_bits);
    if (m.endpoint_pbits)
        for (int s = 0; s < m.subsets; ++s)
            for (int e = 0; e < 2; ++e) w.write(uint32_t(enc.p[s][e]), 1);
    if (m.shared_pbits)
        for (int s = 0; s < m.subsets; ++s) w.write(uint32_t(enc.p[s][0]), 1);
    const uint16_t anchors = bptc::anchor_mask(m.subsets, enc.partition);
    const uint8_t* first = enc.index_sel ? enc.alpha_index : enc.color_index;
    for (int t = 0; t < 16; ++t) w.write(first[t], m.index_bits - ((anchors >> t) & 1));
    if (m.index2_bits) {
        const uint8_t* second = enc.index_sel ? enc.color_index : enc.alpha_index;
        for (int t = 0; t < 16; ++t) w.write(second[t], m.index2_bits - (t == 0));
    }
    w.store(out);
}

// ---- solid blocks ----------------------------------------------------------------

// For each 8-bit value, 7-bit endpoint fields (a, b) of mode 5 whose 21/64
// interpolation decodes to exactly that value (every value has one).
struct SolidTable {
    uint8_t a[256], b[256];
    bool ok[256];
    SolidTable() {
        memset(ok, 0, sizeof ok);
        for (int qa = 0; qa < 128; ++qa)
            for (int qb = 0; qb < 128; ++qb) {
                const int v = bc7_interpolate(bc7_expand(qa, 7), bc7_expand(qb, 7), 21);
                if (!ok[v]) ok[v] = true, a[v] = uint8_t(qa), b[v] = uint8_t(qb);
            }
    }
};

bool encode_solid(const uint8_t rgba[4], uint8_t out[16]) {
    static const SolidTable table;
    for (int c = 0; c < 3; ++c)
        if (!table.ok[rgba[c]]) return false;
    Encoding enc;
    enc.mode = 5;
    for (int c = 0; c < 3; ++c) enc.q[0][0][c] = table.a[rgba[c]], enc.q[0][1][c] = table.b[rgba[c]];
    enc.q[0][0][3] = enc.q[0][1][3] = rgba[3];
    for (int t = 0; t < 16; ++t) enc.color_index[t] = 1, enc.alpha_index[t] = 0;
    enc.error = 0;
    pack(enc, out);
    return true;
}

} // namespace

void encode_bc7_block(const uint8_t rgba[64], uint8_t out[16], const Bc7Options& opt) {
    Block b;
    uint8_t in[64];
    memcpy(in, rgba, 64);
    bool opaque = true;
    for (int t = 0; t < 16; ++t) {
        if (opt.opaque) in[4 * t + 3] = 255;
        opaque &= in[4 * t + 3] == 255;
    }
    bool solid = true;
    for (int t = 1; t < 16; ++t) solid &= memcmp(in, in + 4 * t, 4) == 0;
    if (solid && encode_solid(in, out)) return;

    b.opaque = opaque;
    for (int t = 0; t < 16; ++t)
        for (int c = 0; c < 4; ++c) b.px[t][c] = float(in[4 * t + c]);
    if (opt.perceptual) {
        b.w[0] = 0.299f * 3, b.w[1] = 0.587f * 3, b.w[2] = 0.114f * 3;
    } else {
        b.w[0] = b.w[1] = b.w[2] = 1.0f;
    }
    b.w[3] = 1.0f;
    for (int c = 0; c < 4; ++c) b.sw[c] = std::sqrt(b.w[c]);

    const LevelParams lp = level_params(opt.level);
    const FitParams& fp = lp.fit;
    TopList top(lp.refine);
    int parts[64];
    if (opaque) {
        try_partitioned(b, 6, 0, fp, top);
        const int n2 = rank_partitions(b, 2, 64, lp.partitions2, lp.shortlist, parts);
        for (int i = 0; i < n2; ++i) {
            try_partitioned(b, 1, parts[i], fp, top);
            if (lp.mode3) try_partitioned(b, 3, parts[i], fp, top);
        }
        if (lp.partitions3) {
            // One ranking serves both: mode 2 takes the best, mode 0 the best of its 16 layouts.
            const int n3 = rank_partitions(b, 3, 64, std::min(64, 4 * lp.partitions3), lp.shortlist, parts);
            for (int i = 0; i < std::min(n3, lp.partitions3); ++i) try_partitioned(b, 2, parts[i], fp, top);
            for (int i = 0, used = 0; i < n3 && used < lp.partitions3; ++i)
                if (parts[i] < 16) try_partitioned(b, 0, parts[i], fp, top), ++used;
        }
    } else {
        try_partitioned(b, 6, 0, fp, top);
        try_separate_alpha(b, 5, 0, 0, fp, top);
        try_separate_alpha(b, 4, 0, 0, fp, top);
        try_separate_alpha(b, 4, 0, 1, fp, top);
        const int n2 = rank_partitions(b, 2, 64, std::max(1, lp.partitions2 / 2), lp.shortlist, parts);
        for (int i = 0; i < n2; ++i) try_partitioned(b, 7, parts[i], fp, top);
    }
    if (lp.rotations) {
        int rots[3] = {1, 2, 3};
        if (lp.rotations == 1) rots[0] = best_rotation(b);
        for (int i = 0; i < lp.rotations; ++i) {
            try_separate_alpha(b, 5, rots[i], 0, fp, top);
            try_separate_alpha(b, 4, rots[i], 0, fp, top);
            try_separate_alpha(b, 4, rots[i], 1, fp, top);
        }
    }
    // Second pass: fit the most promising candidates again, harder.
    TopList final_best(1);
    final_best.offer(top[0]);
    if (lp.refine > 0)
        for (int i = 0; i < top.size(); ++i) {
            const Encoding& c = top[i];
            if (kBc7Modes[c.mode].index2_bits)
                try_separate_alpha(b, c.mode, c.rotation, c.index_sel, lp.refit, final_best);
            else
                try_partitioned(b, c.mode, c.partition, lp.refit, final_best);
        }
    const Encoding& best = final_best[0];
    pack(best, out);
}

} // namespace af::bc
