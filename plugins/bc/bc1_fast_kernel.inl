// The level-0 BC1 kernel (see bc1_fast.hpp). bc1_fast.cpp includes this file
// once per instruction set, inside namespace af::bc::<isa>; AF_BC_AVX2 marks
// the AVX2 copy, which uses 256-bit registers for the per-texel loops. Every
// step whose result is compared or stored is integer arithmetic, and the few
// float steps are the same scalar expressions in both copies, so both give
// the same bytes.

// The block's texels in the layouts the steps below need.
struct Texels {
    __m128i r, g, b; // 16 bytes per channel, texel order
#ifdef AF_BC_AVX2
    __m256i r16, g16, b16; // 16-bit lanes
    __m256i rg[2];         // (R, G) 16-bit pairs, 8 texels per register
    __m256i b32[2];        // B in 32-bit lanes
#else
    __m128i r16[2], g16[2], b16[2];
    __m128i rg[4];
    __m128i b32[4];
#endif
    int sum[3]; // channel sums
};

struct Fit {
    float err = 3.4e38f;
    uint16_t c0 = 0, c1 = 0;           // as stored
    __m128i pos = _mm_setzero_si128(); // palette position per texel: 0 = c0, 1, 2, 3 = c1
};

inline int sum_bytes(__m128i v) {
    __m128i s = _mm_sad_epu8(v, _mm_setzero_si128());
    return _mm_cvtsi128_si32(s) + _mm_extract_epi32(s, 2);
}

#ifdef AF_BC_AVX2
inline __m128i fold(__m256i v) { return _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1)); }
#endif

inline void load(const uint8_t rgba[64], Texels& t) {
    // R, G, B, A of 4 texels into one dword each, then a 4×4 dword transpose.
    const __m128i split = _mm_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    __m128i q[4];
    for (int i = 0; i < 4; ++i)
        q[i] = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(rgba + 16 * i)), split);
    const __m128i rg01 = _mm_unpacklo_epi32(q[0], q[1]), ba01 = _mm_unpackhi_epi32(q[0], q[1]);
    const __m128i rg23 = _mm_unpacklo_epi32(q[2], q[3]), ba23 = _mm_unpackhi_epi32(q[2], q[3]);
    t.r = _mm_unpacklo_epi64(rg01, rg23);
    t.g = _mm_unpackhi_epi64(rg01, rg23);
    t.b = _mm_unpacklo_epi64(ba01, ba23);
    const __m128i z = _mm_setzero_si128();
    const __m128i rg_lo = _mm_unpacklo_epi8(t.r, t.g), rg_hi = _mm_unpackhi_epi8(t.r, t.g);
#ifdef AF_BC_AVX2
    t.r16 = _mm256_cvtepu8_epi16(t.r);
    t.g16 = _mm256_cvtepu8_epi16(t.g);
    t.b16 = _mm256_cvtepu8_epi16(t.b);
    t.rg[0] = _mm256_cvtepu8_epi16(rg_lo);
    t.rg[1] = _mm256_cvtepu8_epi16(rg_hi);
    t.b32[0] = _mm256_cvtepu8_epi32(t.b);
    t.b32[1] = _mm256_cvtepu8_epi32(_mm_srli_si128(t.b, 8));
#else
    t.r16[0] = _mm_cvtepu8_epi16(t.r), t.r16[1] = _mm_unpackhi_epi8(t.r, z);
    t.g16[0] = _mm_cvtepu8_epi16(t.g), t.g16[1] = _mm_unpackhi_epi8(t.g, z);
    t.b16[0] = _mm_cvtepu8_epi16(t.b), t.b16[1] = _mm_unpackhi_epi8(t.b, z);
    t.rg[0] = _mm_cvtepu8_epi16(rg_lo), t.rg[1] = _mm_unpackhi_epi8(rg_lo, z);
    t.rg[2] = _mm_cvtepu8_epi16(rg_hi), t.rg[3] = _mm_unpackhi_epi8(rg_hi, z);
    // Spelled out: the byte shift must be an immediate even when the compiler does not unroll (-O1).
    t.b32[0] = _mm_cvtepu8_epi32(t.b), t.b32[1] = _mm_cvtepu8_epi32(_mm_srli_si128(t.b, 4));
    t.b32[2] = _mm_cvtepu8_epi32(_mm_srli_si128(t.b, 8)), t.b32[3] = _mm_cvtepu8_epi32(_mm_srli_si128(t.b, 12));
#endif
    (void)z;
    t.sum[0] = sum_bytes(t.r), t.sum[1] = sum_bytes(t.g), t.sum[2] = sum_bytes(t.b);
}

// Σ x·y over the 16 texels for the six channel pairs: rr, gg, bb, rg, rb, gb.
inline void products(const Texels& t, int out[6]) {
#ifdef AF_BC_AVX2
    auto dot = [](__m256i a, __m256i b) { return fold(_mm256_madd_epi16(a, b)); };
    const __m128i rr = dot(t.r16, t.r16), gg = dot(t.g16, t.g16), bb = dot(t.b16, t.b16);
    const __m128i rg = dot(t.r16, t.g16), rb = dot(t.r16, t.b16), gb = dot(t.g16, t.b16);
#else
    auto dot = [](const __m128i* a, const __m128i* b) {
        return _mm_add_epi32(_mm_madd_epi16(a[0], b[0]), _mm_madd_epi16(a[1], b[1]));
    };
    const __m128i rr = dot(t.r16, t.r16), gg = dot(t.g16, t.g16), bb = dot(t.b16, t.b16);
    const __m128i rg = dot(t.r16, t.g16), rb = dot(t.r16, t.b16), gb = dot(t.g16, t.b16);
#endif
    const __m128i a = _mm_hadd_epi32(_mm_hadd_epi32(rr, gg), _mm_hadd_epi32(bb, rg));
    const __m128i b = _mm_hadd_epi32(_mm_hadd_epi32(rb, gb), _mm_setzero_si128());
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), a);
    out[4] = _mm_cvtsi128_si32(b);
    out[5] = _mm_extract_epi32(b, 1);
}

// 32-bit dot products cr·R + cg·G + cb·B per texel; coefficients are int16.
struct Dots {
#ifdef AF_BC_AVX2
    __m256i v[2];
#else
    __m128i v[4];
#endif
};

// crg: (cr, cg) as 16-bit pairs in every dword; cb: (cb, 0) likewise.
inline Dots project(const Texels& t, __m128i crg, __m128i cb) {
    Dots d;
#ifdef AF_BC_AVX2
    const __m256i crg2 = _mm256_broadcastsi128_si256(crg), cb2 = _mm256_broadcastsi128_si256(cb);
    for (int i = 0; i < 2; ++i)
        d.v[i] = _mm256_add_epi32(_mm256_madd_epi16(t.rg[i], crg2), _mm256_madd_epi16(t.b32[i], cb2));
#else
    for (int i = 0; i < 4; ++i) d.v[i] = _mm_add_epi32(_mm_madd_epi16(t.rg[i], crg), _mm_madd_epi16(t.b32[i], cb));
#endif
    return d;
}

inline Dots project(const Texels& t, int cr, int cg, int cb) {
    return project(t, _mm_set1_epi32(int(uint32_t(uint16_t(cr)) | uint32_t(uint16_t(cg)) << 16)),
                   _mm_set1_epi32(int(uint16_t(cb))));
}

inline void min_max(const Dots& d, int& lo, int& hi) {
#ifdef AF_BC_AVX2
    const __m256i mn256 = _mm256_min_epi32(d.v[0], d.v[1]), mx256 = _mm256_max_epi32(d.v[0], d.v[1]);
    __m128i mn = _mm_min_epi32(_mm256_castsi256_si128(mn256), _mm256_extracti128_si256(mn256, 1));
    __m128i mx = _mm_max_epi32(_mm256_castsi256_si128(mx256), _mm256_extracti128_si256(mx256, 1));
#else
    __m128i mn = _mm_min_epi32(_mm_min_epi32(d.v[0], d.v[1]), _mm_min_epi32(d.v[2], d.v[3]));
    __m128i mx = _mm_max_epi32(_mm_max_epi32(d.v[0], d.v[1]), _mm_max_epi32(d.v[2], d.v[3]));
#endif
    mn = _mm_min_epi32(mn, _mm_shuffle_epi32(mn, _MM_SHUFFLE(1, 0, 3, 2)));
    mn = _mm_min_epi32(mn, _mm_shuffle_epi32(mn, _MM_SHUFFLE(2, 3, 0, 1)));
    mx = _mm_max_epi32(mx, _mm_shuffle_epi32(mx, _MM_SHUFFLE(1, 0, 3, 2)));
    mx = _mm_max_epi32(mx, _mm_shuffle_epi32(mx, _MM_SHUFFLE(2, 3, 0, 1)));
    lo = _mm_cvtsi128_si32(mn), hi = _mm_cvtsi128_si32(mx);
}

// Palette position per texel (bytes 0..3): how many of the three thresholds
// its dot product exceeds.
inline __m128i positions(const Dots& d, __m128i th) {
#ifdef AF_BC_AVX2
    const __m256i t3 = _mm256_broadcastsi128_si256(th);
    const __m256i a = _mm256_shuffle_epi32(t3, 0x00), b = _mm256_shuffle_epi32(t3, 0x55),
                  c = _mm256_shuffle_epi32(t3, 0xaa);
    __m256i s[2];
    for (int i = 0; i < 2; ++i)
        s[i] = _mm256_add_epi32(_mm256_add_epi32(_mm256_cmpgt_epi32(d.v[i], a), _mm256_cmpgt_epi32(d.v[i], b)),
                                _mm256_cmpgt_epi32(d.v[i], c));
    // packs works per 128-bit lane: restore texel order before the final pack.
    const __m256i w = _mm256_permute4x64_epi64(_mm256_packs_epi32(s[0], s[1]), _MM_SHUFFLE(3, 1, 2, 0));
    const __m128i p = _mm_packs_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
#else
    const __m128i a = _mm_shuffle_epi32(th, 0x00), b = _mm_shuffle_epi32(th, 0x55), c = _mm_shuffle_epi32(th, 0xaa);
    __m128i s[4];
    for (int i = 0; i < 4; ++i)
        s[i] = _mm_add_epi32(_mm_add_epi32(_mm_cmpgt_epi32(d.v[i], a), _mm_cmpgt_epi32(d.v[i], b)),
                             _mm_cmpgt_epi32(d.v[i], c));
    const __m128i p = _mm_packs_epi16(_mm_packs_epi32(s[0], s[1]), _mm_packs_epi32(s[2], s[3]));
#endif
    return _mm_sub_epi8(_mm_setzero_si128(), p);
}

// Squared differences between 16 channel bytes and their palette values, as 4 partial sums.
inline __m128i channel_error(__m128i x, __m128i pal, __m128i pos) {
    const __m128i v = _mm_shuffle_epi8(pal, pos);
    const __m128i ad = _mm_or_si128(_mm_subs_epu8(x, v), _mm_subs_epu8(v, x));
#ifdef AF_BC_AVX2
    const __m256i w = _mm256_cvtepu8_epi16(ad);
    return fold(_mm256_madd_epi16(w, w));
#else
    const __m128i lo = _mm_cvtepu8_epi16(ad), hi = _mm_unpackhi_epi8(ad, _mm_setzero_si128());
    return _mm_add_epi32(_mm_madd_epi16(lo, lo), _mm_madd_epi16(hi, hi));
#endif
}

// Scores stored endpoints (c0 >= c1): positions by projection onto the line
// from c0's colour to c1's, error against the exact decoded palette. W holds
// the integer channel weights as 16-bit lanes (r, g, b, 0) twice.
inline void evaluate(const Texels& t, uint16_t c0, uint16_t c1, const __m128 wv, const __m128i W, Fit& out) {
    // Both endpoints' channels, bit-replicated to 8 bits: (r, g, b, 0) for c0 then c1.
    // Each field is moved to the top of its lane, then scaled down by its replication factor.
    const __m128i c = _mm_setr_epi16(short(c0), short(c0), short(c0), 0, short(c1), short(c1), short(c1), 0);
    const __m128i top = _mm_and_si128(
        _mm_mullo_epi16(c, _mm_setr_epi16(1, 32, 2048, 0, 1, 32, 2048, 0)),
        _mm_setr_epi16(short(0xf800), short(0xfc00), short(0xf800), 0, short(0xf800), short(0xfc00), short(0xf800), 0));
    const __m128i ends = _mm_mulhi_epu16(top, _mm_setr_epi16(264, 260, 264, 0, 264, 260, 264, 0));
    // The decoder's interpolants (bc_block.hpp): (2a + b + 1) / 3 and (a + 2b + 1) / 3; the
    // division is a 16-bit reciprocal multiply, exact for these sums. When c0 == c1 every
    // entry is the same colour in either palette, and every texel lands on position 0.
    const __m128i a2 = _mm_unpacklo_epi64(ends, ends), b2 = _mm_unpackhi_epi64(ends, ends);
    const __m128i mids = _mm_mulhi_epu16(_mm_add_epi16(_mm_add_epi16(a2, b2), _mm_add_epi16(ends, _mm_set1_epi16(1))),
                                         _mm_set1_epi16(21846));
    // Palette bytes per channel in position order (c0, 1/3, 2/3, c1): r in bytes 0-3, g 4-7, b 8-11.
    const __m128i pal = _mm_shuffle_epi8(_mm_packus_epi16(ends, mids),
                                         _mm_setr_epi8(0, 8, 12, 4, 1, 9, 13, 5, 2, 10, 14, 6, -1, -1, -1, -1));
    // Weighted direction c0 → c1 and the palette's projections onto it.
    const __m128i dir = _mm_mullo_epi16(_mm_sub_epi16(b2, a2), W);
    const __m128i proj = _mm_hadd_epi32(_mm_madd_epi16(ends, dir), _mm_madd_epi16(mids, dir)); // p0, p3, p1, p2
    // Texel dots are doubled, so a threshold is the sum of two neighbouring projections.
    const __m128i th = _mm_add_epi32(_mm_shuffle_epi32(proj, _MM_SHUFFLE(0, 3, 2, 0)),
                                     _mm_shuffle_epi32(proj, _MM_SHUFFLE(0, 1, 3, 2)));
    const __m128i dir2 = _mm_add_epi16(dir, dir);
    const Dots d = project(t, _mm_shuffle_epi32(dir2, 0), _mm_shuffle_epi32(dir2, _MM_SHUFFLE(1, 1, 1, 1)));
    const __m128i pos = positions(d, th);
    const __m128i er = channel_error(t.r, pal, pos), eg = channel_error(t.g, _mm_srli_si128(pal, 4), pos),
                  eb = channel_error(t.b, _mm_srli_si128(pal, 8), pos);
    const __m128 e = _mm_mul_ps(_mm_cvtepi32_ps(_mm_hadd_epi32(_mm_hadd_epi32(er, eg), _mm_hadd_epi32(eb, eb))), wv);
    const float err =
        _mm_cvtss_f32(e) + _mm_cvtss_f32(_mm_shuffle_ps(e, e, 1)) + _mm_cvtss_f32(_mm_shuffle_ps(e, e, 2));
    if (err < out.err) out.err = err, out.c0 = c0, out.c1 = c1, out.pos = pos;
}

inline uint16_t quantise(const float e[3]) {
    auto idx = [](float v) { return int(std::clamp(v, 0.0f, 255.0f) + 0.5f); };
    return uint16_t(tables::kNearest5[idx(e[0])] << 11 | tables::kNearest6[idx(e[1])] << 5 |
                    tables::kNearest5[idx(e[2])]);
}

inline void try_endpoints(const Texels& t, const float e0[3], const float e1[3], const __m128 wv, const __m128i W,
                          Fit& best) {
    uint16_t a = quantise(e0), b = quantise(e1);
    if (a < b) std::swap(a, b);
    if (a == best.c0 && b == best.c1) return; // scored already
    evaluate(t, a, b, wv, W, best);
}

// Least-squares endpoints for the fit's positions: texel x ≈ ((3 − p)·e0 + p·e1) / 3.
// The normal equations need only Σp, Σp² and Σp·x, all exact integers.
inline bool least_squares(const Texels& t, const Fit& f, float e0[3], float e1[3]) {
    const __m128i sq = _mm_shuffle_epi8(_mm_setr_epi8(0, 1, 4, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), f.pos);
    const int sp = sum_bytes(f.pos), spp = sum_bytes(sq);
    const int B2 = spp, AB = 3 * sp - spp, A2 = 144 - 6 * sp + spp;
    const int det = A2 * B2 - AB * AB;
    if (det == 0) return false; // every texel at one position
    const __m128i ones = _mm_set1_epi16(1);
    auto px = [&](__m128i x) { return _mm_madd_epi16(_mm_maddubs_epi16(x, f.pos), ones); };
    const __m128i s = _mm_hadd_epi32(_mm_hadd_epi32(px(t.r), px(t.g)), _mm_hadd_epi32(px(t.b), _mm_setzero_si128()));
    const int bx[3] = {_mm_cvtsi128_si32(s), _mm_extract_epi32(s, 1), _mm_extract_epi32(s, 2)};
    const float inv = 1.0f / float(det);
    for (int c = 0; c < 3; ++c) {
        const int ax = 3 * t.sum[c] - bx[c];
        e0[c] = float(3 * (B2 * ax - AB * bx[c])) * inv;
        e1[c] = float(3 * (A2 * bx[c] - AB * ax)) * inv;
    }
    return true;
}

// Principal axis of the covariance by power iteration, scaled so its largest
// component is 1.
inline float principal_axis(const Texels& t, float axis[3]) {
    int p[6];
    products(t, p);
    const int* s = t.sum;
    // 16 × covariance, exact.
    const float rr = float(16 * p[0] - s[0] * s[0]), gg = float(16 * p[1] - s[1] * s[1]),
                bb = float(16 * p[2] - s[2] * s[2]), rg = float(16 * p[3] - s[0] * s[1]),
                rb = float(16 * p[4] - s[0] * s[2]), gb = float(16 * p[5] - s[1] * s[2]);
    float v[3];
    if (rr >= gg && rr >= bb)
        v[0] = rr, v[1] = rg, v[2] = rb;
    else if (gg >= bb)
        v[0] = rg, v[1] = gg, v[2] = gb;
    else
        v[0] = rb, v[1] = gb, v[2] = bb;
    // No rescaling between steps: entries are below 2^24, so three products stay far from
    // float overflow, and the scale drops out below.
    for (int it = 0; it < kPowerIterations; ++it) {
        const float x = rr * v[0] + rg * v[1] + rb * v[2];
        const float y = rg * v[0] + gg * v[1] + gb * v[2];
        const float z = rb * v[0] + gb * v[1] + bb * v[2];
        v[0] = x, v[1] = y, v[2] = z;
    }
    const float m = std::max(std::max(std::fabs(v[0]), std::fabs(v[1])), std::fabs(v[2]));
    if (!(m > 1e-6f)) {
        axis[0] = axis[1] = axis[2] = 1;
        return rr + gg + bb;
    }
    const float inv = 1.0f / m;
    for (int c = 0; c < 3; ++c) axis[c] = v[c] * inv;
    return rr + gg + bb;
}

inline void encode(const uint8_t rgba[64], uint8_t out[8], const ColourWeights& w) {
    Texels t;
    load(rgba, t);
    // Integer weights for the projections (16-bit coefficient room: 2·255·64).
    int Wi[3] = {1, 1, 1};
    if (!(w.r == w.g && w.g == w.b)) {
        const float m = std::max(std::max(w.r, w.g), w.b);
        Wi[0] = std::max(1, int(w.r / m * 64 + 0.5f));
        Wi[1] = std::max(1, int(w.g / m * 64 + 0.5f));
        Wi[2] = std::max(1, int(w.b / m * 64 + 0.5f));
    }
    const __m128i W =
        _mm_setr_epi16(short(Wi[0]), short(Wi[1]), short(Wi[2]), 0, short(Wi[0]), short(Wi[1]), short(Wi[2]), 0);
    const __m128 wv = _mm_setr_ps(w.r, w.g, w.b, 0);

    // Endpoints: the texels' extent along the principal axis.
    float axis[3];
    const float spread = principal_axis(t, axis);
    int ca[3];
    for (int c = 0; c < 3; ++c) ca[c] = int(axis[c] * 127.0f + (axis[c] < 0 ? -0.5f : 0.5f));
    int lo, hi;
    min_max(project(t, ca[0], ca[1], ca[2]), lo, hi);
    const float n2 = float(ca[0] * ca[0] + ca[1] * ca[1] + ca[2] * ca[2]);
    const float mid = float(ca[0] * t.sum[0] + ca[1] * t.sum[1] + ca[2] * t.sum[2]) * (1.0f / 16);
    const float sh = (float(hi) - mid) / n2, sl = (float(lo) - mid) / n2;
    float e0[3], e1[3];
    for (int c = 0; c < 3; ++c) {
        const float mean = float(t.sum[c]) * (1.0f / 16);
        e0[c] = mean + float(ca[c]) * sh;
        e1[c] = mean + float(ca[c]) * sl;
    }
    Fit best;
    try_endpoints(t, e0, e1, wv, W, best);
    if (spread <= kMeanSpread) {
        // The block's mean colour, exactly, at position 1 (single-colour tables): smooth
        // blocks whose extent is below the 565 steps are often best served by it.
        int m[3];
        for (int c = 0; c < 3; ++c) m[c] = (t.sum[c] + 8) >> 4;
        using namespace tables;
        uint16_t a = uint16_t(kThird5[m[0]].hi << 11 | kThird6[m[1]].hi << 5 | kThird5[m[2]].hi);
        uint16_t b = uint16_t(kThird5[m[0]].lo << 11 | kThird6[m[1]].lo << 5 | kThird5[m[2]].lo);
        if (a < b) std::swap(a, b);
        evaluate(t, a, b, wv, W, best);
    }
    bool ls_current = false; // e0/e1 hold the least-squares endpoints for best.pos
    for (int it = 0; it < kRefinements; ++it) {
        const float before = best.err;
        if (!least_squares(t, best, e0, e1)) break;
        try_endpoints(t, e0, e1, wv, W, best);
        ls_current = !(best.err < before);
        if (ls_current) break; // the same positions would give the same endpoints
    }
    // Blocks still far off: step each endpoint channel one 5/6-bit level toward its
    // least-squares value, keeping a step when the error with re-chosen positions drops.
    // Rounding each channel to its nearest level is often not the best joint choice.
    if (best.err > kMoveThreshold * (w.r + w.g + w.b) && (ls_current || least_squares(t, best, e0, e1))) {
        static constexpr int kShift[6] = {11, 5, 0, 11, 5, 0}, kMax[6] = {31, 63, 31, 31, 63, 31};
        const float target[6] = {e0[0], e0[1], e0[2], e1[0], e1[1], e1[2]};
        // Which channels step, and which way, first; then one pass over them (a loop over a
        // bit mask mispredicts once, a test per channel about every other time).
        unsigned moves = 0, up = 0;
        for (int c = 0; c < 6; ++c) {
            const int v = ((c < 3 ? best.c0 : best.c1) >> kShift[c]) & kMax[c];
            const float now = float(kMax[c] == 31 ? (v << 3 | v >> 2) : (v << 2 | v >> 4));
            const bool far = std::fabs(target[c] - now) > kMoveGate * (255.0f / float(kMax[c]));
            const unsigned u = target[c] > now;
            const unsigned room = (u & unsigned(v < kMax[c])) | (~u & unsigned(v > 0) & 1u); // bit ops: no branch
            moves |= (unsigned(far) & room) << c;
            up |= u << c;
        }
        for (; moves; moves &= moves - 1) {
            const int c = __builtin_ctz(moves);
            uint16_t e[2] = {best.c0, best.c1};
            uint16_t& x = e[c / 3];
            const int v = ((x >> kShift[c]) & kMax[c]) + 2 * int((up >> c) & 1) - 1;
            // Clamped: an earlier step may have swapped the endpoints, so this one may not have room.
            x = uint16_t((x & ~(kMax[c] << kShift[c])) | (std::clamp(v, 0, kMax[c]) << kShift[c]));
            if (e[0] < e[1]) std::swap(e[0], e[1]);
            evaluate(t, e[0], e[1], wv, W, best);
        }
    }

    out[0] = uint8_t(best.c0), out[1] = uint8_t(best.c0 >> 8);
    out[2] = uint8_t(best.c1), out[3] = uint8_t(best.c1 >> 8);
    // Position → BC1 index (0 = c0, 1 = c1, 2 and 3 between), four 2-bit indices per byte.
    const __m128i idx = _mm_shuffle_epi8(_mm_setr_epi8(0, 2, 3, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), best.pos);
    const __m128i pairs = _mm_maddubs_epi16(idx, _mm_set1_epi16(0x0401));
    const __m128i quads = _mm_madd_epi16(pairs, _mm_set1_epi32(0x00100001));
    const __m128i packed =
        _mm_shuffle_epi8(quads, _mm_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1));
    const uint32_t bits = uint32_t(_mm_cvtsi128_si32(packed));
    std::memcpy(out + 4, &bits, 4);
}
