// BC6H block decoder, exact to ARB_texture_compression_bptc / D3D11.
#include "bc6h_modes.hpp"
#include "bptc.hpp"
#include "bptc_tables.hpp"

#include <cstring>
#include <smmintrin.h>

namespace af::bc {

namespace {

// The block's 16 texels as half bit patterns, one array per channel.
template <bool kSigned> void decode_channels(const uint8_t in[16], uint16_t ch[3][16]) {
    using namespace bc6h;
    const int mi = mode_index(in[0]);
    if (mi < 0) { // reserved mode: D3D decodes to zero
        memset(ch, 0, 3 * 16 * sizeof(uint16_t));
        return;
    }
    const ModeLayout& m = kModes[mi];
    const ParsedLayout& layout = kLayouts[mi];
    // Every run's position is fixed by the mode, so the fields are read
    // independently out of the whole block rather than through a cursor.
    unsigned __int128 block;
    memcpy(&block, in, 16);
    int f[12] = {};
    for (int r = 0; r < layout.run_count; ++r) {
        const BitRun& run = layout.runs[r];
        uint32_t v = uint32_t(block >> run.start) & ((1u << run.count) - 1);
        if (run.reversed) v = reverse_bits(v, run.count);
        f[run.field] |= int(v << run.shift);
    }
    const int header_bits = m.code_bits + layout.bits;
    const int partition = m.subsets == 2 ? int(uint32_t(block >> header_bits) & 31) : 0;
    const int nfields = 6 * m.subsets;
    const int epb = m.epb;

    if (kSigned)
        for (int c = 0; c < 3; ++c) f[c] = sign_extend(f[c], epb);
    if (m.transformed) {
        const int mask = (1 << epb) - 1;
        for (int i = 3; i < nfields; ++i) {
            int v = (f[i % 3] + sign_extend(f[i], m.delta[i % 3])) & mask;
            f[i] = kSigned ? sign_extend(v, epb) : v;
        }
    } else if (kSigned) {
        for (int i = 3; i < nfields; ++i) f[i] = sign_extend(f[i], epb);
    }
    for (int i = 0; i < nfields; ++i) f[i] = unquantize(f[i], epb, kSigned);

    const uint8_t* subset = bptc::subset_map(m.subsets, partition);
    const uint16_t anchors = bptc::anchor_mask(m.subsets, partition);
    const int ib = m.subsets == 2 ? 3 : 4;
    const uint8_t* w = bptc::weights_for_bits(ib);
    uint64_t idx_bits = uint64_t(block >> (header_bits + (m.subsets == 2 ? 5 : 0))); // the rest of the block
    alignas(16) int32_t weight[16], in_second[16];
    for (int t = 0; t < 16; ++t) {
        const int n = ib - ((anchors >> t) & 1);
        weight[t] = w[idx_bits & ((1u << n) - 1)];
        idx_bits >>= n;
        in_second[t] = -int32_t(subset[t]); // all ones selects subset 1's endpoints
    }
    // Interpolation and finish_unquantize four texels at a time, a channel
    // at a time; the values fit 32 bits (at most 0xFFFF · 64).
    const __m128i sixty_four = _mm_set1_epi32(64), round = _mm_set1_epi32(32), k31 = _mm_set1_epi32(31);
    for (int c = 0; c < 3; ++c) {
        const __m128i a0 = _mm_set1_epi32(f[c]), b0 = _mm_set1_epi32(f[3 + c]);
        const __m128i a1 = _mm_set1_epi32(f[6 + c]), b1 = _mm_set1_epi32(f[9 + c]);
        __m128i h[4];
        for (int g = 0; g < 4; ++g) {
            const __m128i wt = _mm_load_si128(reinterpret_cast<const __m128i*>(weight + 4 * g));
            const __m128i sel = _mm_load_si128(reinterpret_cast<const __m128i*>(in_second + 4 * g));
            const __m128i a = _mm_blendv_epi8(a0, a1, sel), b = _mm_blendv_epi8(b0, b1, sel);
            const __m128i v = _mm_srai_epi32(
                _mm_add_epi32(_mm_add_epi32(_mm_mullo_epi32(a, _mm_sub_epi32(sixty_four, wt)), _mm_mullo_epi32(b, wt)),
                              round),
                6);
            if (kSigned) {
                const __m128i mag = _mm_srli_epi32(_mm_mullo_epi32(_mm_abs_epi32(v), k31), 5);
                h[g] = _mm_or_si128(mag, _mm_and_si128(_mm_srai_epi32(v, 31), _mm_set1_epi32(0x8000)));
            } else {
                h[g] = _mm_srli_epi32(_mm_mullo_epi32(v, k31), 6);
            }
        }
        _mm_store_si128(reinterpret_cast<__m128i*>(ch[c]), _mm_packus_epi32(h[0], h[1]));
        _mm_store_si128(reinterpret_cast<__m128i*>(ch[c] + 8), _mm_packus_epi32(h[2], h[3]));
    }
}

void decode_channels(const uint8_t in[16], uint16_t ch[3][16], bool is_signed) {
    if (is_signed)
        decode_channels<true>(in, ch);
    else
        decode_channels<false>(in, ch);
}

// Eight halves to the bytes of their values clamped to [0, 1]: the float
// widening of `widen` below, then round to nearest. Products of a half and
// 255 are exact in float, so the only tie is 0.5 → 127.5, which nearest-even
// and round-half-away both take to 128.
__m128i halves_to_bytes(__m128i h) {
    const __m128i lo = _mm_cvtepu16_epi32(h), hi = _mm_cvtepu16_epi32(_mm_srli_si128(h, 8));
    auto one = [](__m128i v) {
        const __m128i negative = _mm_srai_epi32(_mm_slli_epi32(v, 16), 31);
        __m128 f = _mm_mul_ps(_mm_castsi128_ps(_mm_slli_epi32(_mm_and_si128(v, _mm_set1_epi32(0x7fff)), 13)),
                              _mm_set1_ps(0x1p112f));
        f = _mm_min_ps(f, _mm_set1_ps(1.0f)); // Inf's widened bits are finite (65536) and clamp to 1 too
        f = _mm_andnot_ps(_mm_castsi128_ps(negative), f);
        return _mm_cvtps_epi32(_mm_mul_ps(f, _mm_set1_ps(255.0f)));
    };
    return _mm_packus_epi32(one(lo), one(hi));
}

// Half to float without the general converter's subnormal loop: shifting the
// half's bits into a float's places and scaling by 2^112 rebases the
// exponent, which is exact for normal and subnormal halves alike. Only the
// all-ones exponent (SF16's -Inf, see the decoder's tests) needs its own case.
float widen(uint16_t h) {
    const uint32_t mag = h & 0x7fffu;
    float f;
    uint32_t bits = mag << 13;
    std::memcpy(&f, &bits, 4);
    f *= 0x1p112f;
    std::memcpy(&bits, &f, 4);
    if (mag >= 0x7c00u) bits = 0x7f800000u | (mag & 0x3ffu) << 13;
    bits |= uint32_t(h & 0x8000u) << 16;
    std::memcpy(&f, &bits, 4);
    return f;
}

} // namespace

void decode_bc6h_block_float(const uint8_t in[16], float out[64], bool is_signed) {
    alignas(16) uint16_t ch[3][16];
    decode_channels(in, ch, is_signed);
    for (int t = 0; t < 16; ++t) {
        for (int c = 0; c < 3; ++c) out[4 * t + c] = widen(ch[c][t]);
        out[4 * t + 3] = 1.0f;
    }
}

void decode_bc6h_block(const uint8_t in[16], uint16_t out[48], bool is_signed) {
    alignas(16) uint16_t ch[3][16];
    decode_channels(in, ch, is_signed);
    for (int t = 0; t < 16; ++t) out[3 * t] = ch[0][t], out[3 * t + 1] = ch[1][t], out[3 * t + 2] = ch[2][t];
}

void decode_bc6h_block_rgba8(const uint8_t in[16], uint8_t* out, size_t pitch, bool is_signed) {
    alignas(16) uint16_t ch[3][16];
    decode_channels(in, ch, is_signed);
    auto bytes = [&](int c) {
        const __m128i* v = reinterpret_cast<const __m128i*>(ch[c]);
        return _mm_packus_epi16(halves_to_bytes(_mm_load_si128(v)), halves_to_bytes(_mm_load_si128(v + 1)));
    };
    const __m128i r = bytes(0), g = bytes(1), b = bytes(2), a = _mm_set1_epi8(char(0xff));
    const __m128i rg_lo = _mm_unpacklo_epi8(r, g), rg_hi = _mm_unpackhi_epi8(r, g);
    const __m128i ba_lo = _mm_unpacklo_epi8(b, a), ba_hi = _mm_unpackhi_epi8(b, a);
    const __m128i rows[4] = {_mm_unpacklo_epi16(rg_lo, ba_lo), _mm_unpackhi_epi16(rg_lo, ba_lo),
                             _mm_unpacklo_epi16(rg_hi, ba_hi), _mm_unpackhi_epi16(rg_hi, ba_hi)};
    for (int y = 0; y < 4; ++y) _mm_storeu_si128(reinterpret_cast<__m128i*>(out + y * pitch), rows[y]);
}

} // namespace af::bc
