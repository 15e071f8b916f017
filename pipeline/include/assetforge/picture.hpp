// Pictures: one uncompressed 2-D surface held in a Texture, RGBA8 or RGBA32F.
// They are what the image operations, PNG and the pixel services read and
// write. A picture is a Texture (the one owner of pixels) with one layer, one
// face and one level, so it needs no type of its own and reaches every layer
// and the ABI (Texture::surface(0, 0, 0).abi()) without a copy.
//
// Colour space: an RGBA8 picture of sRGB values has the _SRGB format; an
// RGBA32F one carries AF_TEX_SRGB (there is no sRGB float format). is_srgb()
// (texture.hpp) reads both.
#pragma once

#include "assetforge/texture.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>

namespace af {

inline Texture rgba8_picture(uint32_t width, uint32_t height, bool srgb = false) {
    TextureDesc d;
    d.format = srgb ? FMT_R8G8B8A8_UNORM_SRGB : FMT_R8G8B8A8_UNORM;
    d.width = width;
    d.height = height;
    return Texture(d);
}

inline Texture rgba32f_picture(uint32_t width, uint32_t height, bool srgb = false) {
    TextureDesc d;
    d.format = FMT_R32G32B32A32_FLOAT;
    d.width = width;
    d.height = height;
    d.flags = srgb ? AF_TEX_SRGB : 0;
    return Texture(d);
}

inline bool is_float(const Texture& t) { return t.desc.format == FMT_R32G32B32A32_FLOAT; }
inline bool is_picture(const Texture& t) {
    const uint32_t f = t.desc.format;
    const bool rgba = f == FMT_R32G32B32A32_FLOAT || f == FMT_R8G8B8A8_UNORM || f == FMT_R8G8B8A8_UNORM_SRGB;
    return rgba && t.desc.depth == 1 && t.desc.mips == 1 && t.desc.layers == 1 && t.desc.faces == 1;
}
inline size_t texels(const Texture& t) { return size_t(t.desc.width) * t.desc.height; }

// A new picture of the same pixel type and colour space, of any size.
inline Texture picture_like(const Texture& t, uint32_t width, uint32_t height) {
    return is_float(t) ? rgba32f_picture(width, height, is_srgb(t.desc))
                       : rgba8_picture(width, height, is_srgb(t.desc));
}

// The texels of an RGBA32F picture as floats (empty for any other format).
// The buffer comes from operator new, aligned for float.
inline std::span<float> floats(Texture& t) {
    if (!is_float(t)) return {};
    return {reinterpret_cast<float*>(t.data.data()), t.data.size() / sizeof(float)};
}
inline std::span<const float> floats(const Texture& t) {
    if (!is_float(t)) return {};
    return {reinterpret_cast<const float*>(t.data.data()), t.data.size() / sizeof(float)};
}

// Tags the stored values as sRGB encoded or not, without touching them.
inline void set_srgb(Texture& t, bool srgb) {
    if (is_float(t)) {
        t.desc.flags = srgb ? (t.desc.flags | AF_TEX_SRGB) : (t.desc.flags & ~uint32_t(AF_TEX_SRGB));
    } else if (t.desc.format == FMT_R8G8B8A8_UNORM || t.desc.format == FMT_R8G8B8A8_UNORM_SRGB) {
        t.desc.format = srgb ? FMT_R8G8B8A8_UNORM_SRGB : FMT_R8G8B8A8_UNORM;
        if (!srgb) t.desc.flags &= ~uint32_t(AF_TEX_SRGB);
    }
}

// RGBA8 → RGBA32F (x / 255) and back (NaN → 0, clamped to 0..1, rounded half
// away from zero); the colour space is carried unchanged.
inline Texture to_float(const Texture& in) {
    if (is_float(in)) return in;
    Texture out = rgba32f_picture(in.desc.width, in.desc.height, is_srgb(in.desc));
    std::span<float> f = floats(out);
    for (size_t i = 0; i < in.data.size(); ++i) f[i] = in.data[i] * (1.0f / 255.0f);
    return out;
}

inline Texture to_rgba8(const Texture& in) {
    if (!is_float(in)) return in;
    Texture out = rgba8_picture(in.desc.width, in.desc.height, is_srgb(in.desc));
    std::span<const float> f = floats(in);
    for (size_t i = 0; i < f.size(); ++i) {
        float v = f[i];
        v = std::isnan(v) ? 0.0f : std::clamp(v, 0.0f, 1.0f);
        out.data[i] = uint8_t(std::lround(v * 255.0f));
    }
    return out;
}

// A filtered level's float → byte as the host's resampling and mips store it
// (v · 255 + 0.5, truncated; NaN → 0): not to_rgba8's rounding, so a plugin
// that filters through the host and stores bytes itself matches it exactly.
inline uint8_t filtered_to_unorm8(float v) {
    if (!(v > 0.0f)) return 0;
    if (v >= 1.0f) return 255;
    return uint8_t(v * 255.0f + 0.5f);
}

// Whether any texel has alpha below one: what makes the host's filters weight
// colour by alpha (premultiply_alpha), decided the same way by a plugin.
inline bool has_translucency(const Texture& t) {
    if (is_float(t)) {
        std::span<const float> f = floats(t);
        for (size_t i = 3; i < f.size(); i += 4)
            if (f[i] < 1.0f) return true;
        return false;
    }
    for (size_t i = 3; i < t.data.size(); i += 4)
        if (t.data[i] < 255) return true;
    return false;
}

} // namespace af
