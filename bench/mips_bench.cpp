// Mip chain of a 4096x4096 RGBA8 sRGB image, per filter: AssetForge on one
// thread and on all threads of the arena, next to ImageMagick building the
// same chain with the matching filter, one `convert` per level
// (`convert -size WxH -depth 8 rgba:level_k -filter F -resize 50% -depth 8 rgba:level_k+1`),
// on one thread (`-limit thread 1`) and on all.
//
// Like with like: ImageMagick 6 resizes the stored (sRGB-encoded) values and
// weights colour by alpha, so the compared AssetForge run uses
// linear_light = false (premultiplied alpha, clamp edges). The "AF linear"
// column is AssetForge's default (filtering in linear light), for reference.
// One process per level because Debian's ImageMagick policy caps its pixel
// cache at 256 MiB: a whole chain in one process spills to disk and would be
// timed as I/O.
//
// Quality column: PSNR of our level 1 against ImageMagick's level 1, on
// premultiplied 8-bit colour (RGB × A: the colour of a transparent texel is
// arbitrary and the two differ there): agreement between two independent
// implementations, not a ground truth. ImageMagick's Kaiser is its own
// windowed sinc (other width and alpha), so lower agreement there is expected;
// the other filters are the same kernels.
//
// Times: wall clock, best of R runs; "cpu" is the CPU time of that run summed
// over threads (on a loaded machine wall time says little about threads).
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
#include <sys/resource.h>
#include <unistd.h>
#include <vector>

using namespace af;
using Clock = std::chrono::steady_clock;

namespace {

Texture synthetic(uint32_t n) {
    Texture img = rgba8_picture(n, n, true);
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
            img.data[i + 0] = uint8_t(std::clamp(r * 0.8 + 0.2 * noise, 0.0, 1.0) * 255.0 + 0.5);
            img.data[i + 1] = uint8_t(zone * 255.0 + 0.5);
            img.data[i + 2] = uint8_t(std::clamp(0.3 + 0.6 * u * v + 0.1 * noise, 0.0, 1.0) * 255.0 + 0.5);
            const double leaf = std::sin(60 * u + 7 * std::sin(11 * v)) * std::cos(45 * v);
            img.data[i + 3] = uint8_t(std::clamp(0.5 + 1.5 * leaf, 0.0, 1.0) * 255.0 + 0.5);
        }
    return img;
}

Texture tiled(const Texture& src8, uint32_t n) {
    Texture img = rgba8_picture(n, n, is_srgb(src8.desc));
    for (uint32_t y = 0; y < n; ++y)
        for (uint32_t x = 0; x < n; ++x)
            std::memcpy(&img.data[(size_t(y) * n + x) * 4],
                        &src8.data[(size_t(y % src8.desc.height) * src8.desc.width + x % src8.desc.width) * 4], 4);
    return img;
}

std::string level_file_name(uint32_t level) {
    char name[32];
    std::snprintf(name, sizeof name, "l%u.rgba", level);
    return name;
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string magick_name(Filter f) {
    switch (f) {
    case Filter::Box:
        return "Box";
    case Filter::Triangle:
        return "Triangle";
    case Filter::Kaiser:
        return "Kaiser";
    case Filter::Lanczos3:
        return "Lanczos";
    case Filter::Mitchell:
        return "Mitchell";
    case Filter::Point:
        return "Point";
    }
    return "?";
}

const char* our_name(Filter f) {
    switch (f) {
    case Filter::Box:
        return "box";
    case Filter::Triangle:
        return "triangle";
    case Filter::Kaiser:
        return "kaiser";
    case Filter::Lanczos3:
        return "lanczos3";
    case Filter::Mitchell:
        return "mitchell";
    case Filter::Point:
        return "point";
    }
    return "?";
}

struct Timing {
    double wall = 1e30, cpu = 0;
    void keep(double w, double c) {
        if (w < wall) wall = w, cpu = c;
    }
};

double cpu_seconds(int who) {
    rusage u{};
    getrusage(who, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

Timing time_system(const std::string& cmd, int reps) {
    Timing t;
    for (int r = 0; r < reps; ++r) {
        const double c0 = cpu_seconds(RUSAGE_CHILDREN);
        auto t0 = Clock::now();
        if (std::system(cmd.c_str()) != 0) {
            std::fprintf(stderr, "command failed: %s\n", cmd.c_str());
            return Timing{-1, -1};
        }
        t.keep(seconds_since(t0), cpu_seconds(RUSAGE_CHILDREN) - c0);
    }
    return t;
}

template <class F> Timing time_self(int reps, F&& fn) {
    Timing t;
    for (int r = 0; r < reps; ++r) {
        const double c0 = cpu_seconds(RUSAGE_SELF);
        auto t0 = Clock::now();
        fn();
        t.keep(seconds_since(t0), cpu_seconds(RUSAGE_SELF) - c0);
    }
    return t;
}

double psnr_premultiplied(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
    double se = 0;
    size_t n = 0;
    for (size_t i = 0; i + 3 < std::min(a.size(), b.size()); i += 4)
        for (int c = 0; c < 3; ++c) {
            double d = (double(a[i + c]) * a[i + 3] - double(b[i + c]) * b[i + 3]) / 255.0;
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
        if (a == "--size" && i + 1 < argc)
            size = uint32_t(std::atoi(argv[++i]));
        else if (a == "--reps" && i + 1 < argc)
            reps = std::max(1, std::atoi(argv[++i]));
        else if (a == "--no-magick")
            magick = false;
        else
            input = a;
    }
    Texture top = input.empty() ? synthetic(size) : tiled(to_rgba8(read_png_file(input)), size);
    set_srgb(top, true);

    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("af_mips_bench_" + std::to_string(getpid()));
    fs::create_directories(dir);
    const fs::path raw = dir / "top.rgba";
    {
        std::ofstream f(raw, std::ios::binary);
        f.write(reinterpret_cast<const char*>(top.data.data()), std::streamsize(top.data.size()));
    }
    uint32_t levels = 1;
    for (uint32_t n = size; n > 1; n /= 2) ++levels;
    auto raw_source = [](const fs::path& file, uint32_t n) {
        std::string cmd = "convert -size ";
        cmd += std::to_string(n);
        cmd += 'x';
        cmd += std::to_string(n);
        cmd += " -depth 8 rgba:'";
        cmd += file.string();
        cmd += '\'';
        return cmd;
    };
    // The chain of per-level commands; level 1 lands in l1.rgba.
    auto magick_chain = [&](Filter f, bool one_thread) {
        std::string cmd;
        fs::path prev = raw;
        uint32_t n = size;
        for (uint32_t l = 1; l < levels; ++l, n /= 2) {
            fs::path next = dir / level_file_name(l);
            if (!cmd.empty()) cmd += " && ";
            cmd += raw_source(prev, n);
            if (one_thread) cmd += " -limit thread 1";
            cmd += " -filter ";
            cmd += magick_name(f);
            cmd += " -resize 50% -depth 8 rgba:'";
            cmd += next.string();
            cmd += '\'';
            prev = next;
        }
        return cmd;
    };

    const int threads = tbb::info::default_concurrency();
    std::printf("mip chain of a %ux%u RGBA8 sRGB image (%s), %u levels, best of %d; all threads = %d\n", size, size,
                input.empty() ? "synthetic" : input.c_str(), levels, reps, threads);
    std::printf("AssetForge: generate_mips, stored values (linear_light = false), premultiplied alpha, clamp.\n");
    if (magick)
        std::printf("ImageMagick: per level: %s -filter F -resize 50%% -depth 8 rgba:level_k+1\n",
                    raw_source("level_k", size).c_str());
    std::printf("\n%-9s | %-8s | %-17s | %-8s | %-17s | %-17s | %s\n", "filter", "AF 1 thr", "AF all thr (cpu)",
                "IM 1 thr", "IM all thr (cpu)", "AF linear, all thr", "PSNR L1 AF vs IM (RGBxA)");
    std::printf("----------+----------+-------------------+----------+-------------------+-------------------+--------"
                "-----------------\n");

    Timing im_load;
    if (magick) im_load = time_system(raw_source(raw, size) + " null:", reps);

    for (Filter f :
         {Filter::Box, Filter::Triangle, Filter::Kaiser, Filter::Lanczos3, Filter::Mitchell, Filter::Point}) {
        MipOptions opt;
        opt.filter = f;
        opt.linear_light = false;
        std::vector<Texture> mips;
        tbb::task_arena single(1);
        const Timing one = time_self(reps, [&] { single.execute([&] { mips = generate_mips(top, opt); }); });
        const Timing all = time_self(reps, [&] { mips = generate_mips(top, opt); });
        MipOptions lin = opt;
        lin.linear_light = true;
        const Timing linear = time_self(reps, [&] { (void)generate_mips(top, lin); });
        Timing im_one{-1, -1}, im_all{-1, -1};
        double psnr = -1;
        if (magick) {
            im_one = time_system(magick_chain(f, true), reps);
            im_all = time_system(magick_chain(f, false), reps);
            std::ifstream in(dir / "l1.rgba", std::ios::binary);
            std::vector<uint8_t> theirs((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            if (theirs.size() == mips[1].data.size()) psnr = psnr_premultiplied(mips[1].data, theirs);
        }
        std::printf("%-9s | %7.3fs | %7.3fs (%6.3fs) | %7.3fs | %7.3fs (%6.3fs) | %7.3fs (%6.3fs) | %.2f dB\n",
                    our_name(f), one.wall, all.wall, all.cpu, im_one.wall, im_all.wall, im_all.cpu, linear.wall,
                    linear.cpu, psnr);
        std::fflush(stdout);
    }
    if (magick)
        std::printf("\nImageMagick times include reading the raw input: %.3f s (cpu %.3f s) on its own.\n",
                    im_load.wall, im_load.cpu);
    fs::remove_all(dir);
    return 0;
}
