// BC6H block decoder, exact to ARB_texture_compression_bptc / D3D11.
#include "bc6h_modes.hpp"
#include "bit_stream.hpp"
#include "bptc.hpp"
#include "bptc_tables.hpp"

#include <cstring>

namespace af::bc {

void decode_bc6h_block(const uint8_t in[16], uint16_t out[48], bool is_signed) {
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

    if (is_signed)
        for (int c = 0; c < 3; ++c) f[c] = sign_extend(f[c], epb);
    if (m.transformed) {
        const int mask = (1 << epb) - 1;
        for (int i = 3; i < nfields; ++i) {
            int v = (f[i % 3] + sign_extend(f[i], m.delta[i % 3])) & mask;
            f[i] = is_signed ? sign_extend(v, epb) : v;
        }
    } else if (is_signed) {
        for (int i = 3; i < nfields; ++i) f[i] = sign_extend(f[i], epb);
    }
    for (int i = 0; i < nfields; ++i) f[i] = unquantize(f[i], epb, is_signed);

    const uint8_t* subset = bptc::subset_map(m.subsets, partition);
    const uint16_t anchors = bptc::anchor_mask(m.subsets, partition);
    const int ib = m.subsets == 2 ? 3 : 4;
    const uint8_t* w = bptc::weights_for_bits(ib);
    for (int t = 0; t < 16; ++t) {
        const int idx = int(bits.read(ib - ((anchors >> t) & 1)));
        const int* e = f + 6 * subset[t];
        for (int c = 0; c < 3; ++c) {
            const int v = (e[c] * (64 - w[idx]) + e[3 + c] * w[idx] + 32) >> 6;
            out[3 * t + c] = finish_unquantize(v, is_signed);
        }
    }
}

} // namespace af::bc
