// BC4 encoder (also the alpha half of BC3 and both halves of BC5). Works on
// bytes in the decoder's domain (bc_block.hpp): unsigned values, or signed
// value + 128 in [1, 255]. Candidates are scored against the exact decoder
// palette, so what is measured is what the GPU shows. The kernel is built
// twice, for SSE4.1 and AVX2 (see bc1_fast.cpp for why a target pragma), and
// simd_path() picks one.
#include "bc_block.hpp"
#include "simd_path.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <immintrin.h>

namespace af::bc {

namespace sse41 {
#include "bc4_kernel.inl"
} // namespace sse41

AF_BC_BEGIN_AVX2
namespace avx2 {
#define AF_BC_AVX2 1
#include "bc4_kernel.inl"
#undef AF_BC_AVX2
} // namespace avx2
AF_BC_END_AVX2

void encode_bc4(const uint8_t values[16], bool is_signed, uint8_t out[8], int level) {
    if (simd_path() == SimdPath::avx2)
        avx2::encode_bc4(values, is_signed, out, level);
    else
        sse41::encode_bc4(values, is_signed, out, level);
}

void encode_bc5(const uint8_t red[16], const uint8_t green[16], bool is_signed, uint8_t out[16], int level) {
    encode_bc4(red, is_signed, out, level);
    encode_bc4(green, is_signed, out + 8, level);
}

} // namespace af::bc
