// BC6H mode layouts (ARB_texture_compression_bptc Table.MF and Table.F).
// The bit layouts are kept as the spec's format strings and turned into
// (field, bit, count, reversed) runs at compile time; static_asserts check
// that every field bit appears exactly once and the totals are 82 / 65 bits.
#pragma once

#include <array>
#include <cstdint>

namespace af::bc::bc6h {

// Fields: endpoint k (0..3) channel c (0..2) is field 3*k + c (r0 g0 b0 r1 g1 b1 …).
struct BitRun {
    uint8_t field, shift, count, reversed;
    uint8_t start; // position of the run's first bit in the block
};

struct ModeLayout {
    uint8_t code;      // mode number as stored (2 or 5 low bits)
    uint8_t code_bits; // 2 or 5
    bool transformed;  // endpoints 1..3 are deltas from endpoint 0
    uint8_t subsets;   // 2 when the mode has 5 partition bits, else 1
    uint8_t epb;       // endpoint bits
    uint8_t delta[3];  // bits of the stored r/g/b for endpoints 1..3
    const char* format;
};

// Format strings with the leading m[..] removed; Table.F.
// clang-format off
inline constexpr ModeLayout kModes[14] = {
    {0, 2, true, 2, 10, {5, 5, 5},
     "g2[4],b2[4],b3[4],r0[9:0],g0[9:0],b0[9:0],r1[4:0],g3[4],g2[3:0],g1[4:0],b3[0],g3[3:0],b1[4:0],b3[1],b2[3:0],"
     "r2[4:0],b3[2],r3[4:0],b3[3]"},
    {1, 2, true, 2, 7, {6, 6, 6},
     "g2[5],g3[4],g3[5],r0[6:0],b3[0],b3[1],b2[4],g0[6:0],b2[5],b3[2],g2[4],b0[6:0],b3[3],b3[5],b3[4],r1[5:0],g2[3:0],"
     "g1[5:0],g3[3:0],b1[5:0],b2[3:0],r2[5:0],r3[5:0]"},
    {2, 5, true, 2, 11, {5, 4, 4},
     "r0[9:0],g0[9:0],b0[9:0],r1[4:0],r0[10],g2[3:0],g1[3:0],g0[10],b3[0],g3[3:0],b1[3:0],b0[10],b3[1],b2[3:0],r2[4:0],"
     "b3[2],r3[4:0],b3[3]"},
    {6, 5, true, 2, 11, {4, 5, 4},
     "r0[9:0],g0[9:0],b0[9:0],r1[3:0],r0[10],g3[4],g2[3:0],g1[4:0],g0[10],g3[3:0],b1[3:0],b0[10],b3[1],b2[3:0],r2[3:0],"
     "b3[0],b3[2],r3[3:0],g2[4],b3[3]"},
    {10, 5, true, 2, 11, {4, 4, 5},
     "r0[9:0],g0[9:0],b0[9:0],r1[3:0],r0[10],b2[4],g2[3:0],g1[3:0],g0[10],b3[0],g3[3:0],b1[4:0],b0[10],b2[3:0],r2[3:0],"
     "b3[1],b3[2],r3[3:0],b3[4],b3[3]"},
    {14, 5, true, 2, 9, {5, 5, 5},
     "r0[8:0],b2[4],g0[8:0],g2[4],b0[8:0],b3[4],r1[4:0],g3[4],g2[3:0],g1[4:0],b3[0],g3[3:0],b1[4:0],b3[1],b2[3:0],"
     "r2[4:0],b3[2],r3[4:0],b3[3]"},
    {18, 5, true, 2, 8, {6, 5, 5},
     "r0[7:0],g3[4],b2[4],g0[7:0],b3[2],g2[4],b0[7:0],b3[3],b3[4],r1[5:0],g2[3:0],g1[4:0],b3[0],g3[3:0],b1[4:0],b3[1],"
     "b2[3:0],r2[5:0],r3[5:0]"},
    {22, 5, true, 2, 8, {5, 6, 5},
     "r0[7:0],b3[0],b2[4],g0[7:0],g2[5],g2[4],b0[7:0],g3[5],b3[4],r1[4:0],g3[4],g2[3:0],g1[5:0],g3[3:0],b1[4:0],b3[1],"
     "b2[3:0],r2[4:0],b3[2],r3[4:0],b3[3]"},
    {26, 5, true, 2, 8, {5, 5, 6},
     "r0[7:0],b3[1],b2[4],g0[7:0],b2[5],g2[4],b0[7:0],b3[5],b3[4],r1[4:0],g3[4],g2[3:0],g1[4:0],b3[0],g3[3:0],b1[5:0],"
     "b2[3:0],r2[4:0],b3[2],r3[4:0],b3[3]"},
    {30, 5, false, 2, 6, {6, 6, 6},
     "r0[5:0],g3[4],b3[0],b3[1],b2[4],g0[5:0],g2[5],b2[5],b3[2],g2[4],b0[5:0],g3[5],b3[3],b3[5],b3[4],r1[5:0],g2[3:0],"
     "g1[5:0],g3[3:0],b1[5:0],b2[3:0],r2[5:0],r3[5:0]"},
    {3, 5, false, 1, 10, {10, 10, 10}, "r0[9:0],g0[9:0],b0[9:0],r1[9:0],g1[9:0],b1[9:0]"},
    {7, 5, true, 1, 11, {9, 9, 9}, "r0[9:0],g0[9:0],b0[9:0],r1[8:0],r0[10],g1[8:0],g0[10],b1[8:0],b0[10]"},
    {11, 5, true, 1, 12, {8, 8, 8}, "r0[9:0],g0[9:0],b0[9:0],r1[7:0],r0[10:11],g1[7:0],g0[10:11],b1[7:0],b0[10:11]"},
    {15, 5, true, 1, 16, {4, 4, 4}, "r0[9:0],g0[9:0],b0[9:0],r1[3:0],r0[10:15],g1[3:0],g0[10:15],b1[3:0],b0[10:15]"},
};
// clang-format on

struct ParsedLayout {
    std::array<BitRun, 32> runs{};
    int run_count = 0;
    int bits = 0; // endpoint bits, excluding mode and partition bits
};

consteval int parse_number(const char*& p) {
    int v = 0;
    while (*p >= '0' && *p <= '9') v = v * 10 + (*p++ - '0');
    return v;
}

consteval ParsedLayout parse_layout(const char* p, int code_bits) {
    ParsedLayout out;
    while (*p) {
        const char ch = *p++;
        const int channel = ch == 'r' ? 0 : ch == 'g' ? 1 : ch == 'b' ? 2 : throw "bad channel";
        const int endpoint = parse_number(p);
        if (*p++ != '[') throw "expected [";
        int a = parse_number(p), b = a;
        if (*p == ':') ++p, b = parse_number(p);
        if (*p++ != ']') throw "expected ]";
        if (*p == ',') ++p;
        BitRun r{};
        r.field = uint8_t(3 * endpoint + channel);
        r.shift = uint8_t(a < b ? a : b);
        r.count = uint8_t((a < b ? b - a : a - b) + 1);
        r.reversed = a < b;
        r.start = uint8_t(code_bits + out.bits);
        out.runs[out.run_count++] = r;
        out.bits += r.count;
    }
    return out;
}

consteval std::array<ParsedLayout, 14> parse_all() {
    std::array<ParsedLayout, 14> all{};
    for (int i = 0; i < 14; ++i) all[i] = parse_layout(kModes[i].format, kModes[i].code_bits);
    return all;
}
inline constexpr std::array<ParsedLayout, 14> kLayouts = parse_all();

// Width of a field in a mode: endpoint 0 has epb bits, the others the delta bits.
constexpr int field_width(const ModeLayout& m, int field) { return field < 3 ? m.epb : m.delta[field % 3]; }

consteval bool layouts_consistent() {
    for (int i = 0; i < 14; ++i) {
        const ModeLayout& m = kModes[i];
        const ParsedLayout& l = kLayouts[i];
        if (m.code_bits + l.bits + (m.subsets == 2 ? 5 : 0) != (m.subsets == 2 ? 82 : 65)) return false;
        uint32_t seen[12] = {};
        for (int r = 0; r < l.run_count; ++r)
            for (int k = 0; k < l.runs[r].count; ++k) {
                const uint32_t bit = 1u << (l.runs[r].shift + k);
                if (seen[l.runs[r].field] & bit) return false;
                seen[l.runs[r].field] |= bit;
            }
        for (int f = 0; f < 12; ++f) {
            const int w = f < 3 * m.subsets * 2 ? field_width(m, f) : 0;
            if (seen[f] != (w ? (w == 32 ? ~0u : (1u << w) - 1) : 0u)) return false;
        }
    }
    return true;
}
static_assert(layouts_consistent(), "BC6H layout strings disagree with Table.MF");

// Index into kModes for the low five bits of the first byte, or -1 for a reserved mode.
consteval std::array<int8_t, 32> make_mode_lookup() {
    std::array<int8_t, 32> t{};
    for (int b = 0; b < 32; ++b) {
        t[b] = -1;
        if ((b & 3) < 2)
            t[b] = int8_t(b & 3);
        else
            for (int i = 2; i < 14; ++i)
                if (kModes[i].code == b) t[b] = int8_t(i);
    }
    return t;
}
inline constexpr std::array<int8_t, 32> kModeLookup = make_mode_lookup();
constexpr int mode_index(uint8_t first_byte) { return kModeLookup[first_byte & 31]; }

constexpr uint32_t reverse_bits(uint32_t v, int n) {
    uint32_t r = 0;
    for (int i = 0; i < n; ++i) r |= ((v >> i) & 1u) << (n - 1 - i);
    return r;
}

constexpr int sign_extend(int v, int bits) {
    const int shift = 32 - bits;
    return int(uint32_t(v) << shift) >> shift;
}

// Endpoint unquantisation to the 16/17-bit interpolation domain.
constexpr int unquantize(int x, int epb, bool is_signed) {
    if (!is_signed) {
        if (epb >= 15) return x;
        if (x == 0) return 0;
        if (x == (1 << epb) - 1) return 0xFFFF;
        return ((x << 15) + 0x4000) >> (epb - 1);
    }
    if (epb >= 16) return x;
    const bool neg = x < 0;
    if (neg) x = -x;
    int u;
    if (x == 0)
        u = 0;
    else if (x >= (1 << (epb - 1)) - 1)
        u = 0x7FFF;
    else
        u = ((x << 15) + 0x4000) >> (epb - 1);
    return neg ? -u : u;
}

// Interpolated value → half bit pattern.
constexpr uint16_t finish_unquantize(int x, bool is_signed) {
    if (!is_signed) return uint16_t((x * 31) >> 6);
    if (x < 0) return uint16_t((((-x) * 31) >> 5) | 0x8000);
    return uint16_t((x * 31) >> 5);
}

} // namespace af::bc::bc6h
