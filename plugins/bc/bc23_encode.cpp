// BC2 and BC3: a 4-colour BC1 block plus explicit (BC2) or BC4-coded (BC3) alpha.
#include "bc_block.hpp"

namespace af::bc {

void encode_bc2(const uint8_t rgba[64], uint8_t out[16], const EncodeOptions& opt) {
    for (int i = 0; i < 8; ++i) {
        // round(a * 15 / 255): values that are multiples of 17 come back exactly
        int a0 = (rgba[4 * (2 * i) + 3] * 15 + 127) / 255, a1 = (rgba[4 * (2 * i + 1) + 3] * 15 + 127) / 255;
        out[i] = uint8_t(a0 | a1 << 4);
    }
    encode_colour4(rgba, out + 8, opt);
}

void encode_bc3(const uint8_t rgba[64], uint8_t out[16], const EncodeOptions& opt) {
    uint8_t alpha[16];
    for (int i = 0; i < 16; ++i) alpha[i] = rgba[4 * i + 3];
    encode_bc4(alpha, false, out, opt.level);
    encode_colour4(rgba, out + 8, opt);
}

} // namespace af::bc
