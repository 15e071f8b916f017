// Mip chain of a 4096x4096 RGBA8 sRGB image, per filter: AssetForge on one
// thread and on all threads of the arena, next to ImageMagick building the
// same chain (each level `-resize 50%` of the previous one, in linear light:
// `-colorspace RGB … -colorspace sRGB`, which is what AssetForge does by
// default), on one thread (`-limit thread 1`) and on all.
//
// Quality column: PSNR (RGB, 8-bit) of our level 1 against ImageMagick's
// level 1 with the same filter in the same space: agreement between two
// independent implementations, not a ground truth.
//
//   mips_bench [input.png] [--size N] [--reps R] [--no-magick]
// Without an input the image is synthetic (sinusoids, a zone plate, hashed
// noise and a cut-out alpha); with one it is tiled up to N x N.
#include "core/image_ops.hpp"
#include "core/png_io.hpp"

#include <tbb/info.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace af;
using Clock = std::chrono::steady_clock;

namespace {

Image synthetic(uint32_t n) {
    Image img = Image::make8(n, n, true);
    for (uint32_t y = 0; y < n; ++y)
        for (uint32_t x = 0; x < n; ++x) {
            const double u = double(x) / n, v = double(y) / n;
            uint32_t h = x * 73856093u ^ y * 19349663u;
            h ^= h >> 13;
            h *= 0x5bd1e995u;
            h ^= h >> 15;
            const double noise = double(h & 0xff) / 255.0;
            const double zone = 0.5 + 0.5 * std::cos(900.0 * ((u - 0.5) * (u - 0.5) + (v - 0.5) * (v - 0.5)));
            const double r = 0.5 + 0.4 * std::sin(40 * u) * std::cos(23 * v);
            const size_t i = (size_t(y) * n + x) * 4;
            img.rgba8[i + 0] = uint8_t(std::clamp(r * 0.8 + 0.2 * noise, 0.0, 1.0) * 255.0 + 0.5);
            img.rgba8[i + 1] = uint8_t(zone * 255.0 + 0.5);
            img.rgba8[i + 2] = uint8_t(std::clamp(0.3 + 0.6 * u * v + 0.1 * noise, 0.0, 1.0) * 255.0 + 0.5);
            const double leaf = std::sin(60 * u + 7 * std::sin(11 * v)) * std::cos(45 * v);
            img.rgba8[i + 3] = uint8_t(std::clamp(0.5 + 1.5 * leaf, 0.0, 1.0) * 255.0 + 0.5);
        }
    return img;
}

Image tiled(const Image& src8, uint32_t n) {
    Image img = Image::make8(n, n, src8.srgb);
    for (uint32_t y = 0; y < n; ++y)
        for (uint32_t x = 0; x < n; ++x)
            std::memcpy(&img.rgba8[(size_t(y) * n + x) * 4],
                        &src8.rgba8[(size_t(y % src8.height) * src8.width + x % src8.width) * 4], 4);
    return img;
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string magick_name(Filter f) {
    switch (f) {
    case Filter::Box: return "Box";
    case Filter::Triangle: return "Triangle";
    case Filter::Kaiser: return "Kaiser";
    case Filter::Lanczos3: return "Lanczos";
    case Filter::Mitchell: return "Mitchell";
    case Filter::Point: return "Point";
    }
    return "?";
}

const char* our_name(Filter f) {
    switch (f) {
    case Filter::Box: return "box";
    case Filter::Triangle: return "triangle";
    case Filter::Kaiser: return "kaiser";
    case Filter::Lanczos3: return "lanczos3";
    case Filter::Mitchell: return "mitchell";
    case Filter::Point: return "point";
    }
    return "?";
}

double time_system(const std::string& cmd, int reps) {
    double best = 1e30;
    for (int r = 0; r < reps; ++r) {
        auto t0 = Clock::now();
        if (std::system(cmd.c_str()) != 0) {
            std::fprintf(stderr, "command failed: %s\n", cmd.c_str());
            return -1;
        }
        best = std::min(best, seconds_since(t0));
    }
    return best;
}

double psnr_rgb(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
    double se = 0;
    size_t n = 0;
    for (size_t i = 0; i + 3 < std::min(a.size(), b.size()); i += 4)
        for (int c = 0; c < 3; ++c) {
            double d = double(a[i + c]) - double(b[i + c]);
            se += d * d;
            ++n;
        }
    return se == 0 ? 99.0 : 10.0 * std::log10(255.0 * 255.0 * double(n) / se);
}

} // namespace

int main(int argc, char** argv) {
    uint32_t size = 4096;
    int reps = 2;
    bool magick = std::system("command -v convert >/dev/null 2>&1") == 0;
    std::string input;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--size" && i + 1 < argc) size = uint32_t(std::atoi(argv[++i]));
        else if (a == "--reps" && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
        else if (a == "--no-magick") magick = false;
        else input = a;
    }
    Image top = input.empty() ? synthetic(size) : tiled(to_rgba8(read_png_file(input)), size);
    top.srgb = true;

    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("af_mips_bench_" + std::to_string(getpid()));
    fs::create_directories(dir);
    const fs::path raw = dir / "top.rgba";
    {
        std::ofstream f(raw, std::ios::binary);
        f.write(reinterpret_cast<const char*>(top.rgba8.data()), std::streamsize(top.rgba8.size()));
    }
    uint32_t levels = 1;
    for (uint32_t n = size; n > 1; n /= 2) ++levels;
    const std::string source =
        "convert -size " + std::to_string(size) + "x" + std::to_string(size) + " -depth 8 rgba:'" + raw.string() + "'";

    const int threads = tbb::info::default_concurrency();
    std::printf("mip chain of a %ux%u RGBA8 sRGB image (%s), %u levels, best of %d; all threads = %d\n", size, size,
                input.empty() ? "synthetic" : input.c_str(), levels, reps, threads);
    std::printf("AssetForge: generate_mips (linear light, premultiplied alpha, clamp).\n");
    if (magick)
        std::printf("ImageMagick: %s -colorspace RGB -filter F ( +clone -resize 50%% ) x%u -colorspace sRGB null:\n",
                    source.c_str(), levels - 1);
    std::printf("\n%-9s | %12s %12s | %12s %12s | %s\n", "filter", "AF 1 thr s", "AF all s", "IM 1 thr s",
                "IM all s", "PSNR L1 AF vs IM (dB)");
    std::printf("----------+---------------------------+---------------------------+----------------------\n");

    double im_load = 0;
    if (magick) im_load = time_system(source + " null:", reps);

    for (Filter f : {Filter::Box, Filter::Triangle, Filter::Kaiser, Filter::Lanczos3, Filter::Mitchell, Filter::Point}) {
        MipOptions opt;
        opt.filter = f;
        std::vector<Image> mips;
        double one = 1e30, all = 1e30;
        tbb::task_arena single(1);
        for (int r = 0; r < reps; ++r) {
            auto t0 = Clock::now();
            single.execute([&] { mips = generate_mips(top, opt); });
            one = std::min(one, seconds_since(t0));
        }
        for (int r = 0; r < reps; ++r) {
            auto t0 = Clock::now();
            mips = generate_mips(top, opt);
            all = std::min(all, seconds_since(t0));
        }
        double im_one = -1, im_all = -1, psnr = -1;
        if (magick) {
            std::string chain = " -colorspace RGB -filter " + magick_name(f);
            for (uint32_t l = 1; l < levels; ++l) chain += " \\( +clone -resize 50% \\)";
            chain += " -colorspace sRGB null:";
            im_one = time_system(source + " -limit thread 1" + chain, reps);
            im_all = time_system(source + chain, reps);
            const fs::path l1 = dir / "l1.rgba";
            std::string cmd = source + " -colorspace RGB -filter " + magick_name(f) +
                              " -resize 50% -colorspace sRGB -depth 8 rgba:'" + l1.string() + "'";
            if (std::system(cmd.c_str()) == 0) {
                std::ifstream in(l1, std::ios::binary);
                std::vector<uint8_t> theirs((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
                psnr = psnr_rgb(mips[1].rgba8, theirs);
            }
        }
        std::printf("%-9s | %12.3f %12.3f | %12.3f %12.3f | %.2f\n", our_name(f), one, all, im_one, im_all, psnr);
        std::fflush(stdout);
    }
    if (magick) std::printf("\nImageMagick times include reading the raw input: %.3f s on its own.\n", im_load);
    fs::remove_all(dir);
    return 0;
}
