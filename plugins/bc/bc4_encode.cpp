// BC4 encoder (also the alpha half of BC3 and both halves of BC5).
// Works on bytes in the decoder's domain (bc_block.hpp): unsigned values, or
// signed value + 128 in [1, 255]. Candidates are scored against the exact
// decoder palette, so what is measured is what the GPU shows.
#include "bc_block.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <smmintrin.h>

namespace af::bc {
namespace {

struct Bc4Result {
    uint32_t err = ~0u;
    uint8_t e0 = 0, e1 = 0; // byte-domain endpoint values
    bool eight = true;
    alignas(16) uint8_t idx[16] = {};
};

// Palette in the byte domain, same arithmetic as bc4_palette.
inline void palette(int a, int b, bool eight, int lo_lim, uint8_t pal[8]) {
    pal[0] = uint8_t(a);
    pal[1] = uint8_t(b);
    if (eight) {
        for (int i = 1; i < 7; ++i) pal[i + 1] = uint8_t(((7 - i) * a + i * b + 3) / 7);
    } else {
        for (int i = 1; i < 5; ++i) pal[i + 1] = uint8_t(((5 - i) * a + i * b + 2) / 5);
        pal[6] = uint8_t(lo_lim);
        pal[7] = 255;
    }
}

// Nearest palette entry for all 16 texels at once; returns the squared error.
inline uint32_t choose(const __m128i v, const uint8_t pal[8], __m128i& best_idx) {
    __m128i best = _mm_set1_epi8(-1), idx = _mm_setzero_si128();
    for (int k = 0; k < 8; ++k) {
        __m128i p = _mm_set1_epi8(char(pal[k]));
        __m128i d = _mm_or_si128(_mm_subs_epu8(v, p), _mm_subs_epu8(p, v));
        __m128i nb = _mm_min_epu8(d, best);
        __m128i better = _mm_andnot_si128(_mm_cmpeq_epi8(nb, best), _mm_set1_epi8(-1));
        idx = _mm_blendv_epi8(idx, _mm_set1_epi8(char(k)), better);
        best = nb;
    }
    best_idx = idx;
    __m128i lo = _mm_unpacklo_epi8(best, _mm_setzero_si128());
    __m128i hi = _mm_unpackhi_epi8(best, _mm_setzero_si128());
    __m128i s = _mm_add_epi32(_mm_madd_epi16(lo, lo), _mm_madd_epi16(hi, hi));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
    return uint32_t(_mm_cvtsi128_si32(s));
}

inline void try_pair(const __m128i v, int a, int b, bool eight, int lo_lim, Bc4Result& r) {
    uint8_t pal[8];
    palette(a, b, eight, lo_lim, pal);
    __m128i idx;
    uint32_t e = choose(v, pal, idx);
    if (e < r.err) {
        r.err = e;
        r.e0 = uint8_t(a);
        r.e1 = uint8_t(b);
        r.eight = eight;
        _mm_store_si128(reinterpret_cast<__m128i*>(r.idx), idx);
    }
}

// Interpolation weight of endpoint b for each index.
constexpr float kW8[8] = {0, 1, 1 / 7.f, 2 / 7.f, 3 / 7.f, 4 / 7.f, 5 / 7.f, 6 / 7.f};
constexpr float kW6[8] = {0, 1, 1 / 5.f, 2 / 5.f, 3 / 5.f, 4 / 5.f, -1, -1};

// Least-squares endpoints for the current index assignment, then the
// rounded pair and its neighbours.
void refine(const __m128i v, const uint8_t vals[16], int lo_lim, int radius, Bc4Result& r) {
    const float* w = r.eight ? kW8 : kW6;
    float aa = 0, ab = 0, bb = 0, ax = 0, bx = 0;
    for (int i = 0; i < 16; ++i) {
        float t = w[r.idx[i]];
        if (t < 0) continue; // fixed 0/255 entries
        float s = 1 - t, x = vals[i];
        aa += s * s; ab += s * t; bb += t * t; ax += s * x; bx += t * x;
    }
    float det = aa * bb - ab * ab;
    if (std::fabs(det) < 1e-6f) return;
    float fa = (bb * ax - ab * bx) / det, fb = (aa * bx - ab * ax) / det;
    int a = int(std::clamp(fa, float(lo_lim), 255.0f) + 0.5f), b = int(std::clamp(fb, float(lo_lim), 255.0f) + 0.5f);
    for (int da = -radius; da <= radius; ++da)
        for (int db = -radius; db <= radius; ++db) {
            int x = std::clamp(a + da, lo_lim, 255), y = std::clamp(b + db, lo_lim, 255);
            if (r.eight ? x > y : x <= y) try_pair(v, x, y, r.eight, lo_lim, r);
            else if (r.eight && x < y) try_pair(v, y, x, true, lo_lim, r); // same palette reversed
        }
}

// The same least-squares step for the 8-value palette, in integers on SSE:
// weights are sevenths, so every sum is exact.
void refine8(const __m128i v, int lo_lim, Bc4Result& r) {
    const __m128i idx = _mm_load_si128(reinterpret_cast<const __m128i*>(r.idx));
    const __m128i t = _mm_shuffle_epi8(_mm_setr_epi8(0, 7, 1, 2, 3, 4, 5, 6, 0, 0, 0, 0, 0, 0, 0, 0), idx); // weight of b ×7
    const __m128i s = _mm_sub_epi8(_mm_set1_epi8(7), t);                                                  // weight of a ×7
    auto hsum = [](__m128i x) {
        x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0x4e));
        x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0xb1));
        return _mm_cvtsi128_si32(x);
    };
    auto dot_u8 = [&](__m128i a_u8, __m128i b_u8) { // Σ a·b for u8 × u8 (a < 128)
        __m128i lo = _mm_madd_epi16(_mm_unpacklo_epi8(a_u8, _mm_setzero_si128()), _mm_unpacklo_epi8(b_u8, _mm_setzero_si128()));
        __m128i hi = _mm_madd_epi16(_mm_unpackhi_epi8(a_u8, _mm_setzero_si128()), _mm_unpackhi_epi8(b_u8, _mm_setzero_si128()));
        return hsum(_mm_add_epi32(lo, hi));
    };
    const int aa = dot_u8(s, s), ab = dot_u8(s, t), bb = dot_u8(t, t);
    const int ax = dot_u8(s, v), bx = dot_u8(t, v);
    // [aa ab; ab bb] [a; b] = 7 [ax; bx]
    const float det = float(aa) * float(bb) - float(ab) * float(ab);
    if (det == 0) return;
    const float inv = 7.0f / det;
    const float fa = std::clamp((float(bb) * float(ax) - float(ab) * float(bx)) * inv, float(lo_lim), 255.0f);
    const float fb = std::clamp((float(aa) * float(bx) - float(ab) * float(ax)) * inv, float(lo_lim), 255.0f);
    const int a = int(fa + 0.5f), b = int(fb + 0.5f);
    if (a > b) try_pair(v, a, b, true, lo_lim, r);
    else if (a < b) try_pair(v, b, a, true, lo_lim, r);
}

void write_block(const Bc4Result& r, bool is_signed, uint8_t out[8]) {
    auto store = [&](uint8_t x) { return is_signed ? uint8_t(int8_t(int(x) - 128)) : x; };
    out[0] = store(r.e0);
    out[1] = store(r.e1);
    // Pack 16 three-bit indices: pairs, then quads, then eights, in 64-bit lanes.
    uint64_t lo, hi;
    std::memcpy(&lo, r.idx, 8);
    std::memcpy(&hi, r.idx + 8, 8);
    auto pack8 = [](uint64_t x) { // 8 bytes holding 0..7 → 24 bits
        x = (x & 0x0007000700070007ull) | ((x & 0x0700070007000700ull) >> 5);
        x = (x & 0x0000003f0000003full) | ((x & 0x003f0000003f0000ull) >> 10);
        return (x & 0xfffull) | ((x >> 20) & 0xfff000ull);
    };
    const uint64_t bits = pack8(lo) | pack8(hi) << 24;
    for (int i = 0; i < 6; ++i) out[2 + i] = uint8_t(bits >> (8 * i));
}

} // namespace

void encode_bc4(const uint8_t values[16], bool is_signed, uint8_t out[8], int level) {
    const int lo_lim = is_signed ? 1 : 0;
    alignas(16) uint8_t vals[16];
    const __m128i v = _mm_max_epu8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(values)), _mm_set1_epi8(char(lo_lim)));
    _mm_store_si128(reinterpret_cast<__m128i*>(vals), v);
    __m128i vmin = _mm_min_epu8(v, _mm_srli_si128(v, 8)), vmax = _mm_max_epu8(v, _mm_srli_si128(v, 8));
    vmin = _mm_min_epu8(vmin, _mm_srli_si128(vmin, 4)), vmax = _mm_max_epu8(vmax, _mm_srli_si128(vmax, 4));
    vmin = _mm_min_epu8(vmin, _mm_srli_si128(vmin, 2)), vmax = _mm_max_epu8(vmax, _mm_srli_si128(vmax, 2));
    vmin = _mm_min_epu8(vmin, _mm_srli_si128(vmin, 1)), vmax = _mm_max_epu8(vmax, _mm_srli_si128(vmax, 1));
    const int mn = _mm_cvtsi128_si32(vmin) & 0xff, mx = _mm_cvtsi128_si32(vmax) & 0xff;

    Bc4Result r;
    if (mn == mx) { // solid: both endpoints equal give the value exactly (6-value mode, index 0)
        r.e0 = r.e1 = uint8_t(mn);
        r.eight = false;
        write_block(r, is_signed, out);
        return;
    }
    try_pair(v, mx, mn, true, lo_lim, r);
    if (level <= 0) { // least-squares steps: the extremes are rarely the best endpoints
        refine8(v, lo_lim, r);
        write_block(r, is_signed, out);
        return;
    }

    // Wider searches around the extremes for higher levels.
    const int radius = level >= 9 ? 6 : level >= 7 ? 4 : level >= 5 ? 3 : level >= 3 ? 2 : 1;
    for (int da = -radius; da <= radius; ++da)
        for (int db = -radius; db <= radius; ++db) {
            int a = std::clamp(mx + da, lo_lim, 255), b = std::clamp(mn + db, lo_lim, 255);
            if (a > b) try_pair(v, a, b, true, lo_lim, r);
        }
    const int passes = level >= 6 ? 3 : level >= 3 ? 2 : 1;
    const int ls_radius = level >= 8 ? 2 : level >= 4 ? 1 : 0;
    for (int p = 0; p < passes; ++p) refine(v, vals, lo_lim, ls_radius, r);

    // 6-value mode: the extremes lo_lim/255 come for free, the endpoints cover the rest.
    if (mn <= lo_lim + 24 || mx >= 231) {
        int in_mn = 255, in_mx = lo_lim;
        for (int i = 0; i < 16; ++i)
            if (vals[i] > lo_lim + 8 && vals[i] < 247)
                in_mn = std::min<int>(in_mn, vals[i]), in_mx = std::max<int>(in_mx, vals[i]);
        if (in_mn > in_mx) in_mn = in_mx = (mn + mx) / 2;
        Bc4Result r6;
        const int rad6 = radius;
        for (int da = -rad6; da <= rad6; ++da)
            for (int db = -rad6; db <= rad6; ++db) {
                int a = std::clamp(in_mn + da, lo_lim, 255), b = std::clamp(in_mx + db, lo_lim, 255);
                if (a <= b) try_pair(v, a, b, false, lo_lim, r6);
            }
        for (int p = 0; p < passes; ++p) refine(v, vals, lo_lim, ls_radius, r6);
        if (r6.err < r.err) r = r6;
    }
    write_block(r, is_signed, out);
}

void encode_bc5(const uint8_t red[16], const uint8_t green[16], bool is_signed, uint8_t out[16], int level) {
    encode_bc4(red, is_signed, out, level);
    encode_bc4(green, is_signed, out + 8, level);
}

} // namespace af::bc
