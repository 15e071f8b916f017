// XTF throughput: deswizzle + decode and encode + swizzle of a 1024×1024
// BGRA8888 texture with its full mip chain, on one thread and on all threads.
// There is no Debian-packaged XTF implementation to compare against; the
// memcpy line gives the machine's copy bandwidth for scale.
//
//   cmake -B build -DAF_BUILD_BENCH=ON && ninja -C build xtf_bench && build/bin/xtf_bench [iterations]
#include "surface_codec.hpp"
#include "vtf_formats.hpp"
#include "xtf_reader.hpp"
#include "xtf_writer.hpp"

#include "assetforge/plugin.hpp"

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>

namespace {

using namespace af;
using namespace af::xtf;

void tbb_for(uint64_t b, uint64_t e, uint64_t grain, af_range_fn fn, void* ctx) {
    tbb::parallel_for(tbb::blocked_range<uint64_t>(b, e, grain ? grain : 1),
                      [&](const tbb::blocked_range<uint64_t>& r) { fn(ctx, r.begin(), r.end()); });
}

af_host make_host() {
    af_host h{};
    sdk::init_header(h);
    h.alloc = [](uint64_t n) -> void* { return std::malloc(n); };
    h.free = [](void* p) { std::free(p); };
    h.parallel_for = tbb_for;
    return h;
}

double seconds(const std::function<void()>& fn, int iterations) {
    fn(); // warm-up
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iterations; ++i) fn();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / iterations;
}

} // namespace

int main(int argc, char** argv) {
    const int iterations = argc > 1 ? std::atoi(argv[1]) : 20;
    TextureDesc d;
    d.format = FMT_R8G8B8A8_UNORM;
    d.width = d.height = 1024;
    d.mips = full_mip_count(1024, 1024);
    Texture rgba(d);
    uint32_t x = 12345;
    for (auto& b : rgba.data) b = uint8_t((x = x * 1664525u + 1013904223u) >> 24);
    const double mb = double(rgba.data.size()) / 1e6; // 4 bytes per texel over all 11 mips

    XtfWriteOptions opt;
    opt.format = VTF_BGRA8888;
    opt.fallback = false; // measured separately: resampling is the core's, not the format's
    opt.reflectivity = std::array<float, 3>{0.5f, 0.5f, 0.5f};
    af_host host = make_host();
    const std::vector<uint8_t> file = write_xtf(&host, rgba, opt);
    XtfFile parsed = read_xtf(file.data(), file.size(), &host);
    XtfContent content = prepare_xtf(&host, rgba, opt);

    const unsigned all = std::max(1u, std::thread::hardware_concurrency());
    std::printf("xtf_bench: 1024x1024 BGRA8888, %u mips, %.2f MB of texels, %d iterations\n", d.mips, mb, iterations);
    std::printf("%-44s %12s %12s\n", "operation", "1 thread", std::to_string(all).append(" threads").c_str());
    struct Row {
        const char* name;
        std::function<void()> fn;
    };
    std::vector<uint8_t> sink(file.size());
    const Row rows[] = {
        {"memcpy of the file (scale)", [&] { std::memcpy(sink.data(), file.data(), file.size()); }},
        {"read: parse + deswizzle", [&] { (void)read_xtf(file.data(), file.size(), &host); }},
        {"read + decode to RGBA8 (all mips)",
         [&] {
             XtfFile f = read_xtf(file.data(), file.size(), &host);
             sdk::parallel_for(&host, f.image.desc.mips, 1, [&](uint64_t b, uint64_t e) {
                 for (uint64_t m = b; m < e; ++m) (void)to_rgba8(decode_surface(&host, f.image, 0, 0, uint32_t(m)));
             });
         }},
        {"write: swizzle + layout (serialize)", [&] { (void)serialize_xtf(&host, content); }},
        {"write: encode RGBA8->BGRA8 + swizzle", [&] { (void)write_xtf(&host, rgba, opt); }},
    };
    for (const Row& r : rows) {
        double t1, tn;
        {
            tbb::task_arena one(1);
            one.execute([&] { t1 = seconds(r.fn, iterations); });
        }
        {
            tbb::task_arena many{int(all)};
            many.execute([&] { tn = seconds(r.fn, iterations); });
        }
        std::printf("%-44s %9.1f MB/s %9.1f MB/s\n", r.name, mb / t1, mb / tn);
    }
    (void)parsed;
    return 0;
}
