// Uncompressed RGBA pixels of any surface, through the host's convert service:
// a plugin reads or writes a BC7, R10G10B10A2 or B5G6R5 surface as RGBA8 or
// RGBA32F without a decoder of its own (compressed formats go through the
// codec plugins the host has loaded).
//
//   af::sdk::Rgba8 px = af::sdk::get_rgba8(host, surface);      // any format → RGBA8
//   ...edit px.data...
//   af::sdk::put_pixels(host, px, out_surface);                  // RGBA8 → out_surface.format
#pragma once

#include "assetforge/error.hpp"
#include "assetforge/formats.hpp"
#include "assetforge/plugin_abi.h"

#include <cstdint>
#include <type_traits>
#include <vector>

namespace af::sdk {

// width × height texels, 4 channels each, rows top to bottom. uint8_t:
// R8G8B8A8_UNORM (or _SRGB when srgb); float: R32G32B32A32_FLOAT holding the
// stored values (sRGB encoded when srgb), as the host's convert produces them.
template <class T> struct Pixels {
    static_assert(std::is_same_v<T, uint8_t> || std::is_same_v<T, float>, "RGBA8 or RGBA32F");
    uint32_t width = 0, height = 0;
    bool srgb = false;
    std::vector<T> data;

    Pixels() = default;
    Pixels(uint32_t w, uint32_t h, bool is_srgb = false)
        : width(w), height(h), srgb(is_srgb), data(size_t(w) * h * 4, T(0)) {}

    uint32_t format() const {
        if constexpr (std::is_same_v<T, float>) return FMT_R32G32B32A32_FLOAT;
        return srgb ? FMT_R8G8B8A8_UNORM_SRGB : FMT_R8G8B8A8_UNORM;
    }
    size_t texels() const { return size_t(width) * height; }
    T* at(uint32_t x, uint32_t y) { return data.data() + (size_t(y) * width + x) * 4; }
    const T* at(uint32_t x, uint32_t y) const { return data.data() + (size_t(y) * width + x) * 4; }
    // A view for ABI calls; the pixels must outlive it.
    af_surface surface() const {
        return {format(),
                width,
                height,
                1,
                reinterpret_cast<uint8_t*>(const_cast<T*>(data.data())),
                data.size() * sizeof(T)};
    }
};

using Rgba8 = Pixels<uint8_t>;
using Rgba32f = Pixels<float>;

// Fails with the host's status and message; `what` says which call, for the message.
inline void check_host_call(af_status st, const af_error& e, const char* what) {
    if (st != AF_OK) fail(st, e.offset, format("%s: %s", what, e.message[0] ? e.message : "failed without a message"));
}

// Any 2-D surface → pixels. RGBA8 output of an _SRGB source is tagged srgb.
template <class T>
Pixels<T> get_pixels(const af_host* host, const af_surface& src, const af_options* options = nullptr) {
    if (!host || !host->convert) unsupported("reading pixels needs the host's convert service");
    if (src.depth > 1) usage("get_pixels: one 2-D surface at a time (depth > 1)");
    const FormatInfo* f = format_info(src.format);
    Pixels<T> out(src.width, src.height, f && f->srgb());
    af_surface dst = out.surface();
    af_error e{};
    check_host_call(host->convert(&src, &dst, options, &e), e, "converting to RGBA");
    return out;
}
inline Rgba8 get_rgba8(const af_host* host, const af_surface& src, const af_options* options = nullptr) {
    return get_pixels<uint8_t>(host, src, options);
}
inline Rgba32f get_rgba32f(const af_host* host, const af_surface& src, const af_options* options = nullptr) {
    return get_pixels<float>(host, src, options);
}

// Pixels → dst (its format, size and buffer set by the caller; sizes must match).
// options reach the codec when dst is compressed ("quality" = "high").
template <class T>
void put_pixels(const af_host* host, const Pixels<T>& px, af_surface& dst, const af_options* options = nullptr) {
    if (!host || !host->convert) unsupported("writing pixels needs the host's convert service");
    if (dst.width != px.width || dst.height != px.height || dst.depth > 1)
        usage(format("put_pixels: %ux%u pixels into a %ux%ux%u surface", px.width, px.height, dst.width, dst.height,
                     dst.depth));
    const af_surface src = px.surface();
    af_error e{};
    check_host_call(host->convert(&src, &dst, options, &e), e, "converting from RGBA");
}

} // namespace af::sdk
