// BC1–BC5 decoders. See bc_block.hpp for the rounding rules.
#include "bc_block.hpp"

#include <cstring>
#include <smmintrin.h>

namespace af::bc {
namespace {

inline uint32_t load_u32(const uint8_t* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v; // little-endian host (x86-64, AArch64)
}
inline uint16_t load_u16(const uint8_t* p) { return uint16_t(p[0] | p[1] << 8); }
inline uint64_t load_u48(const uint8_t* p) {
    return uint64_t(p[0]) | uint64_t(p[1]) << 8 | uint64_t(p[2]) << 16 | uint64_t(p[3]) << 24 |
           uint64_t(p[4]) << 32 | uint64_t(p[5]) << 40;
}

inline uint32_t pack(uint32_t r, uint32_t g, uint32_t b, uint32_t a) { return r | g << 8 | b << 16 | a << 24; }

// Palette as four packed RGBA words.
inline void palette_words(uint16_t c0, uint16_t c1, bool four, uint32_t pal[4]) {
    uint32_t r0 = (c0 >> 11) & 31, g0 = (c0 >> 5) & 63, b0 = c0 & 31;
    uint32_t r1 = (c1 >> 11) & 31, g1 = (c1 >> 5) & 63, b1 = c1 & 31;
    r0 = r0 << 3 | r0 >> 2; g0 = g0 << 2 | g0 >> 4; b0 = b0 << 3 | b0 >> 2;
    r1 = r1 << 3 | r1 >> 2; g1 = g1 << 2 | g1 >> 4; b1 = b1 << 3 | b1 >> 2;
    pal[0] = pack(r0, g0, b0, 255);
    pal[1] = pack(r1, g1, b1, 255);
    if (four || c0 > c1) {
        pal[2] = pack((2 * r0 + r1 + 1) / 3, (2 * g0 + g1 + 1) / 3, (2 * b0 + b1 + 1) / 3, 255);
        pal[3] = pack((r0 + 2 * r1 + 1) / 3, (g0 + 2 * g1 + 1) / 3, (b0 + 2 * b1 + 1) / 3, 255);
    } else {
        pal[2] = pack((r0 + r1 + 1) >> 1, (g0 + g1 + 1) >> 1, (b0 + b1 + 1) >> 1, 255);
        pal[3] = 0;
    }
}

// The whole block in SSE: palette as four RGBA words in one register (the
// same arithmetic as palette_words), then one byte shuffle per row.
inline void colour_rows(const uint8_t* block, bool four, __m128i out[4]) {
    const uint16_t c0 = load_u16(block), c1 = load_u16(block + 2);
    // Bit-replicated endpoints in 16-bit lanes (r, g, b, 255) for c0 then c1: each field moved
    // to the top of its lane, then scaled down by its replication factor.
    const __m128i c = _mm_setr_epi16(short(c0), short(c0), short(c0), 0, short(c1), short(c1), short(c1), 0);
    const __m128i top = _mm_and_si128(_mm_mullo_epi16(c, _mm_setr_epi16(1, 32, 2048, 0, 1, 32, 2048, 0)),
                                      _mm_setr_epi16(short(0xf800), short(0xfc00), short(0xf800), 0, short(0xf800),
                                                     short(0xfc00), short(0xf800), 0));
    const __m128i ends = _mm_or_si128(_mm_mulhi_epu16(top, _mm_setr_epi16(264, 260, 264, 0, 264, 260, 264, 0)),
                                      _mm_setr_epi16(0, 0, 0, 255, 0, 0, 0, 255));
    const __m128i a = _mm_unpacklo_epi64(ends, ends), b = _mm_unpackhi_epi64(ends, ends);
    __m128i mids;
    if (four || c0 > c1) // (2a + b + 1) / 3 and (a + 2b + 1) / 3: a 16-bit reciprocal multiply, exact here
        mids = _mm_mulhi_epu16(_mm_add_epi16(_mm_add_epi16(a, b), _mm_add_epi16(ends, _mm_set1_epi16(1))),
                               _mm_set1_epi16(21846));
    else // (a + b + 1) / 2, then transparent black
        mids = _mm_unpacklo_epi64(_mm_avg_epu16(a, b), _mm_setzero_si128());
    const __m128i pal = _mm_packus_epi16(ends, mids);
    // 2-bit index of every texel into its own byte (texel order), times 4: the palette word's first byte.
    const uint32_t idx = load_u32(block + 4);
    const __m128i rows = _mm_shuffle_epi8(_mm_cvtsi32_si128(int(idx)),
                                          _mm_setr_epi8(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3));
    const __m128i x0 = _mm_set1_epi32(0x000000ff), x1 = _mm_set1_epi32(0x0000ff00), x2 = _mm_set1_epi32(0x00ff0000),
                  x3 = _mm_set1_epi32(int(0xff000000u));
    // Texel x of a row is bits 2x..2x+1 of the row byte; 16-bit shifts leave a lane's high byte clean.
    const __m128i sel = _mm_or_si128(
        _mm_or_si128(_mm_and_si128(_mm_slli_epi16(rows, 2), x0), _mm_and_si128(rows, x1)),
        _mm_or_si128(_mm_and_si128(_mm_srli_epi16(rows, 2), x2), _mm_and_si128(_mm_srli_epi16(rows, 4), x3)));
    const __m128i word = _mm_and_si128(sel, _mm_set1_epi8(12)); // index·4 in each texel's byte
    const __m128i lanes = _mm_set1_epi32(0x03020100);
    for (int y = 0; y < 4; ++y) {
        const __m128i spread = _mm_shuffle_epi8(word, _mm_setr_epi8(char(4 * y), char(4 * y), char(4 * y), char(4 * y),
                                                                    char(4 * y + 1), char(4 * y + 1), char(4 * y + 1),
                                                                    char(4 * y + 1), char(4 * y + 2), char(4 * y + 2),
                                                                    char(4 * y + 2), char(4 * y + 2), char(4 * y + 3),
                                                                    char(4 * y + 3), char(4 * y + 3), char(4 * y + 3)));
        out[y] = _mm_shuffle_epi8(pal, _mm_add_epi8(spread, lanes));
    }
}

inline void write_colour(const uint8_t* block, bool four, uint8_t* rgba, size_t pitch) {
    __m128i rows[4];
    colour_rows(block, four, rows);
    for (int y = 0; y < 4; ++y) _mm_storeu_si128(reinterpret_cast<__m128i*>(rgba + y * pitch), rows[y]);
}

// 16 three-bit indices (48 bits, little-endian) to one byte each: each 24-bit half
// goes to four 32-bit lanes, a multiply moves texel j's bits to the top, a shift
// brings them down.
inline __m128i bc4_indices(const uint8_t* p) {
    uint64_t bits = 0;
    std::memcpy(&bits, p, 6);
    const __m128i v = _mm_cvtsi64_si128(int64_t(bits));
    const __m128i lo = _mm_shuffle_epi8(v, _mm_setr_epi8(0, 1, 2, -1, 0, 1, 2, -1, 0, 1, 2, -1, 0, 1, 2, -1));
    const __m128i hi = _mm_shuffle_epi8(v, _mm_setr_epi8(3, 4, 5, -1, 3, 4, 5, -1, 3, 4, 5, -1, 3, 4, 5, -1));
    auto part = [](__m128i w, int first) { // texels first … first + 3 of this half
        const __m128i m = _mm_setr_epi32(1 << (29 - 3 * first), 1 << (26 - 3 * first), 1 << (23 - 3 * first),
                                         1 << (20 - 3 * first));
        return _mm_srli_epi32(_mm_mullo_epi32(w, m), 29);
    };
    return _mm_packus_epi16(_mm_packus_epi32(part(lo, 0), part(lo, 4)), _mm_packus_epi32(part(hi, 0), part(hi, 4)));
}

// Endpoint bytes to values in the byte domain (signed: value + 128).
inline void endpoints(uint8_t e0, uint8_t e1, bool is_signed, int& a, int& b) {
    if (is_signed) {
        int s0 = int8_t(e0), s1 = int8_t(e1);
        a = (s0 < -127 ? -127 : s0) + 128;
        b = (s1 < -127 ? -127 : s1) + 128;
    } else {
        a = e0;
        b = e1;
    }
}

// The mode test compares the raw endpoints: signed bytes for SNORM (so -128 > -127 is false but
// both clamp to the same value; the comparison uses the stored two's-complement numbers).
inline bool eight_value_mode(uint8_t e0, uint8_t e1, bool is_signed) {
    return is_signed ? int8_t(e0) > int8_t(e1) : e0 > e1;
}

} // namespace

void bc1_palette(uint16_t c0, uint16_t c1, bool four_colour, uint8_t pal[16]) {
    uint32_t w[4];
    palette_words(c0, c1, four_colour, w);
    std::memcpy(pal, w, 16);
}

void bc4_palette(uint8_t e0, uint8_t e1, bool is_signed, uint8_t pal[8]) {
    int a, b;
    endpoints(e0, e1, is_signed, a, b);
    // (w0·a + w1·b) / 7 or / 5 rounded (odd denominators: no ties), in 16-bit lanes; the
    // divisions are reciprocal multiplies, exact for sums up to 7·255 + 3.
    const __m128i av = _mm_set1_epi16(short(a)), bv = _mm_set1_epi16(short(b));
    __m128i v;
    if (eight_value_mode(e0, e1, is_signed)) {
        const __m128i sum = _mm_add_epi16(_mm_add_epi16(_mm_mullo_epi16(av, _mm_setr_epi16(7, 0, 6, 5, 4, 3, 2, 1)),
                                                        _mm_mullo_epi16(bv, _mm_setr_epi16(0, 7, 1, 2, 3, 4, 5, 6))),
                                          _mm_set1_epi16(3));
        v = _mm_mulhi_epu16(sum, _mm_set1_epi16(9363));
    } else {
        const __m128i sum = _mm_add_epi16(_mm_add_epi16(_mm_mullo_epi16(av, _mm_setr_epi16(5, 0, 4, 3, 2, 1, 0, 0)),
                                                        _mm_mullo_epi16(bv, _mm_setr_epi16(0, 5, 1, 2, 3, 4, 0, 0))),
                                          _mm_set1_epi16(2));
        v = _mm_blend_epi16(_mm_mulhi_epu16(sum, _mm_set1_epi16(13108)),
                            _mm_setr_epi16(0, 0, 0, 0, 0, 0, short(is_signed ? 1 : 0), 255), 0xc0);
    }
    const uint64_t bytes = uint64_t(_mm_cvtsi128_si64(_mm_packus_epi16(v, v)));
    std::memcpy(pal, &bytes, 8);
}

void decode_bc1(const uint8_t block[8], uint8_t* rgba, size_t pitch) { write_colour(block, false, rgba, pitch); }
void decode_colour4(const uint8_t block[8], uint8_t* rgba, size_t pitch) { write_colour(block, true, rgba, pitch); }

void decode_bc2(const uint8_t block[16], uint8_t* rgba, size_t pitch) {
    write_colour(block + 8, true, rgba, pitch);
    for (int y = 0; y < 4; ++y) {
        uint32_t a = uint32_t(block[2 * y]) | uint32_t(block[2 * y + 1]) << 8;
        uint8_t* row = rgba + y * pitch;
        for (int x = 0; x < 4; ++x) row[4 * x + 3] = uint8_t(((a >> (4 * x)) & 15) * 17);
    }
}

void decode_bc3(const uint8_t block[16], uint8_t* rgba, size_t pitch) {
    __m128i rows[4];
    colour_rows(block + 8, true, rows);
    alignas(16) uint8_t a[16];
    decode_bc4_bytes(block, false, a);
    const __m128i av = _mm_load_si128(reinterpret_cast<const __m128i*>(a));
    const __m128i rgb = _mm_set1_epi32(0x00ffffff);
    // The byte shift takes an immediate: one per row, spelled out (clang
    // rejects a loop counter there even when the loop could be unrolled).
    const __m128i alpha_rows[4] = {av, _mm_srli_si128(av, 4), _mm_srli_si128(av, 8), _mm_srli_si128(av, 12)};
    for (int y = 0; y < 4; ++y) {
        const __m128i alpha = _mm_slli_epi32(_mm_cvtepu8_epi32(alpha_rows[y]), 24);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(rgba + y * pitch), _mm_or_si128(_mm_and_si128(rows[y], rgb), alpha));
    }
}

void decode_bc4_bytes(const uint8_t block[8], bool is_signed, uint8_t out[16]) {
    alignas(16) uint8_t pal[16] = {};
    bc4_palette(block[0], block[1], is_signed, pal);
    // One byte shuffle looks up all 16 texels in the 8-entry palette.
    const __m128i v = _mm_shuffle_epi8(_mm_load_si128(reinterpret_cast<const __m128i*>(pal)), bc4_indices(block + 2));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), v);
}

void decode_bc4_float(const uint8_t block[8], bool is_signed, float out[16]) {
    int a, b;
    endpoints(block[0], block[1], is_signed, a, b);
    const float bias = is_signed ? 128.0f : 0.0f, scale = is_signed ? 1.0f / 127.0f : 1.0f / 255.0f;
    float pal[8];
    float fa = float(a) - bias, fb = float(b) - bias;
    pal[0] = fa * scale;
    pal[1] = fb * scale;
    if (eight_value_mode(block[0], block[1], is_signed)) {
        for (int i = 1; i < 7; ++i) pal[i + 1] = (float(7 - i) * fa + float(i) * fb) / 7.0f * scale;
    } else {
        for (int i = 1; i < 5; ++i) pal[i + 1] = (float(5 - i) * fa + float(i) * fb) / 5.0f * scale;
        pal[6] = is_signed ? -1.0f : 0.0f;
        pal[7] = 1.0f;
    }
    uint64_t idx = load_u48(block + 2);
    for (int i = 0; i < 16; ++i, idx >>= 3) out[i] = pal[idx & 7];
}

} // namespace af::bc
