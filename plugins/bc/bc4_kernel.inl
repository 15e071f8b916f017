// The BC4 kernel (also the alpha half of BC3 and both halves of BC5), included
// by bc4_encode.cpp once per instruction set inside namespace af::bc::<isa>.
// AF_BC_AVX2 marks the AVX2 copy, which scores two candidate endpoint pairs
// per 256-bit pass in the endpoint searches. Candidates are still applied in
// the same order with the same integer errors, so both copies write the
// same bytes.

struct Bc4Result {
    uint32_t err = ~0u;
    uint8_t e0 = 0, e1 = 0; // byte-domain endpoint values
    bool eight = true;
    alignas(16) uint8_t idx[16] = {};
};

// Palette of a pair in ascending order, as 16-bit lanes. With a > b (8 values)
// entry k is ((7 − k)·b + k·a + 3) / 7, so both ends are exact; with a <= b
// (6 values) it is lo_lim, then ((5 − k)·a + k·b + 2) / 5, then 255 — the same
// sums as bc4_palette. The divisions are reciprocal multiplies, exact for
// these sums (below 2^11).
inline __m128i sorted_palette(int a, int b, bool eight, int lo_lim) {
    if (eight) {
        const __m128i k = _mm_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7);
        const __m128i s = _mm_add_epi16(_mm_mullo_epi16(_mm_sub_epi16(_mm_set1_epi16(7), k), _mm_set1_epi16(short(b))),
                                        _mm_add_epi16(_mm_mullo_epi16(k, _mm_set1_epi16(short(a))), _mm_set1_epi16(3)));
        return _mm_mulhi_epu16(s, _mm_set1_epi16(9363));
    }
    const __m128i k = _mm_setr_epi16(0, 0, 1, 2, 3, 4, 5, 0);
    const __m128i s = _mm_add_epi16(_mm_mullo_epi16(_mm_sub_epi16(_mm_set1_epi16(5), k), _mm_set1_epi16(short(a))),
                                    _mm_add_epi16(_mm_mullo_epi16(k, _mm_set1_epi16(short(b))), _mm_set1_epi16(2)));
    const __m128i mid = _mm_mulhi_epu16(s, _mm_set1_epi16(13108));
    return _mm_blend_epi16(mid, _mm_setr_epi16(short(lo_lim), 0, 0, 0, 0, 0, 0, 255), 0x81);
}

// BC4 index of each ascending palette position, per mode.
inline __m128i position_to_index(bool eight) {
    return eight ? _mm_setr_epi8(1, 7, 6, 5, 4, 3, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0)
                 : _mm_setr_epi8(6, 0, 2, 3, 4, 5, 1, 7, 0, 0, 0, 0, 0, 0, 0, 0);
}

// Where a texel lies exactly between two different values, the lower BC4
// index wins (as a scan over indices would pick it): the least-squares steps
// start from these indices, and on the corpus this choice measured better
// than always up or always down (BC4 fast 48.37 against 48.34 and 48.33 dB).
// Per mode, the gaps where that is entry k + 1 ("up"). Among entries of equal
// value the count may land on any of them: same value, same error.
inline __m128i tie_up(bool eight) {
    return eight ? _mm_setr_epi16(0, -1, -1, -1, -1, -1, -1, 0) : _mm_setr_epi16(-1, 0, 0, 0, 0, -1, 0, 0);
}

// The smallest texel value that takes entry k + 1 over entry k, per gap, as
// bytes (0-6): ceil of the midpoint where ties go up, floor + 1 where they
// stay. 256 saturates to 255, which only moves a 255 between two equal
// entries.
inline __m128i thresholds(__m128i sorted16, __m128i up) {
    const __m128i sum = _mm_add_epi16(sorted16, _mm_srli_si128(sorted16, 2));
    const __m128i ceil = _mm_srli_epi16(_mm_add_epi16(sum, _mm_set1_epi16(1)), 1);
    const __m128i floor1 = _mm_add_epi16(_mm_srli_epi16(sum, 1), _mm_set1_epi16(1));
    const __m128i t = _mm_blendv_epi8(floor1, ceil, up);
    return _mm_packus_epi16(t, t);
}

// Nearest palette entry for all 16 texels at once; returns the squared error.
// The palette is ascending, so a texel's position is the number of
// thresholds it reaches: 7 compares instead of 8 distance comparisons.
inline uint32_t choose(const __m128i v, const __m128i sorted16, const __m128i th, const __m128i to_index,
                       __m128i& best_idx) {
    const __m128i pal = _mm_packus_epi16(sorted16, sorted16);
    const __m128i bias = _mm_set1_epi8(char(0x80)); // unsigned compares as signed
    const __m128i vs = _mm_xor_si128(v, bias), ts = _mm_xor_si128(th, bias);
    __m128i below = _mm_setzero_si128(); // thresholds above the texel, negated
    for (int k = 0; k < 7; ++k)
        below = _mm_add_epi8(below, _mm_cmpgt_epi8(_mm_shuffle_epi8(ts, _mm_set1_epi8(char(k))), vs));
    const __m128i pos = _mm_add_epi8(_mm_set1_epi8(7), below);
    best_idx = _mm_shuffle_epi8(to_index, pos);
    const __m128i val = _mm_shuffle_epi8(pal, pos);
    const __m128i d = _mm_or_si128(_mm_subs_epu8(v, val), _mm_subs_epu8(val, v));
    const __m128i lo = _mm_unpacklo_epi8(d, _mm_setzero_si128());
    const __m128i hi = _mm_unpackhi_epi8(d, _mm_setzero_si128());
    __m128i s = _mm_add_epi32(_mm_madd_epi16(lo, lo), _mm_madd_epi16(hi, hi));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
    return uint32_t(_mm_cvtsi128_si32(s));
}

inline void try_pair(const __m128i v, int a, int b, bool eight, int lo_lim, Bc4Result& r) {
    __m128i idx;
    const __m128i pal = sorted_palette(a, b, eight, lo_lim);
    uint32_t e = choose(v, pal, thresholds(pal, tie_up(eight)), position_to_index(eight), idx);
    if (e < r.err) {
        r.err = e;
        r.e0 = uint8_t(a);
        r.e1 = uint8_t(b);
        r.eight = eight;
        _mm_store_si128(reinterpret_cast<__m128i*>(r.idx), idx);
    }
}

// Candidate endpoint pairs of a search, scored in order by try_pairs.
struct Pairs {
    int n = 0;
    uint8_t a[176], b[176];
    bool eight[176];
    void add(int x, int y, bool e) { a[n] = uint8_t(x), b[n] = uint8_t(y), eight[n] = e, ++n; }
};

#ifdef AF_BC_AVX2
// choose() for two pairs at once, one per 128-bit lane.
inline void choose2(const __m256i v, const __m256i sorted16, const __m256i th, const __m256i to_index,
                    __m256i& best_idx, uint32_t err[2]) {
    const __m256i pal = _mm256_packus_epi16(sorted16, sorted16);
    const __m256i bias = _mm256_set1_epi8(char(0x80));
    const __m256i vs = _mm256_xor_si256(v, bias), ts = _mm256_xor_si256(th, bias);
    __m256i below = _mm256_setzero_si256();
    for (int k = 0; k < 7; ++k)
        below = _mm256_add_epi8(below, _mm256_cmpgt_epi8(_mm256_shuffle_epi8(ts, _mm256_set1_epi8(char(k))), vs));
    const __m256i pos = _mm256_add_epi8(_mm256_set1_epi8(7), below);
    best_idx = _mm256_shuffle_epi8(to_index, pos);
    const __m256i val = _mm256_shuffle_epi8(pal, pos);
    const __m256i d = _mm256_or_si256(_mm256_subs_epu8(v, val), _mm256_subs_epu8(val, v));
    const __m256i lo = _mm256_unpacklo_epi8(d, _mm256_setzero_si256());
    const __m256i hi = _mm256_unpackhi_epi8(d, _mm256_setzero_si256());
    __m256i s = _mm256_add_epi32(_mm256_madd_epi16(lo, lo), _mm256_madd_epi16(hi, hi));
    s = _mm256_add_epi32(s, _mm256_shuffle_epi32(s, 0x4e));
    s = _mm256_add_epi32(s, _mm256_shuffle_epi32(s, 0xb1));
    err[0] = uint32_t(_mm256_cvtsi256_si32(s));
    err[1] = uint32_t(_mm_cvtsi128_si32(_mm256_extracti128_si256(s, 1)));
}
#endif

// try_pair over a list, in list order.
inline void try_pairs(const __m128i v, const Pairs& c, int lo_lim, Bc4Result& r) {
    int i = 0;
#ifdef AF_BC_AVX2
    const __m256i v2 = _mm256_broadcastsi128_si256(v);
    for (; i + 1 < c.n; i += 2) {
        const __m128i p0 = sorted_palette(c.a[i], c.b[i], c.eight[i], lo_lim);
        const __m128i p1 = sorted_palette(c.a[i + 1], c.b[i + 1], c.eight[i + 1], lo_lim);
        const __m256i th =
            _mm256_setr_m128i(thresholds(p0, tie_up(c.eight[i])), thresholds(p1, tie_up(c.eight[i + 1])));
        const __m256i to_index = _mm256_setr_m128i(position_to_index(c.eight[i]), position_to_index(c.eight[i + 1]));
        __m256i idx;
        uint32_t e[2];
        choose2(v2, _mm256_setr_m128i(p0, p1), th, to_index, idx, e);
        for (int j = 0; j < 2; ++j)
            if (e[j] < r.err) {
                r.err = e[j];
                r.e0 = c.a[i + j];
                r.e1 = c.b[i + j];
                r.eight = c.eight[i + j];
                _mm_store_si128(reinterpret_cast<__m128i*>(r.idx),
                                j ? _mm256_extracti128_si256(idx, 1) : _mm256_castsi256_si128(idx));
            }
    }
#endif
    for (; i < c.n; ++i) try_pair(v, c.a[i], c.b[i], c.eight[i], lo_lim, r);
}

// Interpolation weight of endpoint b for each index.
constexpr float kW8[8] = {0, 1, 1 / 7.f, 2 / 7.f, 3 / 7.f, 4 / 7.f, 5 / 7.f, 6 / 7.f};
constexpr float kW6[8] = {0, 1, 1 / 5.f, 2 / 5.f, 3 / 5.f, 4 / 5.f, -1, -1};

// Least-squares endpoints for the current index assignment, then the
// rounded pair and its neighbours.
inline void refine(const __m128i v, const uint8_t vals[16], int lo_lim, int radius, Bc4Result& r) {
    const float* w = r.eight ? kW8 : kW6;
    float aa = 0, ab = 0, bb = 0, ax = 0, bx = 0;
    for (int i = 0; i < 16; ++i) {
        float t = w[r.idx[i]];
        if (t < 0) continue; // fixed 0/255 entries
        float s = 1 - t, x = vals[i];
        aa += s * s;
        ab += s * t;
        bb += t * t;
        ax += s * x;
        bx += t * x;
    }
    float det = aa * bb - ab * ab;
    if (std::fabs(det) < 1e-6f) return;
    float fa = (bb * ax - ab * bx) / det, fb = (aa * bx - ab * ax) / det;
    int a = int(std::clamp(fa, float(lo_lim), 255.0f) + 0.5f), b = int(std::clamp(fb, float(lo_lim), 255.0f) + 0.5f);
    Pairs c;
    for (int da = -radius; da <= radius; ++da)
        for (int db = -radius; db <= radius; ++db) {
            int x = std::clamp(a + da, lo_lim, 255), y = std::clamp(b + db, lo_lim, 255);
            if (r.eight ? x > y : x <= y)
                c.add(x, y, r.eight);
            else if (r.eight && x < y)
                c.add(y, x, true); // same palette reversed
        }
    try_pairs(v, c, lo_lim, r);
}

// The same least-squares step for the 8-value palette, in integers on SSE:
// weights are sevenths, so every sum is exact.
inline void refine8(const __m128i v, int lo_lim, Bc4Result& r) {
    const __m128i idx = _mm_load_si128(reinterpret_cast<const __m128i*>(r.idx));
    const __m128i t =
        _mm_shuffle_epi8(_mm_setr_epi8(0, 7, 1, 2, 3, 4, 5, 6, 0, 0, 0, 0, 0, 0, 0, 0), idx); // weight of b ×7
    const __m128i s = _mm_sub_epi8(_mm_set1_epi8(7), t);                                      // weight of a ×7
    auto hsum = [](__m128i x) {
        x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0x4e));
        x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0xb1));
        return _mm_cvtsi128_si32(x);
    };
    auto dot_u8 = [&](__m128i a_u8, __m128i b_u8) { // Σ a·b for u8 × u8 (a < 128)
        __m128i lo =
            _mm_madd_epi16(_mm_unpacklo_epi8(a_u8, _mm_setzero_si128()), _mm_unpacklo_epi8(b_u8, _mm_setzero_si128()));
        __m128i hi =
            _mm_madd_epi16(_mm_unpackhi_epi8(a_u8, _mm_setzero_si128()), _mm_unpackhi_epi8(b_u8, _mm_setzero_si128()));
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
    if (a > b)
        try_pair(v, a, b, true, lo_lim, r);
    else if (a < b)
        try_pair(v, b, a, true, lo_lim, r);
}

// Endpoints that put the values lo and hi one entry inside the mode's evenly
// spaced run (8 entries, or the 6 between the endpoints) instead of on its
// ends, extrapolated to where the run's ends must sit. The exhaustive optimum
// (bench/bc4_bound) often lies there. Pairs of entries further in (every j < k)
// measured only 0.004 dB better on the corpus at level 3, for 1.25× the time.
inline Pairs spread_pairs(int lo, int hi, bool eight, int lo_lim) {
    Pairs p;
    if (hi <= lo) return p;
    const int steps = eight ? 7 : 5;
    // (entry of lo, entry of hi): hi one in, both one in, lo one in (both on the ends is searched already).
    const int at[3][2] = {{0, steps - 1}, {1, steps - 1}, {1, steps}};
    for (const auto& [j, k] : at) {
        const float span = float(hi - lo) * float(steps) / float(k - j);
        const float first = float(lo) - span * float(j) / float(steps);
        const int a = std::clamp(int(first + 0.5f), lo_lim, 255), b = std::clamp(int(first + span + 0.5f), lo_lim, 255);
        if (eight && b > a)
            p.add(b, a, true); // e0 > e1: the run goes from e1 up to e0
        else if (!eight && a <= b)
            p.add(a, b, false);
    }
    return p;
}

inline void write_block(const Bc4Result& r, bool is_signed, uint8_t out[8]) {
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

inline void encode_bc4(const uint8_t values[16], bool is_signed, uint8_t out[8], int level) {
    const int lo_lim = is_signed ? 1 : 0;
    alignas(16) uint8_t vals[16];
    const __m128i v =
        _mm_max_epu8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(values)), _mm_set1_epi8(char(lo_lim)));
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
        if (mn == lo_lim || mx == 255) { // typical of alpha: the 6-value palette holds 0 and 255 exactly
            int in_mn = 255, in_mx = lo_lim;
            for (int i = 0; i < 16; ++i)
                if (vals[i] != lo_lim && vals[i] != 255)
                    in_mn = std::min<int>(in_mn, vals[i]), in_mx = std::max<int>(in_mx, vals[i]);
            if (in_mn > in_mx) in_mn = in_mx;
            if (in_mn <= in_mx) try_pair(v, in_mn, in_mx, false, lo_lim, r);
        }
        write_block(r, is_signed, out);
        return;
    }

    // Wider searches around the extremes for higher levels.
    const int radius = level >= 9 ? 6 : level >= 7 ? 4 : level >= 5 ? 3 : level >= 3 ? 2 : 1;
    Pairs c;
    for (int da = -radius; da <= radius; ++da)
        for (int db = -radius; db <= radius; ++db) {
            int a = std::clamp(mx + da, lo_lim, 255), b = std::clamp(mn + db, lo_lim, 255);
            if (a > b) c.add(a, b, true);
        }
    try_pairs(v, c, lo_lim, r);
    if (level >= 3) try_pairs(v, spread_pairs(mn, mx, true, lo_lim), lo_lim, r);
    const int passes = level >= 6 ? 3 : level >= 3 ? 2 : 1;
    const int ls_radius = level >= 8 ? 2 : level >= 4 ? 1 : 0;
    for (int p = 0; p < passes; ++p) refine(v, vals, lo_lim, ls_radius, r);

    // 6-value mode: the extremes lo_lim/255 come for free, the endpoints cover the rest.
    // Its steps of a fifth also fit some blocks far from 0 and 255 better than sevenths
    // (e.g. 39, 80, 210: endpoints 39 and 251 put entries at 81 and 209), so from level 3
    // on it is always tried.
    const bool near_ends = mn <= lo_lim + 24 || mx >= 231;
    if (near_ends || level >= 3) {
        int in_mn = 255, in_mx = lo_lim;
        for (int i = 0; i < 16; ++i)
            if (vals[i] > lo_lim + 8 && vals[i] < 247)
                in_mn = std::min<int>(in_mn, vals[i]), in_mx = std::max<int>(in_mx, vals[i]);
        if (in_mn > in_mx) in_mn = in_mx = (mn + mx) / 2;
        Bc4Result r6;
        const int rad6 = radius;
        Pairs c6;
        if (near_ends) // elsewhere the spread pairs below suffice
            for (int da = -rad6; da <= rad6; ++da)
                for (int db = -rad6; db <= rad6; ++db) {
                    int a = std::clamp(in_mn + da, lo_lim, 255), b = std::clamp(in_mx + db, lo_lim, 255);
                    if (a <= b) c6.add(a, b, false);
                }
        try_pairs(v, c6, lo_lim, r6);
        if (level >= 3) try_pairs(v, spread_pairs(in_mn, in_mx, false, lo_lim), lo_lim, r6);
        // Away from 0 and 255 the 6-value palette rarely wins: refine it only where its
        // unrefined start already beats the refined 8-value result (refining more often
        // measured no better, at up to 1.3× the time).
        if (near_ends || r6.err < r.err)
            for (int p = 0; p < passes; ++p) refine(v, vals, lo_lim, ls_radius, r6);
        if (r6.err < r.err) r = r6;
    }
    write_block(r, is_signed, out);
}
