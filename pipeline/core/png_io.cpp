#include "core/png_io.hpp"

#include "assetforge/atomic_file.hpp"
#include "assetforge/plugin.hpp"
#include "core/png_write.hpp"

#include <png.h>

#include <cmath>
#include <cstring>
#include <fstream>

namespace af {
namespace {

struct ReadState {
    std::span<const uint8_t> data;
    size_t pos = 0;
};

[[noreturn]] void png_fail(png_structp png, png_const_charp msg) {
    auto* err = static_cast<std::string*>(png_get_error_ptr(png));
    *err = msg;
    png_longjmp(png, 1);
}
void png_warn(png_structp, png_const_charp) {}

void read_fn(png_structp png, png_bytep out, png_size_t n) {
    auto* s = static_cast<ReadState*>(png_get_io_ptr(png));
    if (n > s->data.size() - s->pos) png_error(png, "file is truncated");
    memcpy(out, s->data.data() + s->pos, n);
    s->pos += n;
}

uint32_t be32(const uint8_t* p) { return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]; }

// Bytes of compressed image data the file holds: the IDAT chunks' lengths,
// the last one cut at the end of the file.
uint64_t idat_bytes(std::span<const uint8_t> png) {
    uint64_t sum = 0;
    for (size_t pos = 8; pos + 8 <= png.size();) {
        const uint64_t len = be32(png.data() + pos), room = png.size() - pos - 8;
        const bool idat = memcmp(png.data() + pos + 4, "IDAT", 4) == 0;
        if (idat) sum += std::min(len, room);
        if (len + 4 > room || memcmp(png.data() + pos + 4, "IEND", 4) == 0) break;
        pos += 12 + size_t(len);
    }
    return sum;
}

// Bytes the zlib stream inflates to: every row of every pass with its filter byte.
uint64_t filtered_bytes(uint32_t w, uint32_t h, uint32_t bits_per_pixel, bool interlaced) {
    auto rows = [&](uint64_t cols, uint64_t n) { return cols && n ? n * (1 + (cols * bits_per_pixel + 7) / 8) : 0; };
    if (!interlaced) return rows(w, h);
    uint64_t sum = 0;
    for (int pass = 0; pass < 7; ++pass) sum += rows(PNG_PASS_COLS(w, pass), PNG_PASS_ROWS(h, pass));
    return sum;
}

// Deflate's densest code is a 258-byte match in 2 bits, so a zlib stream
// inflates to at most 1032 times its size. Image data shorter than the
// declared rows need at that ratio cannot fill them: refused before anything
// the size of the image is allocated.
constexpr uint64_t kDeflateMaxRatio = 1032;

const char* colour_type_name(int ctype) {
    switch (ctype) {
    case PNG_COLOR_TYPE_GRAY:
        return "grey";
    case PNG_COLOR_TYPE_RGB:
        return "RGB";
    case PNG_COLOR_TYPE_PALETTE:
        return "palette";
    case PNG_COLOR_TYPE_GRAY_ALPHA:
        return "grey+alpha";
    case PNG_COLOR_TYPE_RGB_ALPHA:
        return "RGBA";
    }
    return "?";
}

// What read_png fills. It lives in the caller, outside the setjmp frame, so
// a longjmp cannot leave it with stale values.
struct Decoded {
    uint32_t w = 0, h = 0;
    bool wide = false, srgb = true;
    bool no_memory = false;      // the error was an allocation, not the data
    std::vector<uint8_t> texels; // the picture's bytes: RGBA8 (8-bit files) or RGBA32F (16-bit files)
    std::vector<uint8_t> buf;    // one row as libpng delivers it (every row when interlaced)
    std::vector<png_bytep> rows; // interlaced only
};

// Grows d's pixels row by row as the rows decode, so a file whose data stops
// early never costs more than what it held. Interlaced files fill every row
// on each pass and are read whole. Only plain locals live across setjmp; on
// false, *err says why.
bool read_png(ReadState* state, Decoded* d, std::string* err) {
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, err, png_fail, png_warn);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!info) {
        png_destroy_read_struct(&png, nullptr, nullptr);
        *err = "out of memory";
        d->no_memory = true;
        return false;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, nullptr);
        return false;
    }
    png_set_read_fn(png, state, read_fn);
    png_set_user_limits(png, 65536, 65536);
    png_read_info(png, info);
    const png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    const int depth = png_get_bit_depth(png, info), ctype = png_get_color_type(png, info);
    const bool interlaced = png_get_interlace_type(png, info) != PNG_INTERLACE_NONE;
    const uint64_t need = filtered_bytes(w, h, uint32_t(png_get_channels(png, info) * depth), interlaced);
    const uint64_t have = idat_bytes(state->data);
    if (have < need / kDeflateMaxRatio) {
        char msg[256];
        snprintf(msg, sizeof msg,
                 "%ux%u %d-bit %s declares %llu bytes of pixel rows, which need at least %llu bytes of image "
                 "data; the file holds %llu",
                 unsigned(w), unsigned(h), depth, colour_type_name(ctype), (unsigned long long)need,
                 (unsigned long long)(need / kDeflateMaxRatio), (unsigned long long)have);
        png_error(png, msg);
    }
    if (ctype == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (ctype == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    if (ctype == PNG_COLOR_TYPE_GRAY || ctype == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
    if (!(ctype & PNG_COLOR_MASK_ALPHA) && !png_get_valid(png, info, PNG_INFO_tRNS))
        png_set_filler(png, depth == 16 ? 0xffff : 0xff, PNG_FILLER_AFTER);
    if (depth == 16) png_set_swap(png); // native little-endian u16
    const int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    d->w = w;
    d->h = h;
    d->wide = depth == 16;
    // sRGB unless the file says otherwise with gAMA ≈ 1.0 (linear data).
    double gamma = 0;
    if (png_get_valid(png, info, PNG_INFO_gAMA) && png_get_gAMA(png, info, &gamma) && std::fabs(gamma - 1.0) < 0.01)
        d->srgb = false;
    if (png_get_valid(png, info, PNG_INFO_sRGB)) d->srgb = true;
    const size_t row_bytes = size_t(w) * (d->wide ? 8 : 4), texels = size_t(w) * h;
    try {
        // Capacity only: pages are touched as rows arrive.
        d->texels.reserve(texels * (d->wide ? 16 : 4));
        if (passes > 1) {
            // 8-bit rows land in place; 16-bit ones are converted afterwards.
            if (d->wide)
                d->buf.resize(row_bytes * h);
            else
                d->texels.resize(row_bytes * h);
            d->rows.resize(h);
        } else if (d->wide) {
            d->buf.resize(row_bytes);
        }
    } catch (const std::bad_alloc&) {
        d->no_memory = true;
    }
    // Outside the handler: a longjmp must not leave a catch block.
    if (d->no_memory) png_error(png, "out of memory");
    if (passes > 1) {
        uint8_t* base = d->wide ? d->buf.data() : d->texels.data();
        for (png_uint_32 y = 0; y < h; ++y) d->rows[y] = base + y * row_bytes;
        png_read_image(png, d->rows.data());
    } else if (!d->wide) {
        for (png_uint_32 y = 0; y < h; ++y) {
            d->texels.resize(d->texels.size() + row_bytes);
            png_read_row(png, d->texels.data() + d->texels.size() - row_bytes, nullptr);
        }
    }
    if (d->wide) {
        for (png_uint_32 y = 0; y < h; ++y) {
            const uint8_t* row = d->buf.data();
            if (passes > 1)
                row = d->rows[y];
            else
                png_read_row(png, d->buf.data(), nullptr);
            const size_t at = d->texels.size();
            d->texels.resize(at + size_t(w) * 16); // within the reserved capacity: the buffer stays put
            float* out = reinterpret_cast<float*>(d->texels.data() + at);
            for (size_t i = 0; i < size_t(w) * 4; ++i) {
                uint16_t v;
                memcpy(&v, row + i * 2, 2);
                out[i] = v / 65535.0f;
            }
        }
    }
    png_read_end(png, nullptr);
    png_destroy_read_struct(&png, &info, nullptr);
    d->buf = {};
    d->rows = {};
    return true;
}

} // namespace

bool is_png(std::span<const uint8_t> head) { return head.size() >= 8 && png_sig_cmp(head.data(), 0, 8) == 0; }

Texture decode_png(std::span<const uint8_t> bytes, const std::string& name) {
    if (!is_png(bytes)) sdk::invalid(0, name + ": not a PNG file (bad signature)");
    ReadState state{bytes, 0};
    Decoded d;
    std::string err;
    if (!read_png(&state, &d, &err)) {
        if (d.no_memory)
            sdk::fail(AF_ERR_NO_MEMORY, AF_NO_OFFSET,
                      name + ": out of memory" +
                          (d.w ? " for " + std::to_string(d.w) + "x" + std::to_string(d.h) + " texels" : ""));
        sdk::invalid(state.pos, name + ": PNG error: " + err);
    }
    // The rows decoded straight into the picture's buffer: no second copy.
    Texture img;
    img.desc.format = d.wide ? FMT_R32G32B32A32_FLOAT : (d.srgb ? FMT_R8G8B8A8_UNORM_SRGB : FMT_R8G8B8A8_UNORM);
    img.desc.width = d.w;
    img.desc.height = d.h;
    if (d.wide && d.srgb) img.desc.flags = AF_TEX_SRGB;
    img.data = std::move(d.texels);
    return img;
}

Texture read_png_file(const std::filesystem::path& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) sdk::fail(AF_ERR_IO, AF_NO_OFFSET, path.string() + ": cannot open");
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    return decode_png(bytes, path.string());
}

namespace {
// Masks and stencils: grey, no alpha, a texel is white when its red channel is at least half.
std::vector<uint8_t> encode_png_1bit(const Texture& img, const PngWriteOptions& opt) {
    if (!opt.grey || !opt.drop_alpha) sdk::usage("a 1-bit PNG is grey without alpha");
    const uint32_t width = img.desc.width, height = img.desc.height;
    if (width == 0 || height == 0) sdk::usage("cannot write an empty PNG");
    const size_t stride = (size_t(width) + 7) / 8;
    std::vector<uint8_t> buf(stride * height, 0);
    const std::span<const float> f = floats(img);
    for (uint32_t y = 0; y < height; ++y)
        for (uint32_t x = 0; x < width; ++x) {
            const size_t i = size_t(y) * width + x;
            const bool on = is_float(img) ? f[i * 4] >= 0.5f : img.data[i * 4] >= 128;
            if (on) buf[y * stride + x / 8] |= uint8_t(0x80 >> (x & 7)); // PNG packs MSB first
        }
    return write_png_stream(buf.data(), {width, height, 1, PNG_COLOR_TYPE_GRAY, 1}, {is_srgb(img.desc), opt.tag_linear},
                            opt.compression, opt.filter);
}
} // namespace

std::vector<uint8_t> encode_png(const Texture& img, const PngWriteOptions& opt) {
    if (opt.bit_depth == 1) return encode_png_1bit(img, opt);
    if (opt.bit_depth != 8 && opt.bit_depth != 16) sdk::usage("PNG bit depth must be 1, 8 or 16");
    const uint32_t width = img.desc.width, height = img.desc.height;
    if (width == 0 || height == 0) sdk::usage("cannot write an empty PNG");
    const int channels = opt.grey ? (opt.drop_alpha ? 1 : 2) : (opt.drop_alpha ? 3 : 4);
    const size_t bpc = opt.bit_depth / 8;
    std::vector<uint8_t> buf(size_t(width) * height * channels * bpc);
    const bool wide = is_float(img);
    const std::span<const float> f = floats(img);
    for (size_t i = 0; i < texels(img); ++i) {
        for (int c = 0; c < channels; ++c) {
            int src = opt.grey ? (c == 0 ? 0 : 3) : c;
            size_t o = (i * channels + c) * bpc;
            if (opt.bit_depth == 8) {
                buf[o] = wide
                             ? uint8_t(std::lround(
                                   std::clamp(std::isnan(f[i * 4 + src]) ? 0.0f : f[i * 4 + src], 0.0f, 1.0f) * 255.0f))
                             : img.data[i * 4 + src];
            } else {
                uint16_t v =
                    wide ? uint16_t(std::lround(
                               std::clamp(std::isnan(f[i * 4 + src]) ? 0.0f : f[i * 4 + src], 0.0f, 1.0f) * 65535.0f))
                         : uint16_t(img.data[i * 4 + src] * 257);
                buf[o] = uint8_t(v >> 8); // PNG is big-endian
                buf[o + 1] = uint8_t(v);
            }
        }
    }
    int ctype = opt.grey ? (channels == 1 ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_GRAY_ALPHA)
                         : (channels == 3 ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGBA);
    return write_png_stream(buf.data(), {width, height, opt.bit_depth, ctype, channels},
                            {is_srgb(img.desc), opt.tag_linear}, opt.compression, opt.filter);
}

void write_png_file(const std::filesystem::path& path, const Texture& img, const PngWriteOptions& opt) {
    sdk::write_file_atomic(path, encode_png(img, opt));
}

} // namespace af
