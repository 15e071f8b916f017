#include "simd_path.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace af::bc {
namespace {

SimdPath initial_path() {
    const char* env = std::getenv("AF_BC_SIMD");
    if (env && std::strcmp(env, "sse41") == 0) return SimdPath::sse41;
    return cpu_has_avx2() ? SimdPath::avx2 : SimdPath::sse41;
}

std::atomic<int>& chosen() {
    static std::atomic<int> path{int(initial_path())};
    return path;
}

} // namespace

bool cpu_has_avx2() {
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_cpu_supports("avx2");
#else
    return false;
#endif
}

SimdPath simd_path() { return SimdPath(chosen().load(std::memory_order_relaxed)); }

bool force_simd_path(SimdPath p) {
    if (p == SimdPath::avx2 && !cpu_has_avx2()) {
        chosen().store(int(SimdPath::sse41));
        return false;
    }
    chosen().store(int(p));
    return true;
}

const char* simd_path_name(SimdPath p) { return p == SimdPath::avx2 ? "avx2" : "sse4.1"; }

} // namespace af::bc
