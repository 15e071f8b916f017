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

uint8_t paeth(uint8_t a, uint8_t b, uint8_t c) {
    const int p = int(a) + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

// One row with filter `f` into out (without the filter byte); `bpp` bytes per
// pixel (at least 1), `prev` the previous unfiltered row or nullptr.
void filter_row(PngFilter f, const uint8_t* row, const uint8_t* prev, size_t n, size_t bpp, uint8_t* out) {
    for (size_t i = 0; i < n; ++i) {
        const uint8_t a = i >= bpp ? row[i - bpp] : 0, b = prev ? prev[i] : 0, c = prev && i >= bpp ? prev[i - bpp] : 0;
        switch (f) {
        case PngFilter::Sub:
            out[i] = uint8_t(row[i] - a);
            break;
        case PngFilter::Up:
            out[i] = uint8_t(row[i] - b);
            break;
        case PngFilter::Paeth:
            out[i] = uint8_t(row[i] - paeth(a, b, c));
            break;
        default:
            out[i] = row[i];
            break;
        }
    }
}

uint64_t cost(const uint8_t* p, size_t n) {
    uint64_t s = 0;
    for (size_t i = 0; i < n; ++i) s += p[i] < 128 ? p[i] : 256 - p[i];
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
    std::vector<uint8_t> filtered((row_bytes + 1) * l.height);
    std::vector<uint8_t> trial(filter == PngFilter::Auto ? row_bytes : 0);
    for (uint32_t y = 0; y < l.height; ++y) {
        const uint8_t* row = pixels + row_bytes * y;
        const uint8_t* prev = y ? row - row_bytes : nullptr;
        uint8_t* out = filtered.data() + (row_bytes + 1) * y;
        PngFilter f = filter;
        if (filter == PngFilter::Auto) {
            uint64_t best = UINT64_MAX;
            for (PngFilter c : {PngFilter::None, PngFilter::Sub, PngFilter::Up, PngFilter::Paeth}) {
                filter_row(c, row, prev, row_bytes, bpp, trial.data());
                if (uint64_t s = cost(trial.data(), row_bytes); s < best) best = s, f = c;
            }
        }
        out[0] = f == PngFilter::None ? 0 : f == PngFilter::Sub ? 1 : f == PngFilter::Up ? 2 : 4;
        filter_row(f, row, prev, row_bytes, bpp, out + 1);
    }

    std::unique_ptr<libdeflate_compressor, CompressorFree> c(libdeflate_alloc_compressor(level));
    if (!c) sdk::fail(AF_ERR_NO_MEMORY, AF_NO_OFFSET, "PNG encoder: out of memory");
    std::vector<uint8_t> z(libdeflate_zlib_compress_bound(c.get(), filtered.size()));
    const size_t zn = libdeflate_zlib_compress(c.get(), filtered.data(), filtered.size(), z.data(), z.size());
    if (!zn) sdk::fail(AF_ERR_INTERNAL, AF_NO_OFFSET, "PNG encoder: deflate output exceeded its bound");
    filtered = {};

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
    chunk(out, "IDAT", z.data(), zn);
    chunk(out, "IEND", nullptr, 0);
    return out;
}

} // namespace af
