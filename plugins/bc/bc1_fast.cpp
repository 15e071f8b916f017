// Builds the level-0 BC1 kernel twice, for SSE4.1 and for AVX2, and picks one
// per call from simd_path(). The AVX2 copy is compiled with a target pragma
// rather than a separate -mavx2 file: templates and inline functions from the
// headers included above it stay SSE4.1 code, so the linker can never hand an
// AVX2 instantiation to the baseline path.
#include "bc1_fast.hpp"

#include "bc1_tables.hpp"
#include "simd_path.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <immintrin.h>
#include <utility>

namespace af::bc {

// Measured with bench/bc_bench (plugins/bc/README.md): more power iterations
// do not change the result measurably; up to three least-squares steps (most
// blocks stop after one or two) gain 0.1 dB over one.
constexpr int kPowerIterations = 3;
constexpr int kRefinements = 3;

namespace sse41 {
#include "bc1_fast_kernel.inl"
} // namespace sse41

AF_BC_BEGIN_AVX2
namespace avx2 {
#define AF_BC_AVX2 1
#include "bc1_fast_kernel.inl"
#undef AF_BC_AVX2
} // namespace avx2
AF_BC_END_AVX2

void encode_colour_fast(const uint8_t rgba[64], uint8_t out[8], const ColourWeights& w) {
    if (simd_path() == SimdPath::avx2)
        avx2::encode(rgba, out, w);
    else
        sse41::encode(rgba, out, w);
}

} // namespace af::bc
