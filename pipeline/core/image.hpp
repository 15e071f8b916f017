// Image: one uncompressed surface for processing, RGBA8 or RGBA32F.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace af {

enum class PixelType : uint8_t { RGBA8, RGBA32F };

struct Image {
    uint32_t width = 0, height = 0;
    PixelType type = PixelType::RGBA8;
    bool srgb = false;          // the stored colour values are sRGB encoded
    std::vector<uint8_t> rgba8; // width*height*4 when type == RGBA8
    std::vector<float> rgba32f; // width*height*4 when type == RGBA32F

    static Image make8(uint32_t w, uint32_t h, bool srgb = false) {
        Image i;
        i.width = w; i.height = h; i.type = PixelType::RGBA8; i.srgb = srgb;
        i.rgba8.assign(size_t(w) * h * 4, 0);
        return i;
    }
    static Image makef(uint32_t w, uint32_t h, bool srgb = false) {
        Image i;
        i.width = w; i.height = h; i.type = PixelType::RGBA32F; i.srgb = srgb;
        i.rgba32f.assign(size_t(w) * h * 4, 0.0f);
        return i;
    }
    size_t texels() const { return size_t(width) * height; }
    bool is_float() const { return type == PixelType::RGBA32F; }
};

// RGBA8 → RGBA32F (0..1) and back (rounded, clamped); sRGB flag carried unchanged.
Image to_float(const Image& in);
Image to_rgba8(const Image& in);

} // namespace af
