// Single-colour tables for BC1 colour blocks, computed at compile time from
// the decoder's own rounding rule (bc_block.hpp): for every 8-bit value, the
// pair of quantised endpoints whose interpolant reproduces it best.
#pragma once

#include <array>
#include <cstdint>

namespace af::bc::tables {

struct EndpointPair {
    uint8_t hi, lo; // quantised (5- or 6-bit) endpoint values
    uint8_t err;    // |decoded - value|
};

constexpr int expand(int q, int bits) { return bits == 5 ? (q << 3 | q >> 2) : (q << 2 | q >> 4); }

// third = true: the value at index 2 of the 4-colour palette, (2·hi + lo + 1) / 3.
// third = false: the 3-colour midpoint (hi + lo + 1) / 2.
constexpr std::array<EndpointPair, 256> make_single(int bits, bool third) {
    std::array<EndpointPair, 256> t{};
    int spread[256] = {};
    bool hit[256] = {};
    const int n = 1 << bits;
    // Every value some pair produces exactly; among pairs, endpoints closest together
    // (least damage when neighbouring texels differ slightly).
    for (int hi = 0; hi < n; ++hi)
        for (int lo = 0; lo < n; ++lo) {
            int a = expand(hi, bits), b = expand(lo, bits);
            int d = third ? (2 * a + b + 1) / 3 : (a + b + 1) / 2;
            int s = a > b ? a - b : b - a;
            if (!hit[d] || s < spread[d]) {
                hit[d] = true;
                spread[d] = s;
                t[d] = EndpointPair{uint8_t(hi), uint8_t(lo), 0};
            }
        }
    // Values no pair produces take the nearest value that one does.
    for (int v = 0; v < 256; ++v) {
        if (hit[v]) continue;
        for (int k = 1; k < 256; ++k) {
            if (v - k >= 0 && hit[v - k]) { t[v] = t[v - k]; t[v].err = uint8_t(k); break; }
            if (v + k < 256 && hit[v + k]) { t[v] = t[v + k]; t[v].err = uint8_t(k); break; }
        }
    }
    return t;
}

// 8-bit value → the 5/6-bit code whose bit-replicated expansion is nearest.
constexpr std::array<uint8_t, 256> make_nearest(int bits) {
    std::array<uint8_t, 256> t{};
    for (int v = 0; v < 256; ++v) {
        int best = 0, be = 1 << 30;
        for (int q = 0; q < (1 << bits); ++q) {
            int d = expand(q, bits) - v;
            d = d < 0 ? -d : d;
            if (d < be) be = d, best = q;
        }
        t[v] = uint8_t(best);
    }
    return t;
}

inline constexpr auto kNearest5 = make_nearest(5);
inline constexpr auto kNearest6 = make_nearest(6);
inline constexpr auto kThird5 = make_single(5, true);
inline constexpr auto kThird6 = make_single(6, true);
inline constexpr auto kHalf5 = make_single(5, false);
inline constexpr auto kHalf6 = make_single(6, false);

} // namespace af::bc::tables
