// BC7 block decoder, exact to ARB_texture_compression_bptc / D3D11.
#include "bc7_modes.hpp"
#include "bit_stream.hpp"
#include "bptc.hpp"
#include "bptc_tables.hpp"

#include <cstring>
#include <immintrin.h>

namespace af::bc {

namespace {

// Endpoints per subset, expanded to 8 bits: [subset][endpoint][channel].
struct Endpoints {
    int ep[3][2][4];
};

// Colour then alpha bits, then the p-bits (per endpoint or shared per
// subset) that extend both before expansion.
inline void read_endpoints(BitReader128& bits, const Bc7ModeInfo& m, Endpoints& out) {
    auto& ep = out.ep;
    const int ns = m.subsets;
    for (int c = 0; c < 3; ++c)
        for (int s = 0; s < ns; ++s)
            for (int e = 0; e < 2; ++e) ep[s][e][c] = int(bits.read(m.color_bits));
    for (int s = 0; s < ns; ++s)
        for (int e = 0; e < 2; ++e) ep[s][e][3] = m.alpha_bits ? int(bits.read(m.alpha_bits)) : 255;

    int pbit[3][2] = {};
    const bool has_p = m.endpoint_pbits || m.shared_pbits;
    if (m.endpoint_pbits)
        for (int s = 0; s < ns; ++s)
            for (int e = 0; e < 2; ++e) pbit[s][e] = int(bits.read(1));
    if (m.shared_pbits)
        for (int s = 0; s < ns; ++s) pbit[s][0] = pbit[s][1] = int(bits.read(1));

    const int cbits = m.color_bits + has_p, abits = m.alpha_bits + has_p;
    for (int s = 0; s < ns; ++s)
        for (int e = 0; e < 2; ++e) {
            for (int c = 0; c < 3; ++c) ep[s][e][c] = bc7_expand((ep[s][e][c] << has_p) | pbit[s][e], cbits);
            if (m.alpha_bits) ep[s][e][3] = bc7_expand((ep[s][e][3] << has_p) | pbit[s][e], abits);
        }
}

// Per texel, its four 16-bit interpolation weights (r, g, b from the colour
// index, a from the alpha index) in one 64-bit word.
struct TexelWeights {
    alignas(16) uint64_t wt[16];
};

// Index bits sit at the end of the block: read them through 64-bit windows.
// Anchor texels have one bit fewer; the index selection bit (mode 4) swaps
// which stream drives colour and which alpha.
inline void read_weights(const BitReader128& bits, const Bc7ModeInfo& m, uint16_t anchors, bool index_sel,
                         TexelWeights& out) {
    uint8_t idx1[16], idx2[16];
    const int start1 = bits.position();
    uint64_t w = bits.window(start1);
    for (int t = 0; t < 16; ++t) {
        const int n = m.index_bits - ((anchors >> t) & 1);
        idx1[t] = uint8_t(w & ((1u << n) - 1));
        w >>= n;
    }
    if (m.index2_bits) {
        w = bits.window(start1 + 16 * m.index_bits - 1);
        for (int t = 0; t < 16; ++t) {
            const int n = m.index2_bits - (t == 0);
            idx2[t] = uint8_t(w & ((1u << n) - 1));
            w >>= n;
        }
    }
    const uint8_t* color_idx = idx1;
    const uint8_t* alpha_idx = m.index2_bits ? idx2 : idx1;
    int color_ib = m.index_bits, alpha_ib = m.index2_bits ? m.index2_bits : m.index_bits;
    if (index_sel) {
        color_idx = idx2, alpha_idx = idx1;
        color_ib = m.index2_bits, alpha_ib = m.index_bits;
    }
    const uint8_t* cw = bptc::weights_for_bits(color_ib);
    const uint8_t* aw = bptc::weights_for_bits(alpha_ib);
    for (int t = 0; t < 16; ++t) {
        const uint64_t wc = cw[color_idx[t]], wa = aw[alpha_idx[t]];
        out.wt[t] = wc | wc << 16 | wc << 32 | wa << 48;
    }
}

// Interpolation two texels per register: 16-bit lanes (r, g, b, a) of both texels,
// ((64 − w)·e0 + w·e1 + 32) >> 6 exactly as bc7_interpolate. Per subset, one
// register holds e0 then e1. Rotation swaps alpha with one colour channel: a
// byte shuffle of every texel.
inline void interpolate(const Endpoints& e, int ns, const uint8_t* subset, const TexelWeights& tw, int rotation,
                        uint8_t out[64]) {
    const auto& ep = e.ep;
    __m128i ends[3];
    for (int s = 0; s < ns; ++s)
        ends[s] = _mm_setr_epi16(short(ep[s][0][0]), short(ep[s][0][1]), short(ep[s][0][2]), short(ep[s][0][3]),
                                 short(ep[s][1][0]), short(ep[s][1][1]), short(ep[s][1][2]), short(ep[s][1][3]));
    static const uint8_t kRotate[4][16] = {
        {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
        {3, 1, 2, 0, 7, 5, 6, 4, 11, 9, 10, 8, 15, 13, 14, 12},
        {0, 3, 2, 1, 4, 7, 6, 5, 8, 11, 10, 9, 12, 15, 14, 13},
        {0, 1, 3, 2, 4, 5, 7, 6, 8, 9, 11, 10, 12, 13, 15, 14},
    };
    const __m128i rot = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kRotate[rotation]));
    const __m128i w64 = _mm_set1_epi16(64), half = _mm_set1_epi16(32);
    for (int t = 0; t < 16; t += 4) {
        __m128i px[2];
        for (int k = 0; k < 2; ++k) {
            const __m128i a = ends[subset[t + 2 * k]], b = ends[subset[t + 2 * k + 1]];
            const __m128i e0 = _mm_unpacklo_epi64(a, b), e1 = _mm_unpackhi_epi64(a, b);
            const __m128i w = _mm_load_si128(reinterpret_cast<const __m128i*>(tw.wt + t + 2 * k));
            const __m128i sum =
                _mm_add_epi16(_mm_add_epi16(_mm_mullo_epi16(_mm_sub_epi16(w64, w), e0), _mm_mullo_epi16(w, e1)), half);
            px[k] = _mm_srli_epi16(sum, 6);
        }
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 4 * t),
                         _mm_shuffle_epi8(_mm_packus_epi16(px[0], px[1]), rot));
    }
}

} // namespace

void decode_bc7_block(const uint8_t in[16], uint8_t out[64]) {
    if (in[0] == 0) { // reserved mode: D3D returns transparent black
        memset(out, 0, 64);
        return;
    }
    const int mode = __builtin_ctz(in[0]);
    const Bc7ModeInfo& m = kBc7Modes[mode];
    BitReader128 bits(in);
    bits.seek(mode + 1);
    const int partition = int(bits.read(m.partition_bits));
    const int rotation = int(bits.read(m.rotation_bits));
    const int index_sel = int(bits.read(m.index_sel_bits));

    Endpoints ep;
    read_endpoints(bits, m, ep);
    TexelWeights tw;
    read_weights(bits, m, bptc::anchor_mask(m.subsets, partition), index_sel != 0, tw);
    interpolate(ep, m.subsets, bptc::subset_map(m.subsets, partition), tw, rotation, out);
}

} // namespace af::bc
