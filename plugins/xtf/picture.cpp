#include "picture.hpp"

#include <algorithm>
#include <cmath>

namespace af::xtf {

sdk::Rgba32f to_rgba32f(const Picture& p) {
    if (const auto* f = std::get_if<sdk::Rgba32f>(&p)) return *f;
    const sdk::Rgba8& b = std::get<sdk::Rgba8>(p);
    sdk::Rgba32f out(b.width, b.height, b.srgb);
    for (size_t i = 0; i < b.data.size(); ++i) out.data[i] = b.data[i] * (1.0f / 255.0f);
    return out;
}

sdk::Rgba8 to_rgba8(const Picture& p) {
    if (const auto* b = std::get_if<sdk::Rgba8>(&p)) return *b;
    const sdk::Rgba32f& f = std::get<sdk::Rgba32f>(p);
    sdk::Rgba8 out(f.width, f.height, f.srgb);
    for (size_t i = 0; i < f.data.size(); ++i) {
        const float v = std::isnan(f.data[i]) ? 0.0f : std::clamp(f.data[i], 0.0f, 1.0f);
        out.data[i] = uint8_t(std::lround(v * 255.0f));
    }
    return out;
}

sdk::Rgba8 filtered_to_rgba8(const sdk::Rgba32f& f) {
    sdk::Rgba8 out(f.width, f.height, f.srgb);
    for (size_t i = 0; i < f.data.size(); ++i) {
        const float v = f.data[i];
        out.data[i] = !(v > 0.0f) ? 0 : v >= 1.0f ? 255 : uint8_t(v * 255.0f + 0.5f);
    }
    return out;
}

bool has_translucency(const Picture& p) {
    if (const auto* b = std::get_if<sdk::Rgba8>(&p)) {
        for (size_t i = 3; i < b->data.size(); i += 4)
            if (b->data[i] < 255) return true;
        return false;
    }
    const sdk::Rgba32f& f = std::get<sdk::Rgba32f>(p);
    for (size_t i = 3; i < f.data.size(); i += 4)
        if (f.data[i] < 1.0f) return true;
    return false;
}

} // namespace af::xtf
