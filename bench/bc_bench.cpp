// bc_bench: quality and speed of the bc plugin's encoders and decoders, side
// by side with the Debian-packaged peers, in one run over a folder of PNGs.
//
//   bc_bench <corpus dir> [--quick] [--no-threads] [--formats bc1,bc3,...]
//            [--levels 0,3,...] [--peers stb,squish,nvtt] [--no-decode] [--simd sse41|avx2] [--per-image] [--repeat N]
//
// --levels replaces the levels measured, --peers limits the peer rows (empty:
// none), --simd forces the plugin's instruction-set path (default: AVX2 when
// the CPU has it, or AF_BC_SIMD=sse41), --repeat N times each single-thread
// encode N times per image and keeps the fastest (steadier on a loaded machine).
//
// PSNR is measured after decoding every encoder's blocks with the bc
// plugin's own decoder (one reference decoder for all). Per format:
//   BC1        RGB over all images (alpha ignored: opaque BC1, punch-through off)
//   BC2/BC3    RGB over all images; alpha over the a_* images
//   BC4        R over all images
//   BC5        RG over the n_* images (normal maps)
//   BC7        RGB over all images, [RGB over n_* images], alpha over a_*
//   BC6H       RGB of the LDR images as linear floats
// Speed: megapixels per second, encoding every image once, single thread
// (serial host; thread CPU time, since the machine is shared) and all threads
// (TBB host, blocks in parallel; wall time). nvtt
// compresses a whole image through its own API and is timed single-thread only.
#include "assetforge/formats.hpp"
#include "bc_surface.hpp"
#include "simd_path.hpp"
#include "assetforge/half.hpp"
#include "core/png_io.hpp"

#include "bptc.hpp"

#define STB_DXT_IMPLEMENTATION
#include <stb_dxt.h>
#include <nvtt/nvtt.h>
#include <squish.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Img {
    std::string name;
    char kind; // d, a, n, g
    uint32_t w, h;
    std::vector<uint8_t> px;
};

void tbb_for(uint64_t b, uint64_t e, uint64_t grain, af_range_fn fn, void* ctx) {
    tbb::parallel_for(tbb::blocked_range<uint64_t>(b, e, grain ? grain : 1),
                      [&](const tbb::blocked_range<uint64_t>& r) { fn(ctx, r.begin(), r.end()); });
}

af_host make_host(bool parallel) {
    af_host h{};
    h.struct_size = sizeof h;
    h.api_major = AF_API_MAJOR;
    h.api_minor = AF_API_MINOR;
    h.parallel_for = parallel ? tbb_for : nullptr;
    return h;
}

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// Single-thread figures use this thread's CPU time: the machine is shared, and
// wall time would mostly measure the neighbours.
double cpu_now() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

enum class Fmt { BC1, BC2, BC3, BC4, BC5, BC6H, BC7 };

uint32_t dxgi(Fmt f) {
    switch (f) {
    case Fmt::BC1: return af::FMT_BC1_UNORM;
    case Fmt::BC2: return af::FMT_BC2_UNORM;
    case Fmt::BC3: return af::FMT_BC3_UNORM;
    case Fmt::BC4: return af::FMT_BC4_UNORM;
    case Fmt::BC5: return af::FMT_BC5_UNORM;
    case Fmt::BC6H: return af::FMT_BC6H_UF16;
    case Fmt::BC7: return af::FMT_BC7_UNORM;
    }
    return 0;
}
const char* fmt_name(Fmt f) {
    static const char* n[] = {"BC1", "BC2", "BC3", "BC4", "BC5", "BC6H", "BC7"};
    return n[int(f)];
}

// An encoder under test: whole image in, blocks out.
using ImageEncoder = std::function<void(const Img&, std::vector<uint8_t>&, bool parallel)>;

// Runs a per-block function over an image (clamped edges), serially or on TBB.
void for_blocks(const Img& img, uint32_t block_bytes, std::vector<uint8_t>& out, bool parallel,
                const std::function<void(const uint8_t*, uint8_t*)>& fn) {
    const uint32_t bw = (img.w + 3) / 4, bh = (img.h + 3) / 4;
    out.resize(size_t(bw) * bh * block_bytes);
    auto rows = [&](uint32_t b, uint32_t e) {
        uint8_t px[64];
        for (uint32_t by = b; by < e; ++by)
            for (uint32_t bx = 0; bx < bw; ++bx) {
                for (int y = 0; y < 4; ++y)
                    for (int x = 0; x < 4; ++x) {
                        uint32_t sx = std::min(bx * 4 + x, img.w - 1), sy = std::min(by * 4 + y, img.h - 1);
                        std::memcpy(px + 4 * (4 * y + x), &img.px[(size_t(sy) * img.w + sx) * 4], 4);
                    }
                fn(px, &out[(size_t(by) * bw + bx) * block_bytes]);
            }
    };
    if (parallel)
        tbb::parallel_for(tbb::blocked_range<uint32_t>(0, bh, 1),
                          [&](const tbb::blocked_range<uint32_t>& r) { rows(r.begin(), r.end()); });
    else
        rows(0, bh);
}

ImageEncoder ours(Fmt f, int level) {
    return [f, level](const Img& img, std::vector<uint8_t>& out, bool parallel) {
        af::bc::SurfaceOptions o;
        o.block.level = level;
        o.block.bc1_punchthrough = false;
        af_host host = make_host(parallel);
        out.resize(af::surface_bytes(dxgi(f), img.w, img.h));
        if (f == Fmt::BC6H) {
            std::vector<float> fl(img.px.size());
            for (size_t i = 0; i < fl.size(); ++i) fl[i] = img.px[i] / 255.0f;
            af_surface src{af::FMT_R32G32B32A32_FLOAT, img.w, img.h, 1, reinterpret_cast<uint8_t*>(fl.data()),
                           fl.size() * 4};
            af_surface dst{dxgi(f), img.w, img.h, 1, out.data(), out.size()};
            af::bc::encode_surface(&host, src, dst, o);
            return;
        }
        af_surface src{af::FMT_R8G8B8A8_UNORM, img.w, img.h, 1, const_cast<uint8_t*>(img.px.data()), img.px.size()};
        af_surface dst{dxgi(f), img.w, img.h, 1, out.data(), out.size()};
        af::bc::encode_surface(&host, src, dst, o);
    };
}

ImageEncoder stb(Fmt f, int mode) {
    return [f, mode](const Img& img, std::vector<uint8_t>& out, bool parallel) {
        uint32_t bb = f == Fmt::BC1 || f == Fmt::BC4 ? 8 : 16;
        for_blocks(img, bb, out, parallel, [&](const uint8_t* px, uint8_t* blk) {
            if (f == Fmt::BC4) {
                uint8_t r[16];
                for (int i = 0; i < 16; ++i) r[i] = px[4 * i];
                stb_compress_bc4_block(blk, r);
            } else if (f == Fmt::BC5) {
                uint8_t rg[32];
                for (int i = 0; i < 16; ++i) rg[2 * i] = px[4 * i], rg[2 * i + 1] = px[4 * i + 1];
                stb_compress_bc5_block(blk, rg);
            } else {
                stb_compress_dxt_block(blk, px, f == Fmt::BC3, mode);
            }
        });
    };
}

ImageEncoder squish_fit(Fmt f, int fit) {
    return [f, fit](const Img& img, std::vector<uint8_t>& out, bool parallel) {
        int flags = fit | (f == Fmt::BC1 ? squish::kDxt1 : f == Fmt::BC2 ? squish::kDxt3 : f == Fmt::BC3 ? squish::kDxt5
                           : f == Fmt::BC4 ? squish::kBc4 : squish::kBc5);
        uint32_t bb = f == Fmt::BC1 || f == Fmt::BC4 ? 8 : 16;
        for_blocks(img, bb, out, parallel, [&](const uint8_t* px, uint8_t* blk) {
            uint8_t tmp[64];
            std::memcpy(tmp, px, 64);
            if (f == Fmt::BC1)
                for (int i = 0; i < 16; ++i) tmp[4 * i + 3] = 255; // opaque BC1, like the others
            squish::Compress(tmp, blk, flags);
        });
    };
}

struct NvttSink : nvtt::OutputHandler {
    std::vector<uint8_t>* out;
    void beginImage(int, int, int, int, int, int) override {}
    bool writeData(const void* d, int n) override {
        auto p = static_cast<const uint8_t*>(d);
        out->insert(out->end(), p, p + n);
        return true;
    }
};

ImageEncoder nvtt_quality(Fmt f, nvtt::Quality q) {
    return [f, q](const Img& img, std::vector<uint8_t>& out, bool) {
        std::vector<uint8_t> bgra(img.px.size());
        // nvtt 2.0.8 takes BC4 from the alpha channel (checked on a test block): put R there.
        for (size_t i = 0; i < img.px.size(); i += 4)
            bgra[i] = img.px[i + 2], bgra[i + 1] = img.px[i + 1], bgra[i + 2] = img.px[i],
            bgra[i + 3] = f == Fmt::BC4 ? img.px[i] : img.px[i + 3];
        nvtt::InputOptions in;
        in.setTextureLayout(nvtt::TextureType_2D, int(img.w), int(img.h));
        in.setMipmapData(bgra.data(), int(img.w), int(img.h));
        in.setMipmapGeneration(false);
        nvtt::CompressionOptions co;
        co.setFormat(f == Fmt::BC1 ? nvtt::Format_DXT1 : f == Fmt::BC2 ? nvtt::Format_DXT3 : f == Fmt::BC3 ? nvtt::Format_DXT5
                     : f == Fmt::BC4 ? nvtt::Format_BC4 : nvtt::Format_BC5);
        co.setQuality(q);
        NvttSink sink;
        out.clear();
        sink.out = &out;
        nvtt::OutputOptions oo;
        oo.setOutputHandler(&sink);
        oo.setOutputHeader(false);
        nvtt::Compressor c;
        c.enableCudaAcceleration(false);
        c.process(in, co, oo);
    };
}

// PSNR of one channel set; capped at 99 dB for identical data.
double psnr(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, std::initializer_list<int> ch) {
    double se = 0;
    size_t n = 0;
    for (size_t i = 0; i < a.size(); i += 4)
        for (int c : ch) {
            double d = double(a[i + c]) - b[i + c];
            se += d * d, ++n;
        }
    return se == 0 ? 99.0 : 10 * std::log10(255.0 * 255.0 * double(n) / se);
}

std::vector<uint8_t> decode(Fmt f, const Img& img, const std::vector<uint8_t>& blocks) {
    std::vector<uint8_t> out(img.px.size());
    af_host host = make_host(false);
    af_surface src{dxgi(f), img.w, img.h, 1, const_cast<uint8_t*>(blocks.data()), blocks.size()};
    af_surface dst{af::FMT_R8G8B8A8_UNORM, img.w, img.h, 1, out.data(), out.size()};
    af::bc::decode_surface(&host, src, dst);
    return out;
}

struct Result {
    double rgb = 0, alpha = 0, extra = 0; // extra: BC7 RGB on normal maps
    double mpix1 = 0, mpixn = 0;
};

bool in_set(Fmt f, const Img& img) {
    if (f == Fmt::BC5) return img.kind == 'n';
    return true;
}

bool g_threads = true;
int g_repeat = 1;         // --repeat N: single-thread time is the best of N runs per image
bool g_per_image = false; // --per-image: RGB PSNR of every image (BC1/2/3/7/6H rows)

Result run(Fmt f, const std::vector<Img>& imgs, const ImageEncoder& enc, bool threads) {
    threads = threads && g_threads;
    Result r;
    double pix = 0, t1 = 0, tn = 0;
    int n_rgb = 0, n_a = 0, n_n = 0;
    std::vector<uint8_t> blocks;
    for (const Img& img : imgs) {
        if (!in_set(f, img)) continue;
        // Best of g_repeat runs: on a loaded machine the minimum is the least disturbed.
        double best = 1e30, t = 0;
        for (int rep = 0; rep < g_repeat; ++rep) {
            t = cpu_now();
            enc(img, blocks, false);
            best = std::min(best, cpu_now() - t);
        }
        t1 += best;
        pix += double(img.w) * img.h;
        if (blocks.size() != af::surface_bytes(dxgi(f), img.w, img.h)) {
            std::fprintf(stderr, "encoder produced %zu bytes for %s\n", blocks.size(), img.name.c_str());
            std::exit(1);
        }
        auto dec = decode(f, img, blocks);
        if (threads) {
            std::vector<uint8_t> b2;
            t = now();
            enc(img, b2, true);
            tn += now() - t;
            if (b2 != blocks) std::fprintf(stderr, "note: %s threaded output differs on %s\n", fmt_name(f), img.name.c_str());
        }
        switch (f) {
        case Fmt::BC4: r.rgb += psnr(img.px, dec, {0}), ++n_rgb; break;
        case Fmt::BC5: r.rgb += psnr(img.px, dec, {0, 1}), ++n_rgb; break;
        default:
            if (g_per_image) std::printf("   %-40s %.3f\n", img.name.c_str(), psnr(img.px, dec, {0, 1, 2}));
            r.rgb += psnr(img.px, dec, {0, 1, 2}), ++n_rgb;
            if (img.kind == 'a' && f != Fmt::BC1 && f != Fmt::BC6H) r.alpha += psnr(img.px, dec, {3}), ++n_a;
            if (img.kind == 'n' && f == Fmt::BC7) r.extra += psnr(img.px, dec, {0, 1, 2}), ++n_n;
        }
    }
    r.rgb /= std::max(n_rgb, 1);
    r.alpha = n_a ? r.alpha / n_a : 0;
    r.extra = n_n ? r.extra / n_n : 0;
    r.mpix1 = pix / t1 / 1e6;
    r.mpixn = threads ? pix / tn / 1e6 : 0;
    return r;
}

void print_row(Fmt f, const std::string& who, const Result& r) {
    char a[32] = "", n[32] = "n/a", e[32] = "";
    if (r.alpha > 0) std::snprintf(a, sizeof a, "%.2f", r.alpha);
    if (r.mpixn > 0) std::snprintf(n, sizeof n, "%.2f", r.mpixn);
    if (r.extra > 0) std::snprintf(e, sizeof e, " [%.2f]", r.extra);
    std::printf("| %-4s | %-34s | %7.2f%s | %6s | %8.2f | %8s |\n", fmt_name(f), who.c_str(), r.rgb, e, a, r.mpix1, n);
    std::fflush(stdout);
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: bc_bench <corpus dir> [--quick] [--no-threads] [--formats bc1,bc2,bc3,bc4,bc5,bc6h,bc7]\n"
                             "                [--levels 0,3,...] [--peers stb,squish,nvtt] [--no-decode] [--simd sse41|avx2] [--per-image] [--repeat N]\n");
        return 2;
    }
    bool quick = false, threads = true, decode_rows = true;
    std::string formats = "bc1,bc2,bc3,bc4,bc5,bc6h,bc7", levels_arg, peers = "stb,squish,nvtt";
    for (int i = 2; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--quick") quick = true;
        else if (a == "--no-threads") threads = false; // single-thread figures only (loaded machines)
        else if (a == "--formats" && i + 1 < argc) formats = argv[++i];
        else if (a == "--levels" && i + 1 < argc) levels_arg = argv[++i];
        else if (a == "--peers" && i + 1 < argc) peers = argv[++i];
        else if (a == "--no-decode") decode_rows = false;
        else if (a == "--per-image") g_per_image = true;
        else if (a == "--repeat" && i + 1 < argc) g_repeat = std::max(1, std::atoi(argv[++i]));
        else if (a == "--simd" && i + 1 < argc) {
            std::string p = argv[++i];
            if (!af::bc::force_simd_path(p == "avx2" ? af::bc::SimdPath::avx2 : af::bc::SimdPath::sse41)) {
                std::fprintf(stderr, "this CPU has no AVX2\n");
                return 2;
            }
        }
        else {
            std::fprintf(stderr, "unknown argument %s\n", a.c_str());
            return 2;
        }
    }
    g_threads = threads;
    std::vector<Img> imgs;
    std::vector<fs::path> paths;
    for (auto& e : fs::directory_iterator(argv[1]))
        if (e.path().extension() == ".png") paths.push_back(e.path());
    std::sort(paths.begin(), paths.end());
    double total = 0;
    for (auto& p : paths) {
        af::Texture im = af::read_png_file(p);
        if (af::is_float(im)) im = af::to_rgba8(im);
        imgs.push_back({p.filename().string(), p.filename().string()[0], im.desc.width, im.desc.height, im.data});
        total += double(im.desc.width) * im.desc.height;
    }
    std::printf("corpus: %zu images, %.2f MPix; threads (all): %d; simd: %s\n\n", imgs.size(), total / 1e6,
                tbb::this_task_arena::max_concurrency(), af::bc::simd_path_name(af::bc::simd_path()));
    std::printf("| fmt  | encoder                            | PSNR dB | A dB   | MPix/s 1T | MPix/s all |\n");
    std::printf("|------|------------------------------------|---------|--------|-----------|------------|\n");

    auto wanted = [&](const char* f) { return ("," + formats + ",").find("," + std::string(f) + ",") != std::string::npos; };
    std::vector<int> all_levels = quick ? std::vector<int>{0, 3, 6, 10} : std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    std::vector<int> presets = {0, 3, 6, 10};
    if (!levels_arg.empty()) {
        all_levels.clear();
        for (size_t p = 0; p < levels_arg.size();) {
            size_t q = levels_arg.find(',', p);
            all_levels.push_back(std::clamp(std::atoi(levels_arg.substr(p, q - p).c_str()), 0, 10));
            p = q == std::string::npos ? levels_arg.size() : q + 1;
        }
        presets = all_levels;
    }
    auto peer = [&](const char* p) { return ("," + peers + ",").find("," + std::string(p) + ",") != std::string::npos; };
    const char* preset_name[11] = {"fast", "", "", "normal", "", "", "high", "", "", "", "max"};

    for (Fmt f : {Fmt::BC1, Fmt::BC2, Fmt::BC3, Fmt::BC4, Fmt::BC5}) {
        std::string lname = fmt_name(f);
        std::transform(lname.begin(), lname.end(), lname.begin(), ::tolower);
        if (!wanted(lname.c_str())) continue;
        const auto& levels = (f == Fmt::BC2 || f == Fmt::BC3) ? presets : all_levels;
        for (int l : levels) {
            std::string who = "assetforge level " + std::to_string(l);
            if (*preset_name[l]) who += std::string(" (") + preset_name[l] + ")";
            // All-threads timing for the presets only: on a shared machine it costs wall time.
            print_row(f, who, run(f, imgs, ours(f, l), *preset_name[l] != 0));
        }
        if (f != Fmt::BC2 && peer("stb")) {
            if (f == Fmt::BC4 || f == Fmt::BC5) {
                print_row(f, "stb_dxt", run(f, imgs, stb(f, STB_DXT_NORMAL), true));
            } else {
                print_row(f, "stb_dxt NORMAL", run(f, imgs, stb(f, STB_DXT_NORMAL), true));
                print_row(f, "stb_dxt HIGHQUAL", run(f, imgs, stb(f, STB_DXT_HIGHQUAL), true));
            }
        }
        if (!peer("squish")) {
        } else if (f == Fmt::BC4 || f == Fmt::BC5) {
            print_row(f, "libsquish", run(f, imgs, squish_fit(f, 0), true));
        } else {
            print_row(f, "libsquish range fit", run(f, imgs, squish_fit(f, squish::kColourRangeFit), true));
            print_row(f, "libsquish cluster fit", run(f, imgs, squish_fit(f, squish::kColourClusterFit), true));
            if (!quick)
                print_row(f, "libsquish iterative cluster fit",
                          run(f, imgs, squish_fit(f, squish::kColourIterativeClusterFit), true));
        }
        if (!peer("nvtt")) continue;
        print_row(f, "nvtt 2.0.8 fastest", run(f, imgs, nvtt_quality(f, nvtt::Quality_Fastest), false));
        // nvtt 2.0.8's normal/production colour compressors crashed this process (SIGSEGV, faulting
        // address inside libsquish's mapping) on DXT1/3/5 every run: most likely nvtt's bundled squish
        // code clashing with libsquish's symbols in one process. Only BC4/BC5 get those rows; run them
        // through a separate process (e.g. nvcompress) to compare.
        if (f == Fmt::BC4 || f == Fmt::BC5) {
            print_row(f, "nvtt 2.0.8 normal", run(f, imgs, nvtt_quality(f, nvtt::Quality_Normal), false));
            print_row(f, "nvtt 2.0.8 production", run(f, imgs, nvtt_quality(f, nvtt::Quality_Production), false));
        } else {
            std::printf("| %-4s | nvtt 2.0.8 normal/production       | skipped: crash inside libnvtt on this corpus |\n",
                        fmt_name(f));
        }
    }
    for (Fmt f : {Fmt::BC7, Fmt::BC6H}) {
        if (!wanted(f == Fmt::BC7 ? "bc7" : "bc6h")) continue;
        for (int l : presets) {
            std::string who = "assetforge level " + std::to_string(l) + " (" + preset_name[l] + ")";
            print_row(f, who, run(f, imgs, ours(f, l), true));
        }
    }

    if (!decode_rows) return 0;
    // Decode speed, single thread, RGBA8 output, against memcpy of that output.
    std::printf("\n| decode | MPix/s 1T (RGBA8 out) | MPix/s all |\n|--------|-----------|------------|\n");
    double mpix_copy = 0;
    {
        std::vector<uint8_t> dst;
        double t = cpu_now(), pix = 0;
        int reps = 0;
        while (cpu_now() - t < 0.5 || reps < 3) {
            for (const Img& img : imgs) {
                dst.resize(img.px.size());
                std::memcpy(dst.data(), img.px.data(), img.px.size());
                pix += double(img.w) * img.h;
            }
            ++reps;
        }
        mpix_copy = pix / (cpu_now() - t) / 1e6;
    }
    std::vector<Fmt> dec_fmts = {Fmt::BC1, Fmt::BC2, Fmt::BC3, Fmt::BC4, Fmt::BC5};
    dec_fmts.push_back(Fmt::BC6H);
    dec_fmts.push_back(Fmt::BC7);
    for (Fmt f : dec_fmts) {
        std::vector<std::vector<uint8_t>> enc;
        for (const Img& img : imgs) {
            std::vector<uint8_t> b;
            ours(f, 0)(img, b, true);
            enc.push_back(std::move(b));
        }
        double speed[2];
        for (int par = 0; par < 2; ++par) {
            af_host host = make_host(par);
            std::vector<uint8_t> out;
            auto clock = par ? now : cpu_now;
            double t = clock(), pix = 0;
            int reps = 0;
            while (clock() - t < 0.5 || reps < 3) {
                for (size_t i = 0; i < imgs.size(); ++i) {
                    out.resize(imgs[i].px.size());
                    af_surface src{dxgi(f), imgs[i].w, imgs[i].h, 1, enc[i].data(), enc[i].size()};
                    af_surface dst{af::FMT_R8G8B8A8_UNORM, imgs[i].w, imgs[i].h, 1, out.data(), out.size()};
                    af::bc::decode_surface(&host, src, dst);
                    pix += double(imgs[i].w) * imgs[i].h;
                }
                ++reps;
            }
            speed[par] = pix / (clock() - t) / 1e6;
        }
        std::printf("| %-6s | %9.1f | %10.1f |\n", fmt_name(f), speed[0], speed[1]);
    }
    std::printf("| memcpy | %9.1f |            |\n", mpix_copy);
    return 0;
}
