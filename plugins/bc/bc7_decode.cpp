// BC7 block decoder, exact to ARB_texture_compression_bptc / D3D11.
#include "bc7_modes.hpp"
#include "bit_stream.hpp"
#include "bptc.hpp"
#include "bptc_tables.hpp"

#include <cstring>

namespace af::bc {

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

    const int ns = m.subsets;
    int ep[3][2][4]; // [subset][endpoint][channel]
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

    const uint8_t* subset = bptc::subset_map(ns, partition);
    const uint16_t anchors = bptc::anchor_mask(ns, partition);
    uint8_t idx1[16], idx2[16];
    for (int t = 0; t < 16; ++t) idx1[t] = uint8_t(bits.read(m.index_bits - ((anchors >> t) & 1)));
    if (m.index2_bits)
        for (int t = 0; t < 16; ++t) idx2[t] = uint8_t(bits.read(m.index2_bits - (t == 0)));

    // Which index stream drives colour and alpha (index selection bit, mode 4).
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
        const int (*e)[4] = ep[subset[t]];
        const int wc = cw[color_idx[t]], wa = aw[alpha_idx[t]];
        uint8_t px[4] = {uint8_t(bc7_interpolate(e[0][0], e[1][0], wc)), uint8_t(bc7_interpolate(e[0][1], e[1][1], wc)),
                         uint8_t(bc7_interpolate(e[0][2], e[1][2], wc)), uint8_t(bc7_interpolate(e[0][3], e[1][3], wa))};
        if (rotation) {
            uint8_t tmp = px[3];
            px[3] = px[rotation - 1];
            px[rotation - 1] = tmp;
        }
        memcpy(out + 4 * t, px, 4);
    }
}

} // namespace af::bc
