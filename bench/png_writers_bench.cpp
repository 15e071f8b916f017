// PNG writers side by side on the same RGBA8 images (issue 20): AssetForge's
// own encoder (af::write_png_stream on libdeflate, filter auto) at levels 1, 6
// and 12; libspng (spng_encode_image, SPNG_IMG_COMPRESSION_LEVEL 1 and 6, its
// default adaptive filter choice, zlib underneath); libpng (png_write_image,
// zlib level 1 and 6, its default adaptive filters). No colour chunks in any.
//
// Images: "big", one N x N image (default 4096) made by bilinear upscaling a
// real texture (--big FILE, default the 128x128 rock crop in the bc plugin's
// test data), and "set", every other PNG on the command line decoded to RGBA8
// (grey and RGB expanded, alpha 255 when absent).
//
// MB/s: uncompressed RGBA8 bytes per second of wall time, best of R runs (one
// thread; for "set", one run encodes every file). Every output of every writer
// is decoded again with libpng (the project's reader) and must give back the
// same pixels, else the bench exits non-zero.
//
//   png_writers_bench [--big FILE] [--size N] [--reps R] [set.png ...]
#include "core/png_io.hpp"
#include "core/png_write.hpp"

#include <png.h>
#include <spng.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace af;

namespace {

using Bytes = std::vector<uint8_t>;

Bytes af_write(const Texture& img, int level) {
    PngLayout layout;
    layout.width = img.desc.width;
    layout.height = img.desc.height;
    return write_png_stream(img.data.data(), layout, PngTags{}, level, PngFilter::Auto);
}

Bytes spng_write(const Texture& img, int level) {
    spng_ctx* ctx = spng_ctx_new(SPNG_CTX_ENCODER);
    spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1);
    spng_set_option(ctx, SPNG_IMG_COMPRESSION_LEVEL, level);
    spng_ihdr ihdr{};
    ihdr.width = img.desc.width;
    ihdr.height = img.desc.height;
    ihdr.bit_depth = 8;
    ihdr.color_type = SPNG_COLOR_TYPE_TRUECOLOR_ALPHA;
    spng_set_ihdr(ctx, &ihdr);
    int err = spng_encode_image(ctx, img.data.data(), img.data.size(), SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE);
    size_t len = 0;
    auto* buf = static_cast<uint8_t*>(err ? nullptr : spng_get_png_buffer(ctx, &len, &err));
    spng_ctx_free(ctx);
    if (!buf) {
        std::fprintf(stderr, "spng: %s\n", spng_strerror(err));
        std::exit(1);
    }
    Bytes out(buf, buf + len);
    std::free(buf);
    return out;
}

Bytes libpng_write(const Texture& img, int level) {
    Bytes out;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png))) {
        std::fprintf(stderr, "libpng: write failed\n");
        std::exit(1);
    }
    png_set_write_fn(
        png, &out,
        [](png_structp p, png_bytep data, size_t n) {
            auto* o = static_cast<Bytes*>(png_get_io_ptr(p));
            o->insert(o->end(), data, data + n);
        },
        nullptr);
    png_set_compression_level(png, level);
    png_set_IHDR(png, info, img.desc.width, img.desc.height, 8, PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    std::vector<png_bytep> rows(img.desc.height);
    for (uint32_t y = 0; y < img.desc.height; ++y)
        rows[y] = const_cast<png_bytep>(img.data.data() + size_t(y) * img.desc.width * 4);
    png_write_info(png, info);
    png_write_image(png, rows.data());
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    return out;
}

// Bilinear upscale of a decoded RGBA8 image to n x n (texel centres aligned).
Texture upscale(const Texture& in, uint32_t n) {
    Texture out = rgba8_picture(n, n);
    for (uint32_t y = 0; y < n; ++y) {
        const double fy = std::clamp((y + 0.5) * in.desc.height / n - 0.5, 0.0, in.desc.height - 1.0);
        const uint32_t y0 = uint32_t(fy), y1 = std::min(y0 + 1, in.desc.height - 1);
        const double wy = fy - y0;
        for (uint32_t x = 0; x < n; ++x) {
            const double fx = std::clamp((x + 0.5) * in.desc.width / n - 0.5, 0.0, in.desc.width - 1.0);
            const uint32_t x0 = uint32_t(fx), x1 = std::min(x0 + 1, in.desc.width - 1);
            const double wx = fx - x0;
            for (int c = 0; c < 4; ++c) {
                auto at = [&](uint32_t xx, uint32_t yy) { return in.data[(size_t(yy) * in.desc.width + xx) * 4 + c]; };
                const double top = at(x0, y0) * (1 - wx) + at(x1, y0) * wx;
                const double bottom = at(x0, y1) * (1 - wx) + at(x1, y1) * wx;
                out.data[(size_t(y) * n + x) * 4 + c] = uint8_t(top * (1 - wy) + bottom * wy + 0.5);
            }
        }
    }
    return out;
}

struct Writer {
    const char* name;
    int level;
    std::function<Bytes(const Texture&, int)> write;
};

struct Result {
    double mbps = 0;
    size_t bytes = 0;
};

// Best of `reps` passes over `images`; every output decoded back and compared.
Result measure(const Writer& w, const std::vector<Texture>& images, int reps) {
    double raw = 0, best = 1e30;
    for (const Texture& img : images) raw += double(img.data.size());
    Result r;
    for (int rep = 0; rep < reps; ++rep) {
        size_t bytes = 0;
        std::vector<Bytes> outs;
        const auto t0 = std::chrono::steady_clock::now();
        for (const Texture& img : images) {
            outs.push_back(w.write(img, w.level));
            bytes += outs.back().size();
        }
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        r.bytes = bytes;
        if (rep > 0) continue; // one check per image is enough: the writers are deterministic
        for (size_t i = 0; i < images.size(); ++i) {
            const Texture back = decode_png(outs[i], w.name);
            if (back.desc.width != images[i].desc.width || back.desc.height != images[i].desc.height ||
                back.data != images[i].data) {
                std::fprintf(stderr, "%s level %d: image %zu does not decode to the same pixels\n", w.name, w.level, i);
                std::exit(1);
            }
        }
    }
    r.mbps = raw / 1e6 / best;
    return r;
}

} // namespace

int main(int argc, char** argv) {
    std::string big_path = "plugins/bc/tests/data/d_rock_128.png";
    uint32_t size = 4096;
    int reps = 5;
    std::vector<std::string> set_paths;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--big" && i + 1 < argc)
            big_path = argv[++i];
        else if (a == "--size" && i + 1 < argc)
            size = uint32_t(std::atoi(argv[++i]));
        else if (a == "--reps" && i + 1 < argc)
            reps = std::max(1, std::atoi(argv[++i]));
        else
            set_paths.push_back(a);
    }
    const Texture source = to_rgba8(read_png_file(big_path));
    const std::vector<Texture> big{upscale(source, size)};
    std::vector<Texture> set;
    double set_mb = 0;
    for (const std::string& p : set_paths) {
        set.push_back(to_rgba8(read_png_file(p)));
        set_mb += double(set.back().data.size()) / 1e6;
    }
    std::printf("big: %s %ux%u upscaled to %ux%u (%.1f MB RGBA8)\n", big_path.c_str(), source.desc.width,
                source.desc.height, size, size, double(big[0].data.size()) / 1e6);
    std::printf("set: %zu PNGs decoded to RGBA8 (%.1f MB)\n", set.size(), set_mb);
    std::printf("best of %d, one thread, every output decoded back with libpng and compared\n\n", reps);

    const std::vector<Writer> writers{
        {"assetforge", 1, af_write}, {"assetforge", 6, af_write}, {"assetforge", 12, af_write},
        {"libspng", 1, spng_write},  {"libspng", 6, spng_write},  {"libpng", 1, libpng_write},
        {"libpng", 6, libpng_write},
    };
    std::vector<Result> rb, rs;
    for (const Writer& w : writers) {
        rb.push_back(measure(w, big, reps));
        rs.push_back(set.empty() ? Result{} : measure(w, set, reps));
    }
    std::printf("| writer | level | big MB/s | big bytes | big vs AF 1 | set MB/s | set bytes | set vs AF 1 |\n");
    std::printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < writers.size(); ++i)
        std::printf("| %s | %d | %.1f | %zu | %.3f | %.1f | %zu | %.3f |\n", writers[i].name, writers[i].level,
                    rb[i].mbps, rb[i].bytes, double(rb[i].bytes) / double(rb[0].bytes), rs[i].mbps, rs[i].bytes,
                    rs[0].bytes ? double(rs[i].bytes) / double(rs[0].bytes) : 0.0);
    std::printf("(vs AF 1: output bytes relative to AssetForge level 1; MB/s of uncompressed RGBA8 input)\n");
    return 0;
}
