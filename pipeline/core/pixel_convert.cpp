#include "core/pixel_convert.hpp"

#include "assetforge/formats.hpp"
#include "assetforge/half.hpp"
#include "assetforge/plugin.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace af {
namespace {

using sdk::format;
using sdk::unsupported;

// Reads `bits` bits at `offset` from a little-endian texel of up to 16 bytes.
uint64_t get_bits(const uint8_t* texel, unsigned offset, unsigned bits) {
    uint64_t v = 0;
    for (unsigned i = 0; i < bits; ++i) {
        unsigned b = offset + i;
        v |= uint64_t((texel[b >> 3] >> (b & 7)) & 1u) << i;
    }
    return v;
}

void put_bits(uint8_t* texel, unsigned offset, unsigned bits, uint64_t v) {
    for (unsigned i = 0; i < bits; ++i) {
        unsigned b = offset + i;
        uint8_t mask = uint8_t(1u << (b & 7));
        if ((v >> i) & 1)
            texel[b >> 3] |= mask;
        else
            texel[b >> 3] &= uint8_t(~mask);
    }
}

// Fast path readers for byte-aligned channels.
float read_channel(const uint8_t* t, const Channel& c) {
    switch (c.type) {
    case ChannelType::Unorm:
    case ChannelType::Typeless: {
        uint64_t v = (c.bits == 8 && (c.offset & 7) == 0) ? t[c.offset >> 3] : get_bits(t, c.offset, c.bits);
        return float(double(v) / double((uint64_t(1) << c.bits) - 1));
    }
    case ChannelType::Snorm: {
        uint64_t v = get_bits(t, c.offset, c.bits);
        int64_t s = int64_t(v << (64 - c.bits)) >> (64 - c.bits);
        double m = double((int64_t(1) << (c.bits - 1)) - 1);
        return float(std::max(-1.0, double(s) / m));
    }
    case ChannelType::Uint:
        return float(get_bits(t, c.offset, c.bits));
    case ChannelType::Sint: {
        uint64_t v = get_bits(t, c.offset, c.bits);
        return float(int64_t(v << (64 - c.bits)) >> (64 - c.bits));
    }
    case ChannelType::Float: {
        if (c.bits == 32) {
            float f;
            memcpy(&f, t + (c.offset >> 3), 4);
            return f;
        }
        return half_to_float(uint16_t(get_bits(t, c.offset, 16)));
    }
    case ChannelType::None:
        break;
    }
    return 0.0f;
}

void write_channel(uint8_t* t, const Channel& c, float v) {
    if (std::isnan(v)) v = 0.0f;
    switch (c.type) {
    case ChannelType::Unorm:
    case ChannelType::Typeless: {
        double m = double((uint64_t(1) << c.bits) - 1);
        uint64_t q = uint64_t(std::llround(std::clamp(double(v), 0.0, 1.0) * m));
        if (c.bits == 8 && (c.offset & 7) == 0)
            t[c.offset >> 3] = uint8_t(q);
        else
            put_bits(t, c.offset, c.bits, q);
        return;
    }
    case ChannelType::Snorm: {
        double m = double((int64_t(1) << (c.bits - 1)) - 1);
        int64_t q = std::llround(std::clamp(double(v), -1.0, 1.0) * m);
        put_bits(t, c.offset, c.bits, uint64_t(q));
        return;
    }
    case ChannelType::Uint: {
        double m = double((uint64_t(1) << c.bits) - 1);
        put_bits(t, c.offset, c.bits, uint64_t(std::llround(std::clamp(double(v), 0.0, m))));
        return;
    }
    case ChannelType::Sint: {
        double hi = double((int64_t(1) << (c.bits - 1)) - 1);
        put_bits(t, c.offset, c.bits, uint64_t(std::llround(std::clamp(double(v), -hi - 1, hi))));
        return;
    }
    case ChannelType::Float:
        if (c.bits == 32)
            memcpy(t + (c.offset >> 3), &v, 4);
        else
            put_bits(t, c.offset, 16, float_to_half(v));
        return;
    case ChannelType::None:
        return;
    }
}

// R11G11B10 / RGB9E5 (small unsigned floats).
float ufloat_to_float(uint32_t v, unsigned mbits) {
    uint32_t e = v >> mbits, m = v & ((1u << mbits) - 1);
    if (e == 31) return m ? NAN : INFINITY;
    if (e == 0) return std::ldexp(float(m), -14 - int(mbits));
    return std::ldexp(1.0f + float(m) / float(1u << mbits), int(e) - 15);
}

uint32_t float_to_ufloat(float f, unsigned mbits) {
    if (!(f > 0)) return 0;
    uint16_t h = float_to_half(f); // same exponent bias as the small floats
    if ((h & 0x7c00) == 0x7c00) return (31u << mbits) | (h & 0x3ff ? 1 : 0);
    uint32_t e = (h >> 10) & 0x1f, m = h & 0x3ff;
    unsigned drop = 10 - mbits;
    uint32_t v = (e << mbits) | (m >> drop);
    uint32_t rem = m & ((1u << drop) - 1), half = 1u << (drop - 1);
    if (rem > half || (rem == half && (v & 1))) ++v; // may carry into the exponent: still correct
    return std::min(v, (30u << mbits) | ((1u << mbits) - 1));
}

const FormatInfo& need_format(uint32_t id) {
    const FormatInfo* f = format_info(id);
    if (!f) unsupported(format("format id %u is not in the format table", id));
    return *f;
}

void decode_plain(const FormatInfo& f, uint32_t id, const uint8_t* src, uint64_t n, float* out) {
    const bool lum = f.flags & fmtflag::luminance;
    for (uint64_t i = 0; i < n; ++i) {
        const uint8_t* t = src + i * f.block_bytes;
        float* o = out + i * 4;
        for (int c = 0; c < 4; ++c) o[c] = f.ch[c].bits ? read_channel(t, f.ch[c]) : (c == 3 ? 1.0f : 0.0f);
        if (lum) o[1] = o[2] = o[0];
    }
    if (f.flags & fmtflag::bluescreen) {
        // The key colour is pure blue; which byte holds blue depends on the order.
        for (uint64_t i = 0; i < n; ++i) {
            const uint8_t* t = src + i * 3;
            bool key = id == FMT_R8G8B8_BLUESCREEN ? (t[0] == 0 && t[1] == 0 && t[2] == 255)
                                                   : (t[0] == 255 && t[1] == 0 && t[2] == 0);
            out[i * 4 + 3] = key ? 0.0f : 1.0f;
        }
    }
}

void decode_palette(const uint8_t* src, uint64_t n, float* out, const uint8_t* palette) {
    if (!palette) sdk::invalid(AF_NO_OFFSET, "P8 surface without a palette");
    for (uint64_t i = 0; i < n; ++i)
        for (int c = 0; c < 4; ++c) out[i * 4 + c] = palette[src[i] * 4 + c] * (1.0f / 255.0f);
}

// Each 4-byte pair holds two texels sharing chroma. R8G8_B8G8: R G0 B G1;
// G8R8_G8B8: G0 R G1 B; YUY2: Y0 U Y1 V (BT.601 limited range).
void decode_packed(uint32_t id, const uint8_t* src, uint32_t w, uint32_t h, float* out) {
    const uint64_t pitch = row_pitch(id, w);
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x) {
            const uint8_t* p = src + y * pitch + (x / 2) * 4;
            float* o = out + (uint64_t(y) * w + x) * 4;
            bool odd = x & 1;
            if (id == FMT_YUY2) {
                float Y = (odd ? p[2] : p[0]) - 16.0f, U = p[1] - 128.0f, V = p[3] - 128.0f;
                o[0] = std::clamp((1.164f * Y + 1.596f * V) / 255.0f, 0.0f, 1.0f);
                o[1] = std::clamp((1.164f * Y - 0.392f * U - 0.813f * V) / 255.0f, 0.0f, 1.0f);
                o[2] = std::clamp((1.164f * Y + 2.017f * U) / 255.0f, 0.0f, 1.0f);
            } else if (id == FMT_R8G8_B8G8_UNORM) {
                o[0] = p[0] / 255.0f;
                o[1] = (odd ? p[3] : p[1]) / 255.0f;
                o[2] = p[2] / 255.0f;
            } else {
                o[0] = p[1] / 255.0f;
                o[1] = (odd ? p[2] : p[0]) / 255.0f;
                o[2] = p[3] / 255.0f;
            }
            o[3] = 1.0f;
        }
}

void decode_special(const FormatInfo& f, uint32_t id, const uint8_t* src, uint32_t w, uint32_t h, float* out) {
    const uint64_t n = uint64_t(w) * h;
    if (id == FMT_R1_UNORM) {
        const uint64_t pitch = row_pitch(id, w);
        for (uint32_t y = 0; y < h; ++y)
            for (uint32_t x = 0; x < w; ++x) {
                float v = (src[y * pitch + x / 8] >> (7 - x % 8)) & 1 ? 1.0f : 0.0f;
                float* o = out + (uint64_t(y) * w + x) * 4;
                o[0] = v;
                o[1] = o[2] = 0.0f;
                o[3] = 1.0f;
            }
        return;
    }
    for (uint64_t i = 0; i < n; ++i) {
        const uint8_t* t = src + i * f.block_bytes;
        float* o = out + i * 4;
        uint32_t v;
        memcpy(&v, t, 4);
        o[3] = 1.0f;
        if (id == FMT_R11G11B10_FLOAT) {
            o[0] = ufloat_to_float(v & 0x7ff, 6);
            o[1] = ufloat_to_float((v >> 11) & 0x7ff, 6);
            o[2] = ufloat_to_float(v >> 22, 5);
        } else if (id == FMT_R9G9B9E5_SHAREDEXP) {
            float scale = std::ldexp(1.0f, int(v >> 27) - 15 - 9);
            o[0] = float(v & 0x1ff) * scale;
            o[1] = float((v >> 9) & 0x1ff) * scale;
            o[2] = float((v >> 18) & 0x1ff) * scale;
        } else if (id == FMT_R10G10B10_XR_BIAS_A2_UNORM) {
            for (int c = 0; c < 3; ++c) o[c] = (float((v >> (10 * c)) & 0x3ff) - 384.0f) / 510.0f;
            o[3] = float(v >> 30) / 3.0f;
        } else if (id == FMT_R24G8_TYPELESS) {
            o[0] = float(v & 0xffffff) / 16777215.0f;
            o[1] = float(v >> 24);
            o[2] = 0.0f;
        } else { // 64-bit depth/stencil: D32 float + 8-bit stencil
            float d;
            memcpy(&d, t, 4);
            o[0] = d;
            o[1] = float(t[4]);
            o[2] = 0.0f;
            if (id == FMT_X32_TYPELESS_G8X24_UINT) o[0] = 0.0f;
        }
    }
}

void encode_plain(const FormatInfo& f, uint32_t id, const float* in, uint64_t n, uint8_t* dst) {
    const bool lum = f.flags & fmtflag::luminance;
    for (uint64_t i = 0; i < n; ++i) {
        uint8_t* t = dst + i * f.block_bytes;
        const float* p = in + i * 4;
        memset(t, 0, f.block_bytes);
        for (int c = 0; c < 4; ++c) {
            if (!f.ch[c].bits) continue;
            float v = p[c];
            // Rec. 709 luma for luminance formats.
            if (c == 0 && lum) v = 0.2126f * p[0] + 0.7152f * p[1] + 0.0722f * p[2];
            write_channel(t, f.ch[c], v);
        }
        if ((f.flags & fmtflag::bluescreen) && p[3] < 0.5f) {
            if (id == FMT_R8G8B8_BLUESCREEN) {
                t[0] = 0;
                t[1] = 0;
                t[2] = 255;
            } else {
                t[0] = 255;
                t[1] = 0;
                t[2] = 0;
            }
        }
    }
}

void encode_packed(uint32_t id, const float* in, uint32_t w, uint32_t h, uint8_t* dst) {
    const uint64_t pitch = row_pitch(id, w);
    auto q = [](float v) { return uint8_t(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f)); };
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; x += 2) {
            const float* a = in + (uint64_t(y) * w + x) * 4;
            const float* b = x + 1 < w ? a + 4 : a;
            uint8_t* p = dst + y * pitch + (x / 2) * 4;
            if (id == FMT_YUY2) {
                auto Y = [](const float* c) {
                    return 16.0f + 255.0f * (0.257f * c[0] + 0.504f * c[1] + 0.098f * c[2]);
                };
                float r = (a[0] + b[0]) / 2, g = (a[1] + b[1]) / 2, bl = (a[2] + b[2]) / 2;
                float U = 128.0f + 255.0f * (-0.148f * r - 0.291f * g + 0.439f * bl);
                float V = 128.0f + 255.0f * (0.439f * r - 0.368f * g - 0.071f * bl);
                p[0] = q(Y(a) / 255.0f);
                p[1] = q(U / 255.0f);
                p[2] = q(Y(b) / 255.0f);
                p[3] = q(V / 255.0f);
            } else if (id == FMT_R8G8_B8G8_UNORM) {
                p[0] = q((a[0] + b[0]) / 2);
                p[1] = q(a[1]);
                p[2] = q((a[2] + b[2]) / 2);
                p[3] = q(b[1]);
            } else {
                p[0] = q(a[1]);
                p[1] = q((a[0] + b[0]) / 2);
                p[2] = q(b[1]);
                p[3] = q((a[2] + b[2]) / 2);
            }
        }
}

void encode_special(const FormatInfo& f, uint32_t id, const float* in, uint64_t n, uint8_t* dst) {
    if (id == FMT_R11G11B10_FLOAT) {
        for (uint64_t i = 0; i < n; ++i) {
            const float* p = in + i * 4;
            uint32_t v = float_to_ufloat(p[0], 6) | float_to_ufloat(p[1], 6) << 11 | float_to_ufloat(p[2], 5) << 22;
            memcpy(dst + i * 4, &v, 4);
        }
        return;
    }
    if (id == FMT_R9G9B9E5_SHAREDEXP) {
        for (uint64_t i = 0; i < n; ++i) {
            const float* p = in + i * 4;
            float r = std::clamp(p[0], 0.0f, 65408.0f), g = std::clamp(p[1], 0.0f, 65408.0f),
                  b = std::clamp(p[2], 0.0f, 65408.0f);
            float mx = std::max({r, g, b});
            int e = 0;
            if (mx > 0) {
                std::frexp(mx, &e);
            }
            int exp = std::max(-16, e - 1) + 16; // biased shared exponent
            float scale = std::ldexp(1.0f, exp - 15 - 9);
            if (std::lround(mx / scale) == 512) {
                ++exp;
                scale *= 2;
            }
            exp = std::clamp(exp, 0, 31);
            auto m = [&](float v) { return uint32_t(std::min<long>(511, std::lround(v / scale))); };
            uint32_t v = m(r) | m(g) << 9 | m(b) << 18 | uint32_t(exp) << 27;
            memcpy(dst + i * 4, &v, 4);
        }
        return;
    }
    unsupported(format("writing %s", std::string(f.name).c_str()));
}

} // namespace

void decode_texels(uint32_t id, const uint8_t* src, uint64_t src_size, uint32_t w, uint32_t h, float* out,
                   const uint8_t* palette) {
    const FormatInfo& f = need_format(id);
    if (surface_bytes(id, w, h) > src_size)
        sdk::invalid(src_size, format("%s surface %ux%u needs %llu bytes, have %llu", std::string(f.name).c_str(), w, h,
                                      (unsigned long long)surface_bytes(id, w, h), (unsigned long long)src_size));
    const uint64_t n = uint64_t(w) * h;
    switch (f.layout) {
    case Layout::Plain:
        return decode_plain(f, id, src, n, out);
    case Layout::Palette:
        return decode_palette(src, n, out, palette);
    case Layout::Packed422:
        return decode_packed(id, src, w, h, out);
    case Layout::Special:
        return decode_special(f, id, src, w, h, out);
    case Layout::Block4x4:
        unsupported(format("%s is block-compressed: decode it through a codec", std::string(f.name).c_str()));
    }
}

void encode_texels(uint32_t id, const float* in, uint32_t w, uint32_t h, uint8_t* dst, uint64_t dst_size) {
    const FormatInfo& f = need_format(id);
    if (surface_bytes(id, w, h) > dst_size) sdk::fail(AF_ERR_INTERNAL, AF_NO_OFFSET, "destination too small");
    const uint64_t n = uint64_t(w) * h;
    switch (f.layout) {
    case Layout::Plain:
        return encode_plain(f, id, in, n, dst);
    case Layout::Palette:
        unsupported("writing P8 needs a palette: quantize with the XTF plugin's P8 writer");
    case Layout::Packed422:
        return encode_packed(id, in, w, h, dst);
    case Layout::Special:
        return encode_special(f, id, in, n, dst);
    case Layout::Block4x4:
        unsupported(format("%s is block-compressed: encode it through a codec", std::string(f.name).c_str()));
    }
}

namespace {
bool fits_rgba8(const FormatInfo& f) {
    if (f.layout == Layout::Palette || f.layout == Layout::Packed422) return true;
    if (f.layout != Layout::Plain) return false;
    for (const auto& c : f.ch)
        if (c.bits && (c.bits > 8 || (c.type != ChannelType::Unorm && c.type != ChannelType::Typeless))) return false;
    return true;
}
} // namespace

Texture surface_to_image(uint32_t id, const uint8_t* src, uint64_t src_size, uint32_t w, uint32_t h,
                         const uint8_t* palette) {
    const FormatInfo& f = need_format(id);
    // RGBA8 is the picture's own layout: a copy, not a trip through 16 bytes of
    // float per texel (256 MB for a 4096² surface).
    if (with_srgb(id, false) == FMT_R8G8B8A8_UNORM) {
        const uint64_t n = uint64_t(w) * h * 4;
        if (src_size < n)
            sdk::fail(AF_ERR_INVALID_DATA, src_size,
                      sdk::format("surface holds %llu bytes, %ux%u RGBA8 needs %llu", (unsigned long long)src_size, w,
                                  h, (unsigned long long)n));
        Texture img = rgba8_picture(w, h, f.srgb());
        std::memcpy(img.data.data(), src, n);
        return img;
    }
    Texture fimg = rgba32f_picture(w, h, f.srgb());
    decode_texels(id, src, src_size, w, h, floats(fimg).data(), palette);
    if (fits_rgba8(f)) return to_rgba8(fimg);
    return fimg;
}

void image_to_surface(const Texture& img, uint32_t id, uint8_t* dst, uint64_t dst_size) {
    if (!is_float(img) && with_srgb(id, false) == FMT_R8G8B8A8_UNORM && dst_size >= img.data.size()) {
        std::memcpy(dst, img.data.data(), img.data.size());
        return;
    }
    if (is_float(img)) {
        encode_texels(id, floats(img).data(), img.desc.width, img.desc.height, dst, dst_size);
    } else {
        Texture f = to_float(img);
        encode_texels(id, floats(f).data(), img.desc.width, img.desc.height, dst, dst_size);
    }
}

float srgb_to_linear(float v) {
    if (v <= 0.04045f) return v / 12.92f;
    return std::pow((v + 0.055f) / 1.055f, 2.4f);
}

float linear_to_srgb(float v) {
    if (v <= 0.0031308f) return v * 12.92f;
    return 1.055f * std::pow(v, 1.0f / 2.4f) - 0.055f;
}

} // namespace af
