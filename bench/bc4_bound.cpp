// bc4_bound: the best PSNR any BC4/BC5 encoder can reach on a corpus, found by
// exhaustive search, next to the bc plugin's levels on the same blocks.
//
//   bc4_bound <corpus dir> [--levels 0,6,10] [--images PREFIX]
//
// For every 4×4 block and every one of the 65,536 stored endpoint pairs (both
// palette modes: e0 > e1 gives 8 values, e0 <= e1 gives 6 plus 0 and 255),
// each texel takes its nearest entry of the decoder's exact palette; the
// smallest total squared error over all pairs is the block's optimum. Nothing
// is approximated, so no encoder measured with this decoder can score above
// these figures on these images. Measured like bc_bench: BC4 is R over all
// images, BC5 is R and G over the n_* images (normal maps), PSNR per image,
// then the mean over images.
#include "bc_block.hpp"
#include "core/png_io.hpp"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <immintrin.h>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

// The decoder's palette for a stored unsigned pair, ascending, as bytes 0-7.
// bc4_palette is the reference; the sort makes the nearest-entry search a
// count of midpoints (see bc4_kernel.inl for the same idea inside the encoder).
struct SortedPalette {
    __m128i pal; // bytes 0-7 ascending
    __m128i th;  // bytes 0-6: smallest value that takes entry k + 1 (ties either way: same error)
};

SortedPalette sorted(uint8_t e0, uint8_t e1) {
    uint8_t p[8];
    af::bc::bc4_palette(e0, e1, false, p);
    std::sort(p, p + 8);
    alignas(16) uint8_t t[16] = {};
    for (int k = 0; k < 7; ++k) t[k] = uint8_t(std::min(255, (p[k] + p[k + 1]) / 2 + 1));
    SortedPalette s;
    alignas(16) uint8_t pb[16] = {};
    std::memcpy(pb, p, 8);
    s.pal = _mm_load_si128(reinterpret_cast<const __m128i*>(pb));
    s.th = _mm_load_si128(reinterpret_cast<const __m128i*>(t));
    return s;
}

// Squared error of 16 texels against their nearest entries. A threshold of
// 255 from a 255/255 gap only moves a 255 onto an equal entry.
inline uint32_t block_error(const __m128i v, const SortedPalette& s) {
    const __m128i bias = _mm_set1_epi8(char(0x80));
    const __m128i vs = _mm_xor_si128(v, bias), ts = _mm_xor_si128(s.th, bias);
    __m128i below = _mm_setzero_si128();
    for (int k = 0; k < 7; ++k)
        below = _mm_add_epi8(below, _mm_cmpgt_epi8(_mm_shuffle_epi8(ts, _mm_set1_epi8(char(k))), vs));
    const __m128i val = _mm_shuffle_epi8(s.pal, _mm_add_epi8(_mm_set1_epi8(7), below));
    const __m128i d = _mm_or_si128(_mm_subs_epu8(v, val), _mm_subs_epu8(val, v));
    const __m128i lo = _mm_unpacklo_epi8(d, _mm_setzero_si128()), hi = _mm_unpackhi_epi8(d, _mm_setzero_si128());
    __m128i x = _mm_add_epi32(_mm_madd_epi16(lo, lo), _mm_madd_epi16(hi, hi));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0x4e));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0xb1));
    return uint32_t(_mm_cvtsi128_si32(x));
}

// Every pair's palette, built once.
std::vector<SortedPalette> all_palettes() {
    std::vector<SortedPalette> v(65536);
    for (int a = 0; a < 256; ++a)
        for (int b = 0; b < 256; ++b) v[a * 256 + b] = sorted(uint8_t(a), uint8_t(b));
    return v;
}

// Error of a block decoded from the plugin's encoder at `level`.
uint32_t encoder_error(const uint8_t in[16], int level) {
    uint8_t blk[8], out[16];
    af::bc::encode_bc4(in, false, blk, level);
    af::bc::decode_bc4_bytes(blk, false, out);
    uint32_t e = 0;
    for (int i = 0; i < 16; ++i) e += uint32_t((in[i] - out[i]) * (in[i] - out[i]));
    return e;
}

struct ChannelResult {
    double optimum_se = 0;
    std::vector<double> level_se;
};

// One channel of an image.
ChannelResult run_channel(const af::Texture& im, int ch, const std::vector<SortedPalette>& pals,
                          const std::vector<int>& levels) {
    const uint32_t bw = (im.desc.width + 3) / 4, bh = (im.desc.height + 3) / 4;
    std::vector<uint32_t> best(size_t(bw) * bh), enc(size_t(bw) * bh * levels.size());
    tbb::parallel_for(tbb::blocked_range<uint32_t>(0, bw * bh, 16), [&](const tbb::blocked_range<uint32_t>& r) {
        for (uint32_t i = r.begin(); i != r.end(); ++i) {
            const uint32_t bx = i % bw, by = i / bw;
            alignas(16) uint8_t v[16];
            for (int y = 0; y < 4; ++y)
                for (int x = 0; x < 4; ++x) {
                    const uint32_t sx = bx * 4 + x, sy = by * 4 + y;
                    v[4 * y + x] = im.data[(size_t(sy) * im.desc.width + sx) * 4 + ch];
                }
            for (size_t l = 0; l < levels.size(); ++l) enc[i * levels.size() + l] = encoder_error(v, levels[l]);
            // Start from the best level's result: pairs that cannot beat it are still scored,
            // but a solid block (error 0) needs no search.
            uint32_t b = ~0u;
            for (size_t l = 0; l < levels.size(); ++l) b = std::min(b, enc[i * levels.size() + l]);
            if (b != 0) {
                const __m128i vv = _mm_load_si128(reinterpret_cast<const __m128i*>(v));
                for (const SortedPalette& p : pals) b = std::min(b, block_error(vv, p));
            }
            best[i] = b;
        }
    });
    ChannelResult res;
    res.level_se.assign(levels.size(), 0);
    // Whole blocks only: main() skips images whose sizes are not multiples of 4.
    for (size_t i = 0; i < best.size(); ++i) {
        res.optimum_se += best[i];
        for (size_t l = 0; l < levels.size(); ++l) res.level_se[l] += enc[i * levels.size() + l];
    }
    return res;
}

// The SIMD search against a plain scan of bc4_palette, on random blocks and
// pairs (clustered values make exact midpoints common): a wrong bound would
// be worse than none.
bool self_check(const std::vector<SortedPalette>& pals) {
    uint32_t seed = 12345;
    auto rnd = [&] { return seed = seed * 1664525u + 1013904223u, seed >> 8; };
    for (int n = 0; n < 20000; ++n) {
        alignas(16) uint8_t v[16];
        const int base = int(rnd() % 256), span = n % 2 ? 256 : 8;
        for (auto& x : v) x = uint8_t(std::clamp(n % 2 ? int(rnd() % 256) : base + int(rnd() % span), 0, 255));
        const int a = int(rnd() % 256), b = n % 3 ? int(rnd() % 256) : std::clamp(a + int(rnd() % 15) - 7, 0, 255);
        uint8_t pal[8];
        af::bc::bc4_palette(uint8_t(a), uint8_t(b), false, pal);
        uint32_t want = 0;
        for (uint8_t x : v) {
            int d = 256;
            for (uint8_t q : pal) d = std::min(d, std::abs(int(x) - int(q)));
            want += uint32_t(d * d);
        }
        const uint32_t got =
            block_error(_mm_load_si128(reinterpret_cast<const __m128i*>(v)), pals[size_t(a) * 256 + b]);
        if (got != want) {
            std::fprintf(stderr, "bc4_bound: self-check failed for pair (%d, %d): %u, expected %u\n", a, b, got, want);
            return false;
        }
    }
    return true;
}

double psnr(double se, double n) { return se == 0 ? 99.0 : 10 * std::log10(255.0 * 255.0 * n / se); }

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: bc4_bound <corpus dir> [--levels 0,6,10] [--images PREFIX]\n");
        return 2;
    }
    std::vector<int> levels = {0, 3, 6, 10};
    std::string prefix;
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--levels" && i + 1 < argc) {
            levels.clear();
            for (const char* p = argv[++i]; *p;) {
                levels.push_back(std::clamp(std::atoi(p), 0, 10));
                while (*p && *p != ',') ++p;
                if (*p) ++p;
            }
        } else if (a == "--images" && i + 1 < argc)
            prefix = argv[++i];
        else {
            std::fprintf(stderr, "bc4_bound: unknown argument %s\n", a.c_str());
            return 2;
        }
    }
    std::vector<fs::path> paths;
    for (auto& e : fs::directory_iterator(argv[1]))
        if (e.path().extension() == ".png" && e.path().filename().string().rfind(prefix, 0) == 0)
            paths.push_back(e.path());
    std::sort(paths.begin(), paths.end());
    const auto pals = all_palettes();
    if (!self_check(pals)) return 1;

    // Per format: sum over images of per-image PSNR, for the optimum and each level.
    struct Mean {
        double opt = 0;
        std::vector<double> lv;
        int n = 0;
    } bc4, bc5;
    bc4.lv.assign(levels.size(), 0), bc5.lv.assign(levels.size(), 0);
    std::printf("| image | format | optimum dB |");
    for (int l : levels) std::printf(" level %d dB |", l);
    std::printf("\n|---|---|---|");
    for (size_t l = 0; l < levels.size(); ++l) std::printf("---|");
    std::printf("\n");
    for (const auto& p : paths) {
        af::Texture im = af::read_png_file(p);
        if (af::is_float(im)) im = af::to_rgba8(im);
        const std::string name = p.filename().string();
        if (im.desc.width % 4 || im.desc.height % 4) { // block sums would count the edge padding
            std::printf("| %s | skipped: %ux%u is not a multiple of 4 |\n", name.c_str(), im.desc.width,
                        im.desc.height);
            continue;
        }
        const double n = double(im.desc.width) * im.desc.height;
        auto row = [&](const char* fmt, double opt, const std::vector<double>& se, double count, Mean& m) {
            std::printf("| %s | %s | %.3f |", name.c_str(), fmt, psnr(opt, count));
            m.opt += psnr(opt, count), ++m.n;
            for (size_t l = 0; l < levels.size(); ++l) {
                std::printf(" %.3f |", psnr(se[l], count));
                m.lv[l] += psnr(se[l], count);
            }
            std::printf("\n");
            std::fflush(stdout);
        };
        const ChannelResult r = run_channel(im, 0, pals, levels);
        row("BC4 (R)", r.optimum_se, r.level_se, n, bc4);
        if (name[0] == 'n') {
            const ChannelResult g = run_channel(im, 1, pals, levels);
            std::vector<double> se(levels.size());
            for (size_t l = 0; l < levels.size(); ++l) se[l] = r.level_se[l] + g.level_se[l];
            row("BC5 (RG)", r.optimum_se + g.optimum_se, se, 2 * n, bc5);
        }
    }
    auto mean_row = [&](const char* fmt, const Mean& m) {
        if (!m.n) return;
        std::printf("| **mean of %d** | %s | **%.3f** |", m.n, fmt, m.opt / m.n);
        for (size_t l = 0; l < levels.size(); ++l) std::printf(" %.3f |", m.lv[l] / m.n);
        std::printf("\n");
    };
    mean_row("BC4 (R)", bc4);
    mean_row("BC5 (RG)", bc5);
    return 0;
}
