// Between a stored Image (8-bit or float, sRGB or linear, straight alpha,
// 0..1 encoded normals) and the float plane filters run on (linear light,
// premultiplied where it matters, normals as -1..1 vectors).
#include "core/image_ops_internal.hpp"

#include "assetforge/plugin.hpp"
#include "core/pixel_convert.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <limits>
#include <string>

namespace af::image_ops {

namespace {

const std::array<float, 256>& srgb8_table() {
    static const std::array<float, 256> t = [] {
        std::array<float, 256> a{};
        for (int i = 0; i < 256; ++i) a[i] = srgb_to_linear(float(i) / 255.0f);
        return a;
    }();
    return t;
}

// thresholds[k]: the linear value at which the sRGB code goes from k to k + 1.
const std::array<float, 255>& srgb8_thresholds() {
    static const std::array<float, 255> t = [] {
        std::array<float, 255> a{};
        for (int k = 0; k < 255; ++k) a[k] = float(srgb_to_linear(float((k + 0.5) / 255.0)));
        return a;
    }();
    return t;
}

bool blue_is_zero(const Texture& img) {
    if (is_float(img)) {
        for (size_t i = 2; i < floats(img).size(); i += 4)
            if (floats(img)[i] != 0.0f) return false;
    } else {
        for (size_t i = 2; i < img.data.size(); i += 4)
            if (img.data[i] != 0) return false;
    }
    return true;
}

// Code at the start of each of kBuckets equal slices of 0..1 in linear light:
// a starting point from which the exact code is at most a step or two away
// (the sRGB curve is steepest at 0, 3294 codes per unit, < 1 code per slice).
constexpr int kBuckets = 4096;
struct EncodeTable {
    std::array<float, 256> thresholds; // 255 real ones, then +inf as a sentinel
    std::array<uint8_t, kBuckets + 1> start;
};

const EncodeTable& encode_table() {
    static const EncodeTable t = [] {
        EncodeTable e{};
        const auto& th = srgb8_thresholds();
        std::copy(th.begin(), th.end(), e.thresholds.begin());
        e.thresholds[255] = std::numeric_limits<float>::infinity();
        for (int b = 0; b <= kBuckets; ++b) {
            const float v = float(b) / kBuckets;
            e.start[b] = uint8_t(std::upper_bound(th.begin(), th.end(), v) - th.begin());
        }
        return e;
    }();
    return t;
}

} // namespace

float srgb8_to_linear(uint8_t v) { return srgb8_table()[v]; }

uint8_t linear_to_srgb8(float v) {
    if (!(v > 0.0f)) return 0; // also NaN
    if (v >= 1.0f) return 255;
    const EncodeTable& e = encode_table();
    unsigned code = e.start[int(v * kBuckets)];
    while (v >= e.thresholds[code]) ++code; // sentinel stops at 255
    return uint8_t(code);
}

void check_image(const Texture& img, const char* what) {
    size_t have = is_float(img) ? floats(img).size() : img.data.size();
    if (have != texels(img) * 4)
        sdk::fail(AF_ERR_INVALID_DATA, AF_NO_OFFSET,
                  sdk::format("%s: image of %ux%u holds %zu values, expected %zu", what, img.desc.width,
                              img.desc.height, have, texels(img) * 4));
}

void check_target_size(uint32_t w, uint32_t h, const char* what) {
    if (w == 0 || h == 0) sdk::usage(sdk::format("%s: size %ux%u is empty", what, w, h));
    if (uint64_t(w) * h > kMaxImageTexels)
        sdk::usage(sdk::format("%s: size %ux%u exceeds the limit of %llu texels", what, w, h,
                               (unsigned long long)kMaxImageTexels));
}

unsigned channel_mask(std::string_view channels, const char* what) {
    // r g b a, or x y z w as normal-map users call them.
    constexpr std::string_view kColour = "rgba", kVector = "xyzw";
    unsigned mask = 0;
    for (char c : channels) {
        const char lc = char(std::tolower(static_cast<unsigned char>(c)));
        size_t at = kColour.find(lc);
        if (at == std::string_view::npos) at = kVector.find(lc);
        if (at == std::string_view::npos)
            sdk::usage(sdk::format("%s: '%.*s' is not a channel list (letters from r, g, b, a)", what,
                                   int(channels.size()), channels.data()));
        mask |= 1u << at;
    }
    if (!mask) sdk::usage(std::string(what) + ": no channel named");
    return mask;
}

WorkSpace working_space_for(const Texture& img, const ResizeOptions& opt, bool normal_map) {
    WorkSpace ws;
    ws.normal = normal_map;
    ws.normal_two_channel = normal_map && blue_is_zero(img);
    ws.linearise = !normal_map && is_srgb(img.desc) && opt.linear_light;
    ws.premultiplied = !normal_map && opt.premultiply_alpha && has_translucency(img);
    return ws;
}

void working_row(const Texture& img, const WorkSpace& ws, uint32_t y, float* d) {
    const uint32_t channels = ws.premultiplied ? 8 : 4;
    const float* lut = ws.linearise && !is_float(img) ? srgb8_table().data() : nullptr;
    const size_t base = size_t(y) * img.desc.width * 4;
    for (uint32_t x = 0; x < img.desc.width; ++x) {
        const size_t i = base + size_t(x) * 4;
        float c[4];
        for (int k = 0; k < 4; ++k) c[k] = load_channel(img, i + k);
        if (lut) {
            for (int k = 0; k < 3; ++k) c[k] = lut[img.data[i + k]];
        } else if (ws.linearise) {
            for (int k = 0; k < 3; ++k) c[k] = srgb_to_linear(c[k]);
        }
        if (ws.normal) {
            for (int k = 0; k < 3; ++k) c[k] = c[k] * 2.0f - 1.0f;
            if (ws.normal_two_channel) c[2] = std::sqrt(std::max(0.0f, 1.0f - c[0] * c[0] - c[1] * c[1]));
        }
        float* t = d + size_t(x) * channels;
        if (ws.premultiplied) {
            for (int k = 0; k < 3; ++k) {
                t[4 + k] = c[k];
                c[k] *= c[3];
            }
            t[7] = 0.0f; // unused, but filtered: keep it a plain number
        }
        for (int k = 0; k < 4; ++k) t[k] = c[k];
    }
}

WorkPlane to_working(const Texture& img, const WorkSpace& ws) {
    WorkPlane p(img.desc.width, img.desc.height, ws.premultiplied ? 8 : 4);
    for_each_row(img.desc.height, img.desc.width, [&](uint32_t y) { working_row(img, ws, y, p.row(y)); });
    return p;
}

void renormalize_in_place(WorkPlane& plane) {
    for_each_row(plane.height, plane.width, [&](uint32_t y) {
        float* d = plane.row(y);
        for (uint32_t x = 0; x < plane.width; ++x) {
            float* n = d + size_t(x) * plane.channels;
            float len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
            if (len > 1e-6f) {
                n[0] /= len;
                n[1] /= len;
                n[2] /= len;
            } else {
                n[0] = n[1] = 0.0f;
                n[2] = 1.0f;
            }
        }
    });
}

Texture from_working(const WorkPlane& plane, const WorkSpace& ws, float alpha_scale, bool as_float, bool srgb_tag) {
    Texture out = as_float ? rgba32f_picture(plane.width, plane.height, srgb_tag)
                           : rgba8_picture(plane.width, plane.height, srgb_tag);
    const bool bytes = !as_float;
    uint8_t* const out8 = out.data.data();
    float* const outf = floats(out).data();
    for_each_row(plane.height, plane.width, [&](uint32_t y) {
        const float* s = plane.row(y);
        const size_t base = size_t(y) * plane.width * 4;
        for (uint32_t x = 0; x < plane.width; ++x) {
            const float* t = s + size_t(x) * plane.channels;
            float c[4] = {t[0], t[1], t[2], t[3]};
            if (ws.premultiplied) {
                // Where alpha is below one 8-bit step the premultiplied colour
                // is mostly the filter's noise: fade to the unweighted colour,
                // so transparent texels keep their neighbourhood's colour
                // (no dark fringes under bilinear sampling).
                constexpr float kFade = 1.0f / 255.0f;
                const float inv = c[3] > 1e-8f ? 1.0f / c[3] : 0.0f;
                const float f = std::clamp(c[3] / kFade, 0.0f, 1.0f);
                for (int k = 0; k < 3; ++k) c[k] = f * (c[k] * inv) + (1.0f - f) * t[4 + k];
            }
            c[3] = std::clamp(c[3] * alpha_scale, 0.0f, 1.0f);
            if (std::isnan(c[3])) c[3] = 0.0f;
            if (ws.normal)
                for (int k = 0; k < 3; ++k) c[k] = c[k] * 0.5f + 0.5f;
            const size_t i = base + size_t(x) * 4;
            if (bytes) {
                for (int k = 0; k < 3; ++k) out8[i + k] = ws.linearise ? linear_to_srgb8(c[k]) : to_unorm8(c[k]);
                out8[i + 3] = to_unorm8(c[3]);
            } else {
                for (int k = 0; k < 3; ++k) outf[i + k] = ws.linearise ? linear_to_srgb(std::max(c[k], 0.0f)) : c[k];
                outf[i + 3] = c[3];
            }
        }
    });
    return out;
}

} // namespace af::image_ops
