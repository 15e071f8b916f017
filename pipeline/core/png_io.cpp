#include "core/png_io.hpp"

#include "assetforge/plugin.hpp"
#include "core/atomic_file.hpp"

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

void write_fn(png_structp png, png_bytep in, png_size_t n) {
    auto* v = static_cast<std::vector<uint8_t>*>(png_get_io_ptr(png));
    v->insert(v->end(), in, in + n);
}
void flush_fn(png_structp) {}

// Only plain locals live across setjmp here, so longjmp cannot clobber them.
bool write_rows(std::vector<uint8_t>* out, png_bytep* rows, uint32_t w, uint32_t h, int depth, int ctype, bool srgb,
                bool linear, int level, std::string* err) {
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, err, png_fail, png_warn);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!info) {
        png_destroy_write_struct(&png, nullptr);
        *err = "out of memory";
        return false;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return false;
    }
    png_set_write_fn(png, out, write_fn, flush_fn);
    png_set_compression_level(png, level);
    png_set_IHDR(png, info, w, h, depth, ctype, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    if (srgb) png_set_sRGB_gAMA_and_cHRM(png, info, PNG_sRGB_INTENT_PERCEPTUAL);
    else if (linear) png_set_gAMA(png, info, 1.0);
    png_write_info(png, info);
    png_write_image(png, rows);
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    return true;
}

} // namespace

bool is_png(std::span<const uint8_t> head) { return head.size() >= 8 && png_sig_cmp(head.data(), 0, 8) == 0; }

Image decode_png(std::span<const uint8_t> bytes, const std::string& name) {
    if (!is_png(bytes)) sdk::invalid(0, name + ": not a PNG file (bad signature)");
    std::string err;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &err, png_fail, png_warn);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!info) {
        png_destroy_read_struct(&png, nullptr, nullptr);
        throw std::bad_alloc();
    }
    ReadState state{bytes, 0};
    Image img;
    std::vector<png_bytep> rows;
    std::vector<uint8_t> buf;
    // libpng reports errors by longjmp: keep no objects with destructors
    // that must run between here and the jump target beyond those declared above.
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, nullptr);
        sdk::invalid(state.pos, name + ": PNG error: " + err);
    }
    png_set_read_fn(png, &state, read_fn);
    png_set_user_limits(png, 65536, 65536);
    png_read_info(png, info);
    png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    int depth = png_get_bit_depth(png, info), ctype = png_get_color_type(png, info);
    if (ctype == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (ctype == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    if (ctype == PNG_COLOR_TYPE_GRAY || ctype == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
    if (!(ctype & PNG_COLOR_MASK_ALPHA) && !png_get_valid(png, info, PNG_INFO_tRNS))
        png_set_filler(png, depth == 16 ? 0xffff : 0xff, PNG_FILLER_AFTER);
    if (depth == 16) png_set_swap(png); // native little-endian u16
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    const bool wide = depth == 16;
    // sRGB unless the file says otherwise with gAMA ≈ 1.0 (linear data).
    bool srgb = true;
    double gamma = 0;
    if (png_get_valid(png, info, PNG_INFO_gAMA) && png_get_gAMA(png, info, &gamma) && std::fabs(gamma - 1.0) < 0.01)
        srgb = false;
    if (png_get_valid(png, info, PNG_INFO_sRGB)) srgb = true;
    buf.assign(size_t(w) * h * (wide ? 8 : 4), 0);
    rows.resize(h);
    for (png_uint_32 y = 0; y < h; ++y) rows[y] = buf.data() + size_t(y) * w * (wide ? 8 : 4);
    png_read_image(png, rows.data());
    png_read_end(png, nullptr);
    png_destroy_read_struct(&png, &info, nullptr);
    if (wide) {
        img = Image::makef(w, h, srgb);
        const uint16_t* p = reinterpret_cast<const uint16_t*>(buf.data());
        for (size_t i = 0; i < img.rgba32f.size(); ++i) img.rgba32f[i] = p[i] / 65535.0f;
    } else {
        img.width = w;
        img.height = h;
        img.type = PixelType::RGBA8;
        img.srgb = srgb;
        img.rgba8 = std::move(buf);
    }
    return img;
}

Image read_png_file(const std::filesystem::path& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) sdk::fail(AF_ERR_IO, AF_NO_OFFSET, path.string() + ": cannot open");
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    return decode_png(bytes, path.string());
}

std::vector<uint8_t> encode_png(const Image& img, const PngWriteOptions& opt) {
    if (opt.bit_depth != 8 && opt.bit_depth != 16) sdk::usage("PNG bit depth must be 8 or 16");
    if (img.width == 0 || img.height == 0) sdk::usage("cannot write an empty PNG");
    const int channels = opt.grey ? (opt.drop_alpha ? 1 : 2) : (opt.drop_alpha ? 3 : 4);
    const size_t bpc = opt.bit_depth / 8;
    std::vector<uint8_t> buf(size_t(img.width) * img.height * channels * bpc);
    for (size_t i = 0; i < img.texels(); ++i) {
        for (int c = 0; c < channels; ++c) {
            int src = opt.grey ? (c == 0 ? 0 : 3) : c;
            size_t o = (i * channels + c) * bpc;
            if (opt.bit_depth == 8) {
                buf[o] = img.is_float()
                             ? uint8_t(std::lround(std::clamp(std::isnan(img.rgba32f[i * 4 + src]) ? 0.0f : img.rgba32f[i * 4 + src], 0.0f, 1.0f) * 255.0f))
                             : img.rgba8[i * 4 + src];
            } else {
                uint16_t v = img.is_float()
                                 ? uint16_t(std::lround(std::clamp(std::isnan(img.rgba32f[i * 4 + src]) ? 0.0f : img.rgba32f[i * 4 + src], 0.0f, 1.0f) * 65535.0f))
                                 : uint16_t(img.rgba8[i * 4 + src] * 257);
                buf[o] = uint8_t(v >> 8); // PNG is big-endian
                buf[o + 1] = uint8_t(v);
            }
        }
    }
    std::vector<png_bytep> rows(img.height);
    for (uint32_t y = 0; y < img.height; ++y) rows[y] = buf.data() + size_t(y) * img.width * channels * bpc;
    int ctype = opt.grey ? (channels == 1 ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_GRAY_ALPHA)
                         : (channels == 3 ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGBA);
    std::vector<uint8_t> out;
    std::string err;
    if (!write_rows(&out, rows.data(), img.width, img.height, opt.bit_depth, ctype, img.srgb, opt.tag_linear, opt.compression, &err))
        sdk::fail(AF_ERR_INTERNAL, AF_NO_OFFSET, "PNG encoder: " + err);
    return out;
}

void write_png_file(const std::filesystem::path& path, const Image& img, const PngWriteOptions& opt) {
    write_file_atomic(path, encode_png(img, opt));
}

} // namespace af
