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

inline void write_colour(const uint8_t* block, bool four, uint8_t* rgba, size_t pitch) {
    uint32_t pal[4];
    palette_words(load_u16(block), load_u16(block + 2), four, pal);
    uint32_t idx = load_u32(block + 4);
    for (int y = 0; y < 4; ++y) {
        uint32_t row[4] = {pal[idx & 3], pal[(idx >> 2) & 3], pal[(idx >> 4) & 3], pal[(idx >> 6) & 3]};
        std::memcpy(rgba + y * pitch, row, 16);
        idx >>= 8;
    }
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
    pal[0] = uint8_t(a);
    pal[1] = uint8_t(b);
    if (eight_value_mode(e0, e1, is_signed)) {
        // (w0*a + w1*b)/7 rounded: add 3 (7 is odd, no ties).
        for (int i = 1; i < 7; ++i) pal[i + 1] = uint8_t(((7 - i) * a + i * b + 3) / 7);
    } else {
        for (int i = 1; i < 5; ++i) pal[i + 1] = uint8_t(((5 - i) * a + i * b + 2) / 5);
        pal[6] = is_signed ? 1 : 0;
        pal[7] = 255;
    }
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
    write_colour(block + 8, true, rgba, pitch);
    alignas(16) uint8_t a[16];
    decode_bc4_bytes(block, false, a);
    const __m128i av = _mm_load_si128(reinterpret_cast<const __m128i*>(a));
    const __m128i rgb = _mm_set1_epi32(0x00ffffff);
    // The byte shift takes an immediate: one per row, spelled out (clang
    // rejects a loop counter there even when the loop could be unrolled).
    const __m128i rows[4] = {av, _mm_srli_si128(av, 4), _mm_srli_si128(av, 8), _mm_srli_si128(av, 12)};
    for (int y = 0; y < 4; ++y) {
        __m128i* row = reinterpret_cast<__m128i*>(rgba + y * pitch);
        __m128i alpha = _mm_slli_epi32(_mm_cvtepu8_epi32(rows[y]), 24);
        _mm_storeu_si128(row, _mm_or_si128(_mm_and_si128(_mm_loadu_si128(row), rgb), alpha));
    }
}

void decode_bc4_bytes(const uint8_t block[8], bool is_signed, uint8_t out[16]) {
    alignas(16) uint8_t pal[16] = {};
    bc4_palette(block[0], block[1], is_signed, pal);
    const uint64_t idx = load_u48(block + 2);
    alignas(16) uint8_t ix[16];
    for (int i = 0; i < 16; ++i) ix[i] = uint8_t((idx >> (3 * i)) & 7);
    // One byte shuffle looks up all 16 texels in the 8-entry palette.
    const __m128i v = _mm_shuffle_epi8(_mm_load_si128(reinterpret_cast<const __m128i*>(pal)),
                                       _mm_load_si128(reinterpret_cast<const __m128i*>(ix)));
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
