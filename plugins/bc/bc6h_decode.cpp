// BC6H block decoder, exact to ARB_texture_compression_bptc / D3D11.
#include "bc6h_modes.hpp"
#include "bit_stream.hpp"
#include "bptc.hpp"
#include "bptc_tables.hpp"

#include <cstring>

namespace af::bc {

namespace {

template <bool kSigned> void decode_block(const uint8_t in[16], uint16_t out[48]) {
    using namespace bc6h;
    const int mi = mode_index(in[0]);
    if (mi < 0) { // reserved mode: D3D decodes to zero
        memset(out, 0, 48 * sizeof(uint16_t));
        return;
    }
    const ModeLayout& m = kModes[mi];
    const ParsedLayout& layout = kLayouts[mi];
    BitReader128 bits(in);
    bits.seek(m.code_bits);
    int f[12] = {};
    for (int r = 0; r < layout.run_count; ++r) {
        const BitRun& run = layout.runs[r];
        uint32_t v = bits.read(run.count);
        if (run.reversed) v = reverse_bits(v, run.count);
        f[run.field] |= int(v << run.shift);
    }
    const int partition = m.subsets == 2 ? int(bits.read(5)) : 0;
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
    uint64_t idx_bits = bits.window(bits.position()); // the indices fill the rest of the block
    for (int t = 0; t < 16; ++t) {
        const int n = ib - ((anchors >> t) & 1);
        const int idx = int(idx_bits & ((1u << n) - 1));
        idx_bits >>= n;
        const int* e = f + 6 * subset[t];
        const int wt = w[idx];
        for (int c = 0; c < 3; ++c) {
            const int v = (e[c] * (64 - wt) + e[3 + c] * wt + 32) >> 6;
            out[3 * t + c] = finish_unquantize(v, kSigned);
        }
    }
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
    uint16_t h[48];
    decode_bc6h_block(in, h, is_signed);
    for (int t = 0; t < 16; ++t) {
        for (int c = 0; c < 3; ++c) out[4 * t + c] = widen(h[3 * t + c]);
        out[4 * t + 3] = 1.0f;
    }
}

void decode_bc6h_block(const uint8_t in[16], uint16_t out[48], bool is_signed) {
    if (is_signed)
        decode_block<true>(in, out);
    else
        decode_block<false>(in, out);
}

} // namespace af::bc
