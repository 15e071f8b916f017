// BC7 / BC6H quality and speed per level, single thread, over a folder of PNGs.
//
//   bptc_bench [--dir DIR] [--levels 0,3,6,10] [--bc7] [--bc6h] [--decode]
//
// BC7: mean RGB PSNR over all images, over normal maps (n_*), and mean alpha
// PSNR over images with alpha (a_*), plus MPix/s of encode.
// BC6H: the LDR images are turned into HDR test data (see make_hdr below) and
// the error is measured as PSNR of log2(1 + x) against the same of the
// source, peak = log2(1 + max of the source); encoded as UF16 and SF16.
#include "bptc.hpp"

#include "assetforge/half.hpp"
#include "core/png_io.hpp"

#ifdef AF_WITH_CVTT
#include <ConvectionKernels.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

namespace fs = std::filesystem;
#include <ctime>

// CPU time of this thread: the machine is shared, so wall time would measure the neighbours.
struct Clock {
    using duration = std::chrono::nanoseconds;
    using time_point = std::chrono::time_point<Clock, duration>;
    static time_point now() {
        timespec ts;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return time_point(duration(int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec));
    }
};

namespace {

struct Picture {
    std::string name;
    af::Texture rgba8;
};

// Reads 16 texels of a block with edge texels repeated past the border.
void gather_block(const uint8_t* img, int w, int h, int bx, int by, uint8_t out[64]) {
    for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 4; ++x) {
            const int ix = std::min(bx * 4 + x, w - 1), iy = std::min(by * 4 + y, h - 1);
            memcpy(out + 4 * (4 * y + x), img + 4 * (size_t(iy) * w + ix), 4);
        }
}

double psnr(double mse, double peak) { return mse <= 0 ? 99.0 : 10.0 * std::log10(peak * peak / mse); }

struct Bc7Result {
    double rgb_psnr, alpha_psnr;
    double seconds;
    double mpix;
};

Bc7Result run_bc7(const Picture& pic, int level, bool perceptual, std::vector<uint8_t>* decoded_out = nullptr) {
    const int w = int(pic.rgba8.desc.width), h = int(pic.rgba8.desc.height);
    const int bw = (w + 3) / 4, bh = (h + 3) / 4;
    std::vector<uint8_t> blocks(size_t(bw) * bh * 16);
    af::bc::Bc7Options opt;
    opt.level = level;
    opt.perceptual = perceptual;
    const auto t0 = Clock::now();
    for (int by = 0; by < bh; ++by)
        for (int bx = 0; bx < bw; ++bx) {
            uint8_t px[64];
            gather_block(pic.rgba8.data.data(), w, h, bx, by, px);
            af::bc::encode_bc7_block(px, &blocks[16 * (size_t(by) * bw + bx)], opt);
        }
    const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
    double se_rgb = 0, se_a = 0;
    std::vector<uint8_t> dec(size_t(w) * h * 4);
    for (int by = 0; by < bh; ++by)
        for (int bx = 0; bx < bw; ++bx) {
            uint8_t px[64];
            af::bc::decode_bc7_block(&blocks[16 * (size_t(by) * bw + bx)], px);
            for (int y = 0; y < 4; ++y)
                for (int x = 0; x < 4; ++x) {
                    const int ix = bx * 4 + x, iy = by * 4 + y;
                    if (ix >= w || iy >= h) continue;
                    memcpy(&dec[4 * (size_t(iy) * w + ix)], px + 4 * (4 * y + x), 4);
                }
        }
    const uint8_t* src = pic.rgba8.data.data();
    for (size_t i = 0; i < size_t(w) * h; ++i) {
        for (int c = 0; c < 3; ++c) {
            const double d = double(src[4 * i + c]) - dec[4 * i + c];
            se_rgb += d * d;
        }
        const double d = double(src[4 * i + 3]) - dec[4 * i + 3];
        se_a += d * d;
    }
    if (decoded_out) *decoded_out = std::move(dec);
    const double n = double(w) * h;
    return {psnr(se_rgb / (3 * n), 255), psnr(se_a / n, 255), secs, n / 1e6};
}

// HDR test data from an LDR picture: the texel value (linearised with a 2.2
// gamma) times 2^k, k varying by image, plus a horizontal gradient that
// reaches `peak` at the right edge in the image's top quarter.
std::vector<float> make_hdr(const Picture& pic, int image_number, float peak) {
    const int w = int(pic.rgba8.desc.width), h = int(pic.rgba8.desc.height);
    std::vector<float> rgb(size_t(w) * h * 3);
    const float scale = std::ldexp(1.0f, (image_number % 5) * 2 - 2); // 2^-2 … 2^6
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const size_t i = size_t(y) * w + x;
            for (int c = 0; c < 3; ++c) {
                float v = std::pow(pic.rgba8.data[4 * i + c] / 255.0f, 2.2f) * scale;
                if (y < h / 4)
                    v += peak * float(x) / float(std::max(1, w - 1)) * (c == 0 ? 1.0f : c == 1 ? 0.7f : 0.4f);
                rgb[3 * i + c] = v;
            }
        }
    return rgb;
}

struct Bc6hResult {
    double log_psnr, seconds, mpix;
    double linear_psnr =
        0; // of the values themselves, peak = the source's largest: what a linear-error encoder minimises
};

// `blocks` (an encoder's, row by row) decoded by our decoder against `rgb`: PSNR of log2(1 + x) and of x.
Bc6hResult measure_bc6h(const std::vector<float>& rgb, int w, int h, const std::vector<uint8_t>& blocks, bool is_signed,
                        double secs) {
    const int bw = (w + 3) / 4, bh = (h + 3) / 4;
    double se = 0, peak = 0, se_lin = 0, peak_lin = 0;
    for (float v : rgb)
        peak = std::max(peak, std::log2(1.0 + std::max(0.0f, v))), peak_lin = std::max(peak_lin, double(v));
    for (int by = 0; by < bh; ++by)
        for (int bx = 0; bx < bw; ++bx) {
            uint16_t half[48];
            af::bc::decode_bc6h_block(&blocks[16 * (size_t(by) * bw + bx)], half, is_signed);
            for (int y = 0; y < 4; ++y)
                for (int x = 0; x < 4; ++x) {
                    const int ix = bx * 4 + x, iy = by * 4 + y;
                    if (ix >= w || iy >= h) continue;
                    for (int c = 0; c < 3; ++c) {
                        const float va = rgb[3 * (size_t(iy) * w + ix) + c],
                                    vb = af::half_to_float(half[3 * (4 * y + x) + c]);
                        const double a = std::log2(1.0 + std::max(0.0f, va)), b = std::log2(1.0 + std::max(0.0f, vb));
                        se += (a - b) * (a - b);
                        se_lin += double(va - vb) * double(va - vb);
                    }
                }
        }
    const double n = double(w) * h;
    return {psnr(se / (3 * n), peak), secs, n / 1e6, psnr(se_lin / (3 * n), peak_lin)};
}

Bc6hResult run_bc6h(const std::vector<float>& rgb, int w, int h, int level, bool is_signed) {
    const int bw = (w + 3) / 4, bh = (h + 3) / 4;
    std::vector<uint8_t> blocks(size_t(bw) * bh * 16);
    af::bc::Bc6hOptions opt;
    opt.level = level;
    opt.is_signed = is_signed;
    const auto t0 = Clock::now();
    for (int by = 0; by < bh; ++by)
        for (int bx = 0; bx < bw; ++bx) {
            float px[48];
            for (int y = 0; y < 4; ++y)
                for (int x = 0; x < 4; ++x) {
                    const int ix = std::min(bx * 4 + x, w - 1), iy = std::min(by * 4 + y, h - 1);
                    memcpy(px + 3 * (4 * y + x), &rgb[3 * (size_t(iy) * w + ix)], 12);
                }
            af::bc::encode_bc6h_block(px, &blocks[16 * (size_t(by) * bw + bx)], opt);
        }
    return measure_bc6h(rgb, w, h, blocks, is_signed, std::chrono::duration<double>(Clock::now() - t0).count());
}

#ifdef AF_WITH_CVTT
// ConvectionKernels' BC6H encoder on the same data, 8 blocks a call, its halves bit-cast as it wants them; the
// result measured with our decoder, as ours is. `flags`/`refine`: its quality settings.
struct CvttResult {
    Bc6hResult r;
    size_t blocks = 0, decode_differs = 0; // blocks where cvtt's and our decoder disagree on cvtt's own output
};
CvttResult run_bc6h_cvtt(const std::vector<float>& rgb, int w, int h, uint32_t flags, int refine, bool is_signed) {
    const int bw = (w + 3) / 4, bh = (h + 3) / 4;
    const size_t n = size_t(bw) * bh;
    std::vector<cvtt::PixelBlockF16> in((n + 7) / 8 * 8);
    for (int by = 0; by < bh; ++by)
        for (int bx = 0; bx < bw; ++bx)
            for (int y = 0; y < 4; ++y)
                for (int x = 0; x < 4; ++x) {
                    const int ix = std::min(bx * 4 + x, w - 1), iy = std::min(by * 4 + y, h - 1);
                    int16_t* px = in[size_t(by) * bw + bx].m_pixels[4 * y + x];
                    for (int c = 0; c < 3; ++c) px[c] = int16_t(af::float_to_half(rgb[3 * (size_t(iy) * w + ix) + c]));
                    px[3] = int16_t(af::float_to_half(1.0f));
                }
    cvtt::Options opt;
    opt.flags = flags;
    opt.refineRoundsBC6H = refine;
    std::vector<uint8_t> blocks(in.size() * 16);
    const auto t0 = Clock::now();
    for (size_t i = 0; i < in.size(); i += cvtt::NumParallelBlocks)
        (is_signed ? cvtt::Kernels::EncodeBC6HS : cvtt::Kernels::EncodeBC6HU)(&blocks[16 * i], &in[i], opt);
    CvttResult out;
    out.r = measure_bc6h(rgb, w, h, blocks, is_signed, std::chrono::duration<double>(Clock::now() - t0).count());
    std::vector<cvtt::PixelBlockF16> theirs(cvtt::NumParallelBlocks);
    for (size_t i = 0; i < n; ++i) {
        uint16_t half[48];
        af::bc::decode_bc6h_block(&blocks[16 * i], half, is_signed);
        if (i % cvtt::NumParallelBlocks == 0)
            (is_signed ? cvtt::Kernels::DecodeBC6HS : cvtt::Kernels::DecodeBC6HU)(theirs.data(), &blocks[16 * i]);
        const auto& t = theirs[i % cvtt::NumParallelBlocks];
        bool same = true;
        for (int k = 0; k < 16; ++k)
            for (int c = 0; c < 3; ++c) same = same && uint16_t(t.m_pixels[k][c]) == half[3 * k + c];
        out.decode_differs += !same;
        ++out.blocks;
    }
    return out;
}
#endif

template <class F> double time_decode(F&& f, int repeats) {
    double best = 1e30;
    for (int r = 0; r < repeats; ++r) {
        const auto t0 = Clock::now();
        f();
        best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
    }
    return best;
}

} // namespace

int main(int argc, char** argv) {
    std::string dir = "plugins/bc/tests/data";
    std::vector<int> levels = {0, 3, 6, 10};
    bool bc7 = false, bc6h = false, decode = false, perceptual = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--dir" && i + 1 < argc)
            dir = argv[++i];
        else if (a == "--levels" && i + 1 < argc) {
            levels.clear();
            std::string s = argv[++i];
            size_t pos = 0;
            while (pos <= s.size()) {
                const size_t comma = s.find(',', pos);
                levels.push_back(std::stoi(s.substr(pos, comma - pos)));
                if (comma == std::string::npos) break;
                pos = comma + 1;
            }
        } else if (a == "--bc7")
            bc7 = true;
        else if (a == "--bc6h")
            bc6h = true;
        else if (a == "--decode")
            decode = true;
        else if (a == "--perceptual")
            perceptual = true;
        else {
            fprintf(stderr, "usage: %s [--dir DIR] [--levels 0,3,6,10] [--bc7] [--bc6h] [--decode] [--perceptual]\n",
                    argv[0]);
            return 2;
        }
    }
    if (!bc7 && !bc6h && !decode) bc7 = bc6h = decode = true;
    std::vector<Picture> pics;
    std::vector<fs::path> paths;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".png") paths.push_back(e.path());
    std::sort(paths.begin(), paths.end());
    for (const auto& p : paths) pics.push_back({p.filename().string(), af::to_rgba8(af::read_png_file(p))});
    printf("%zu images from %s, single thread\n", pics.size(), dir.c_str());

    if (bc7) {
        printf("\nBC7 encode%s\nlevel  RGB_PSNR  normal_maps  alpha_PSNR(a_*)  MPix/s\n",
               perceptual ? " (perceptual)" : "");
        for (int level : levels) {
            double sum = 0, sum_n = 0, sum_a = 0, secs = 0, mpix = 0;
            int n_n = 0, n_a = 0;
            for (const auto& pic : pics) {
                const Bc7Result r = run_bc7(pic, level, perceptual);
                sum += r.rgb_psnr, secs += r.seconds, mpix += r.mpix;
                if (pic.name.rfind("n_", 0) == 0) sum_n += r.rgb_psnr, ++n_n;
                if (pic.name.rfind("a_", 0) == 0) sum_a += r.alpha_psnr, ++n_a;
            }
            printf("%5d  %8.3f  %11.3f  %15.3f  %6.3f\n", level, sum / pics.size(), n_n ? sum_n / n_n : 0.0,
                   n_a ? sum_a / n_a : 0.0, mpix / secs);
            fflush(stdout);
        }
    }
    if (bc6h) {
        printf("\nBC6H encode (HDR data: gamma-2.2 linearised LDR x 2^k plus gradient to 1000)\n"
               "level  UF16_logPSNR  MPix/s  SF16_logPSNR  MPix/s  UF16_linearPSNR\n");
        std::vector<std::vector<float>> hdr;
        for (size_t i = 0; i < pics.size(); ++i) hdr.push_back(make_hdr(pics[i], int(i), 1000.0f));
        for (int level : levels) {
            double su = 0, ss = 0, tu = 0, ts = 0, mp = 0, lu = 0;
            for (size_t i = 0; i < pics.size(); ++i) {
                const int w = int(pics[i].rgba8.desc.width), h = int(pics[i].rgba8.desc.height);
                const Bc6hResult u = run_bc6h(hdr[i], w, h, level, false);
                const Bc6hResult s = run_bc6h(hdr[i], w, h, level, true);
                su += u.log_psnr, ss += s.log_psnr, tu += u.seconds, ts += s.seconds, mp += u.mpix;
                lu += u.linear_psnr;
            }
            printf("%5d  %12.3f  %6.3f  %12.3f  %6.3f  %15.3f\n", level, su / pics.size(), mp / tu, ss / pics.size(),
                   mp / ts, lu / pics.size());
            fflush(stdout);
        }
#ifdef AF_WITH_CVTT
        printf("ConvectionKernels (measured with our decoder; 'differs': blocks of its output its own decoder reads\n"
               "otherwise than ours)\n"
               "setting              UF16_logPSNR  MPix/s  SF16_logPSNR  MPix/s  UF16_linearPSNR  differs\n");
        const struct {
            const char* name;
            uint32_t flags;
            int refine;
        } settings[] = {// Uniform: channels weighted alike, as the PSNR here counts them (its default weights
                        // blue at 0.07, as luminance does).
                        {"fastest (refine 1)", cvtt::Flags::Fastest | cvtt::Flags::Uniform, 1},
                        {"default (refine 2)", cvtt::Flags::Default | cvtt::Flags::Uniform, 2}};
        for (const auto& st : settings) {
            double su = 0, ss = 0, tu = 0, ts = 0, mp = 0, lu = 0;
            size_t differs = 0, blocks = 0;
            for (size_t i = 0; i < pics.size(); ++i) {
                const int w = int(pics[i].rgba8.desc.width), h = int(pics[i].rgba8.desc.height);
                const CvttResult u = run_bc6h_cvtt(hdr[i], w, h, st.flags, st.refine, false);
                const CvttResult s = run_bc6h_cvtt(hdr[i], w, h, st.flags, st.refine, true);
                su += u.r.log_psnr, ss += s.r.log_psnr, tu += u.r.seconds, ts += s.r.seconds, mp += u.r.mpix;
                differs += u.decode_differs + s.decode_differs, blocks += u.blocks + s.blocks;
                lu += u.r.linear_psnr;
            }
            printf("%-19s  %12.3f  %6.3f  %12.3f  %6.3f  %15.3f  %zu of %zu\n", st.name, su / pics.size(), mp / tu,
                   ss / pics.size(), mp / ts, lu / pics.size(), differs, blocks);
            fflush(stdout);
        }
#endif
    }
    if (decode) {
        // Decode throughput on real encoder output (level 3), best of 5 runs.
        std::vector<std::vector<uint8_t>> bc7_blocks, bc6_blocks;
        size_t texels = 0;
        for (size_t i = 0; i < pics.size(); ++i) {
            const auto& pic = pics[i];
            const int w = int(pic.rgba8.desc.width), h = int(pic.rgba8.desc.height), bw = (w + 3) / 4, bh = (h + 3) / 4;
            texels += size_t(bw) * bh * 16;
            std::vector<uint8_t> b7(size_t(bw) * bh * 16), b6(size_t(bw) * bh * 16);
            const auto hdr = make_hdr(pic, int(i), 1000.0f);
            af::bc::Bc7Options o7;
            o7.level = 0;
            af::bc::Bc6hOptions o6;
            o6.level = 0;
            for (int by = 0; by < bh; ++by)
                for (int bx = 0; bx < bw; ++bx) {
                    uint8_t px[64];
                    gather_block(pic.rgba8.data.data(), w, h, bx, by, px);
                    af::bc::encode_bc7_block(px, &b7[16 * (size_t(by) * bw + bx)], o7);
                    float f[48];
                    for (int t = 0; t < 16; ++t)
                        memcpy(f + 3 * t, &hdr[3 * (size_t(by * 4 + t / 4) * w + bx * 4 + t % 4)], 12);
                    af::bc::encode_bc6h_block(f, &b6[16 * (size_t(by) * bw + bx)], o6);
                }
            bc7_blocks.push_back(std::move(b7));
            bc6_blocks.push_back(std::move(b6));
        }
        std::vector<uint8_t> out7(texels * 4);
        std::vector<uint16_t> out6(texels * 3);
        const double t7 = time_decode(
            [&] {
                size_t o = 0;
                for (const auto& b : bc7_blocks)
                    for (size_t k = 0; k < b.size(); k += 16, o += 64) af::bc::decode_bc7_block(&b[k], &out7[o]);
            },
            5);
        const double t6 = time_decode(
            [&] {
                size_t o = 0;
                for (const auto& b : bc6_blocks)
                    for (size_t k = 0; k < b.size(); k += 16, o += 48)
                        af::bc::decode_bc6h_block(&b[k], &out6[o], false);
            },
            5);
        printf("\ndecode (best of 5, block order, single thread)\nBC7   %8.1f MPix/s\nBC6H  %8.1f MPix/s\n",
               texels / t7 / 1e6, texels / t6 / 1e6);
    }
    return 0;
}
