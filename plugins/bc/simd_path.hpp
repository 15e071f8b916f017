// Which instruction set the hot BC kernels run with. SSE4.1 is the baseline
// every x86-64 build assumes; kernels that also have an AVX2 copy use it when
// the CPU supports AVX2. Both copies produce identical bytes (tested), so the
// choice only changes speed. AF_BC_SIMD=sse41 in the environment forces the
// baseline (benchmarks, bug reports).
#pragma once

// Open and close a region compiled for AVX2 inside a baseline (SSE4.1) file;
// GCC and clang spell it differently.
#if defined(__clang__)
#define AF_BC_BEGIN_AVX2 _Pragma("clang attribute push(__attribute__((target(\"avx2\"))), apply_to = function)")
#define AF_BC_END_AVX2 _Pragma("clang attribute pop")
#else
#define AF_BC_BEGIN_AVX2 _Pragma("GCC push_options") _Pragma("GCC target(\"avx2\")")
#define AF_BC_END_AVX2 _Pragma("GCC pop_options")
#endif

namespace af::bc {

enum class SimdPath { sse41, avx2 };

// The path in use: decided once, on first call.
SimdPath simd_path();
// Whether this CPU can run the AVX2 copies.
bool cpu_has_avx2();
// Overrides the choice (tests and benchmarks). Asking for AVX2 on a CPU
// without it keeps SSE4.1 and returns false.
bool force_simd_path(SimdPath p);

const char* simd_path_name(SimdPath p);

} // namespace af::bc
