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
// do not change the result measurably; two least-squares steps keep all but
// 0.003 dB of three once the endpoint steps follow. The endpoint steps run on
// blocks whose error, divided by the sum of the channel weights, is above 15,
// and only for channels whose least-squares value is more than a quarter level
// away: with them BC1 fast goes from 38.63 to 38.79 dB on the corpus for 1.33×
// the instructions (callgrind, SSE4.1 and AVX2 alike). The mean-colour
// candidate is only tried where the block's spread (16 × the covariance's
// trace) is at most 10,000: above that it never won on the corpus (−0.001 dB,
// 8 % fewer instructions).
constexpr int kPowerIterations = 3;
constexpr int kRefinements = 2;
constexpr float kMoveThreshold = 15.0f;
constexpr float kMoveGate = 0.25f;
constexpr float kMeanSpread = 10000.0f;

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
