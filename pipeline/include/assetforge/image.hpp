// Image: one uncompressed picture whose pixel type is chosen at run time,
// RGBA8 or RGBA32F. The host's image operations and plugins that keep a
// format's precision (8-bit data as bytes, anything wider as floats) use the
// same type and the same byte ⇄ float rules, so a level a plugin makes rounds
// as the host's own would. Pixels<T> (pixels.hpp) is the same picture with
// its type fixed at compile time; image_of and rgba8_pixels/rgba32f_pixels
// move between the two.
#pragma once

#include "assetforge/image_view.hpp"
#include "assetforge/pixels.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace af::sdk {

enum class PixelType : uint8_t { RGBA8, RGBA32F };

struct Image {
    uint32_t width = 0, height = 0;
    PixelType type = PixelType::RGBA8;
    bool srgb = false;          // the stored colour values are sRGB encoded
    std::vector<uint8_t> rgba8; // width*height*4 when type == RGBA8
    std::vector<float> rgba32f; // width*height*4 when type == RGBA32F

    static Image make8(uint32_t w, uint32_t h, bool srgb = false) {
        Image i;
        i.width = w;
        i.height = h;
        i.type = PixelType::RGBA8;
        i.srgb = srgb;
        i.rgba8.assign(size_t(w) * h * 4, 0);
        return i;
    }
    static Image makef(uint32_t w, uint32_t h, bool srgb = false) {
        Image i;
        i.width = w;
        i.height = h;
        i.type = PixelType::RGBA32F;
        i.srgb = srgb;
        i.rgba32f.assign(size_t(w) * h * 4, 0.0f);
        return i;
    }
    size_t texels() const { return size_t(width) * height; }
    bool is_float() const { return type == PixelType::RGBA32F; }
    uint32_t format() const {
        if (is_float()) return FMT_R32G32B32A32_FLOAT;
        return srgb ? FMT_R8G8B8A8_UNORM_SRGB : FMT_R8G8B8A8_UNORM;
    }
    // A view for ABI calls; the image must outlive it.
    af_surface surface() const {
        uint8_t* bytes = is_float() ? reinterpret_cast<uint8_t*>(const_cast<float*>(rgba32f.data()))
                                    : const_cast<uint8_t*>(rgba8.data());
        return {format(), width, height, 1, bytes, is_float() ? rgba32f.size() * sizeof(float) : rgba8.size()};
    }
};

// The picture as a view of its own bytes (no copy): the image must outlive it.
inline ImageView view_of(const Image& img) { return ImageView::of(img.surface()); }

// RGBA8 → RGBA32F (x / 255) and back (NaN → 0, clamped to 0..1, rounded half
// away from zero); the sRGB flag is carried unchanged.
inline Image to_float(const Image& in) {
    if (in.is_float()) return in;
    Image out = Image::makef(in.width, in.height, in.srgb);
    for (size_t i = 0; i < in.rgba8.size(); ++i) out.rgba32f[i] = in.rgba8[i] * (1.0f / 255.0f);
    return out;
}

inline Image to_rgba8(const Image& in) {
    if (!in.is_float()) return in;
    Image out = Image::make8(in.width, in.height, in.srgb);
    for (size_t i = 0; i < in.rgba32f.size(); ++i) {
        float v = in.rgba32f[i];
        v = std::isnan(v) ? 0.0f : std::clamp(v, 0.0f, 1.0f);
        out.rgba8[i] = uint8_t(std::lround(v * 255.0f));
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
inline bool has_translucency(const Image& img) {
    if (img.is_float()) {
        for (size_t i = 3; i < img.rgba32f.size(); i += 4)
            if (img.rgba32f[i] < 1.0f) return true;
        return false;
    }
    for (size_t i = 3; i < img.rgba8.size(); i += 4)
        if (img.rgba8[i] < 255) return true;
    return false;
}

// Typed pixels → Image; the buffer moves, nothing is converted.
inline Image image_of(Rgba8&& px) {
    Image i;
    i.width = px.width;
    i.height = px.height;
    i.type = PixelType::RGBA8;
    i.srgb = px.srgb;
    i.rgba8 = std::move(px.data);
    return i;
}
inline Image image_of(Rgba32f&& px) {
    Image i;
    i.width = px.width;
    i.height = px.height;
    i.type = PixelType::RGBA32F;
    i.srgb = px.srgb;
    i.rgba32f = std::move(px.data);
    return i;
}

// Image → typed pixels, converted by the rules above when the type differs.
inline Rgba8 rgba8_pixels(Image in) {
    if (in.is_float()) in = to_rgba8(in);
    Rgba8 px;
    px.width = in.width;
    px.height = in.height;
    px.srgb = in.srgb;
    px.data = std::move(in.rgba8);
    return px;
}
inline Rgba32f rgba32f_pixels(Image in) {
    if (!in.is_float()) in = to_float(in);
    Rgba32f px;
    px.width = in.width;
    px.height = in.height;
    px.srgb = in.srgb;
    px.data = std::move(in.rgba32f);
    return px;
}

} // namespace af::sdk
