// What a texture's alpha holds, by one rule for every `auto` format choice:
// the pipeline's (texture/content) and the XTF/VTF writers' (which see only
// the SDK). Header-only so a plugin compiles the same rule the host does,
// without a field in the plugin ABI to carry the host's answer.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace af {

enum class AlphaKind : uint8_t {
    Opaque, // every alpha is 255 (1.0)
    Cutout, // alpha is only 0 or 255: alpha-tested foliage, fences, decals
    Smooth, // anything in between: glass, smoke, soft edges
};

// Fed every alpha of the texels in question; kind() says what they hold.
// A float alpha counts as the byte it would be stored as (the formats `auto`
// picks between keep 8-bit alpha at most).
class AlphaSeen {
  public:
    void add(uint8_t a) {
        zero_ |= a == 0;
        partial_ |= a != 0 && a != 255;
    }
    void add(float a) {
        if (!std::isnan(a)) add(uint8_t(std::lround(std::clamp(a, 0.0f, 1.0f) * 255))); // NaN says nothing
    }
    // Nothing that follows can change the answer.
    bool settled() const { return partial_; }
    AlphaKind kind() const { return partial_ ? AlphaKind::Smooth : zero_ ? AlphaKind::Cutout : AlphaKind::Opaque; }

  private:
    bool zero_ = false, partial_ = false;
};

} // namespace af
