#include "core/png_write.hpp"

#include "assetforge/plugin.hpp"

#include <libdeflate.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

namespace af {
namespace {

void put32(std::vector<uint8_t>& v, uint32_t x) {
    v.push_back(uint8_t(x >> 24)), v.push_back(uint8_t(x >> 16)), v.push_back(uint8_t(x >> 8)), v.push_back(uint8_t(x));
}

void chunk(std::vector<uint8_t>& out, const char type[4], const uint8_t* data, size_t size) {
    put32(out, uint32_t(size));
    const size_t start = out.size();
    out.insert(out.end(), type, type + 4);
    if (size) out.insert(out.end(), data, data + size);
    put32(out, libdeflate_crc32(0, out.data() + start, size + 4));
}

// The four filters as plain loops (no per-byte dispatch: they vectorise).
// `prev` is the previous unfiltered row, or nullptr for the first row.
void filter_sub(const uint8_t* row, size_t n, size_t bpp, uint8_t* out) {
    for (size_t i = 0; i < std::min(n, bpp); ++i) out[i] = row[i];
    for (size_t i = bpp; i < n; ++i) out[i] = uint8_t(row[i] - row[i - bpp]);
}

void filter_up(const uint8_t* row, const uint8_t* prev, size_t n, uint8_t* out) {
    if (!prev) {
        std::memcpy(out, row, n);
        return;
    }
    for (size_t i = 0; i < n; ++i) out[i] = uint8_t(row[i] - prev[i]);
}

// Branch-free predictor: the neighbour (left a, above b, upper-left c) closest
// to a + b - c, ties in the order a, b, c.
inline int paeth_predict(int a, int b, int c) {
    const int pa = std::abs(b - c), pb = std::abs(a - c), pc = std::abs(a + b - 2 * c);
    const int ab = pa <= pb ? a : b;
    const int pab = pa <= pb ? pa : pb;
    return pab <= pc ? ab : c;
}

void filter_paeth(const uint8_t* row, const uint8_t* prev, size_t n, size_t bpp, uint8_t* out) {
    if (!prev) return filter_sub(row, n, bpp, out); // above and upper-left are 0: the predictor is `a`
    for (size_t i = 0; i < std::min(n, bpp); ++i) out[i] = uint8_t(row[i] - prev[i]); // a = c = 0: predicts b
    for (size_t i = bpp; i < n; ++i) out[i] = uint8_t(row[i] - paeth_predict(row[i - bpp], prev[i], prev[i - bpp]));
}

void filter_row(PngFilter f, const uint8_t* row, const uint8_t* prev, size_t n, size_t bpp, uint8_t* out) {
    switch (f) {
    case PngFilter::Sub:
        return filter_sub(row, n, bpp, out);
    case PngFilter::Up:
        return filter_up(row, prev, n, out);
    case PngFilter::Paeth:
        return filter_paeth(row, prev, n, bpp, out);
    default:
        std::memcpy(out, row, n);
    }
}

// Sum of the bytes read as signed values' magnitudes: libpng's heuristic.
uint64_t cost(const uint8_t* p, size_t n) {
    uint64_t s = 0;
    for (size_t i = 0; i < n; ++i) s += uint8_t(p[i] < 128 ? p[i] : 256 - p[i]);
    return s;
}

struct CompressorFree {
    void operator()(libdeflate_compressor* c) const { libdeflate_free_compressor(c); }
};

} // namespace

PngFilter parse_png_filter(std::string_view name) {
    if (name == "auto") return PngFilter::Auto;
    if (name == "none") return PngFilter::None;
    if (name == "sub") return PngFilter::Sub;
    if (name == "up") return PngFilter::Up;
    if (name == "paeth") return PngFilter::Paeth;
    sdk::usage("PNG filter '" + std::string(name) + "': use auto, none, sub, up or paeth");
}

std::vector<uint8_t> write_png_stream(const uint8_t* pixels, const PngLayout& l, const PngTags& tags, int level,
                                      PngFilter filter) {
    if (level < 0 || level > 12) sdk::usage("PNG level " + std::to_string(level) + ": use 0 (none) to 12 (smallest)");
    const size_t row_bytes = (size_t(l.width) * l.channels * l.bit_depth + 7) / 8;
    const size_t bpp = std::max<size_t>(1, size_t(l.channels) * l.bit_depth / 8);
    // Filter types are a PNG matter only for whole-byte pixels; bit-packed rows stay unfiltered.
    if (level == 0 || l.bit_depth < 8) filter = filter == PngFilter::Auto ? PngFilter::None : filter;
    // Uninitialised: every byte is written below (zeroing hundreds of MB costs page faults for nothing).
    const size_t filtered_size = (row_bytes + 1) * l.height;
    std::unique_ptr<uint8_t[]> filtered(new uint8_t[filtered_size]);
    constexpr PngFilter kCandidates[] = {PngFilter::None, PngFilter::Sub, PngFilter::Up, PngFilter::Paeth};
    std::unique_ptr<uint8_t[]> trial(filter == PngFilter::Auto ? new uint8_t[row_bytes * 4] : nullptr);
    for (uint32_t y = 0; y < l.height; ++y) {
        const uint8_t* row = pixels + row_bytes * y;
        const uint8_t* prev = y ? row - row_bytes : nullptr;
        uint8_t* out = filtered.get() + (row_bytes + 1) * y;
        PngFilter f = filter;
        if (filter == PngFilter::Auto) {
            uint64_t best = UINT64_MAX;
            int pick = 0;
            for (int k = 0; k < 4; ++k) {
                filter_row(kCandidates[k], row, prev, row_bytes, bpp, trial.get() + row_bytes * k);
                if (uint64_t c = cost(trial.get() + row_bytes * k, row_bytes); c < best) best = c, pick = k;
            }
            f = kCandidates[pick];
            std::memcpy(out + 1, trial.get() + row_bytes * pick, row_bytes);
        } else {
            filter_row(f, row, prev, row_bytes, bpp, out + 1);
        }
        out[0] = f == PngFilter::None ? 0 : f == PngFilter::Sub ? 1 : f == PngFilter::Up ? 2 : 4;
    }

    std::unique_ptr<libdeflate_compressor, CompressorFree> c(libdeflate_alloc_compressor(level));
    if (!c) sdk::fail(AF_ERR_NO_MEMORY, AF_NO_OFFSET, "PNG encoder: out of memory");
    const size_t bound = libdeflate_zlib_compress_bound(c.get(), filtered_size);
    std::unique_ptr<uint8_t[]> z(new uint8_t[bound]);
    const size_t zn = libdeflate_zlib_compress(c.get(), filtered.get(), filtered_size, z.get(), bound);
    if (!zn) sdk::fail(AF_ERR_INTERNAL, AF_NO_OFFSET, "PNG encoder: deflate output exceeded its bound");
    filtered.reset();

    std::vector<uint8_t> out = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    out.reserve(zn + 128);
    std::vector<uint8_t> ihdr;
    put32(ihdr, l.width);
    put32(ihdr, l.height);
    ihdr.insert(ihdr.end(), {uint8_t(l.bit_depth), uint8_t(l.color_type), 0, 0, 0});
    chunk(out, "IHDR", ihdr.data(), ihdr.size());
    if (tags.srgb) {
        const uint8_t intent = 0; // perceptual
        chunk(out, "sRGB", &intent, 1);
        std::vector<uint8_t> g;
        put32(g, 45455); // 1/2.2, for readers that ignore sRGB (as libpng writes it)
        chunk(out, "gAMA", g.data(), g.size());
        std::vector<uint8_t> chrm;
        for (uint32_t v : {31270u, 32900u, 64000u, 33000u, 30000u, 60000u, 15000u, 6000u}) put32(chrm, v);
        chunk(out, "cHRM", chrm.data(), chrm.size());
    } else if (tags.linear) {
        std::vector<uint8_t> g;
        put32(g, 100000);
        chunk(out, "gAMA", g.data(), g.size());
    }
    chunk(out, "IDAT", z.get(), zn);
    chunk(out, "IEND", nullptr, 0);
    return out;
}

} // namespace af
