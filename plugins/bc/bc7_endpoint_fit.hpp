// Fitting one BC7 subset: endpoints quantised to a mode's precision (with
// p-bits) plus the indices that go with them, minimising weighted squared
// error. Shared by every mode; the caller arranges the channels (RGB, RGBA,
// the rotated colour set of modes 4/5, or a single scalar channel).
#pragma once

#include <cstdint>

namespace af::bc::bc7fit {

struct EndpointFormat {
    int channels;     // 1..4 channels fitted with one set of indices
    int bits[4];      // stored bits per channel (without the p-bit)
    int pbits;        // 0 none, 1 shared by both endpoints, 2 one per endpoint
    bool force_p1;    // p-bits must be 1 (opaque alpha in modes 6/7)
    int index_bits;   // 2, 3 or 4
};

struct FitParams {
    int refine_iterations = 1;   // least-squares / re-index rounds
    int perturb_passes = 0;      // ±1 endpoint search passes
    bool exhaustive_index = false; // test every palette entry instead of the projected two
    bool try_all_pbits = false;  // evaluate every p-bit combination fully
};

struct Subset {
    const float (*px)[4]; // 16 texels, only the first `channels` used
    const uint8_t* texels; // texel numbers in this subset
    int count;
    const float* weights; // per channel
};

struct FitResult {
    int q[2][4]; // stored endpoint fields
    int p[2];    // p-bits (equal when shared)
    uint8_t index[16]; // by texel number, only the subset's texels written
    float error;
};

void fit_subset(const Subset& s, const EndpointFormat& f, const FitParams& params, FitResult& out);

// Decoded 8-bit value of a stored endpoint field.
inline int dequantize(int q, int p, int bits, int pbits) {
    const int v = pbits ? (q << 1) | p : q;
    const int n = bits + (pbits ? 1 : 0);
    return (v << (8 - n)) | (v >> (2 * n - 8));
}

} // namespace af::bc::bc7fit
