// Channel rearrangement, constant fill and inversion, on the stored values.
#include "core/image_ops_internal.hpp"

#include "assetforge/plugin.hpp"

#include <cctype>
#include <string>

namespace af {

namespace {

// Source of one output channel: 0..3 an input channel, 4 constant 0, 5 constant 1.
int swizzle_source(char c, std::string_view pattern) {
    constexpr std::string_view kSources = "rgba01";
    size_t at = kSources.find(char(std::tolower(static_cast<unsigned char>(c))));
    if (at == std::string_view::npos)
        sdk::usage(
            sdk::format("swizzle '%.*s': '%c' is not one of r, g, b, a, 0, 1", int(pattern.size()), pattern.data(), c));
    return int(at);
}

} // namespace

Texture swizzle_channels(const Texture& in, std::string_view pattern) {
    image_ops::check_image(in, "swizzle");
    if (pattern.size() != 4)
        sdk::usage(sdk::format("swizzle '%.*s': expected four characters from r, g, b, a, 0, 1 (e.g. \"bgra\")",
                               int(pattern.size()), pattern.data()));
    int src[4];
    for (int k = 0; k < 4; ++k) src[k] = swizzle_source(pattern[k], pattern);
    Texture out = in;
    const size_t n = texels(in);
    for (size_t t = 0; t < n; ++t) {
        for (int k = 0; k < 4; ++k) {
            const size_t o = t * 4 + k;
            if (is_float(in))
                floats(out)[o] = src[k] < 4 ? floats(in)[t * 4 + src[k]] : float(src[k] - 4);
            else
                out.data[o] = src[k] < 4 ? in.data[t * 4 + src[k]] : uint8_t(src[k] == 5 ? 255 : 0);
        }
    }
    return out;
}

Texture fill_channels(const Texture& in, std::string_view channels, float value) {
    image_ops::check_image(in, "fill");
    const unsigned mask = image_ops::channel_mask(channels, "fill");
    Texture out = in;
    const uint8_t v8 = image_ops::to_unorm8(value);
    for (size_t t = 0; t < texels(in); ++t)
        for (int k = 0; k < 4; ++k) {
            if (!(mask & (1u << k))) continue;
            if (is_float(in))
                floats(out)[t * 4 + k] = value;
            else
                out.data[t * 4 + k] = v8;
        }
    return out;
}

Texture invert_channels(const Texture& in, std::string_view channels) {
    image_ops::check_image(in, "invert");
    const unsigned mask = image_ops::channel_mask(channels, "invert");
    Texture out = in;
    for (size_t t = 0; t < texels(in); ++t)
        for (int k = 0; k < 4; ++k) {
            if (!(mask & (1u << k))) continue;
            if (is_float(in))
                floats(out)[t * 4 + k] = 1.0f - floats(in)[t * 4 + k];
            else
                out.data[t * 4 + k] = uint8_t(255 - in.data[t * 4 + k]);
        }
    return out;
}

Texture invert_normal_y(const Texture& in) { return invert_channels(in, "g"); }

} // namespace af
