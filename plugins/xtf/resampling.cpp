#include "resampling.hpp"

#include "assetforge/resample.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <span>
#include <string>

namespace af::xtf {

uint32_t parse_filter(std::string_view name) {
    std::string n(name);
    for (char& c : n) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (n == "lanczos") n = "lanczos3"; // ImageMagick's name for the same kernel
    if (n == "tent" || n == "linear") n = "triangle";
    if (n == "nearest") n = "point";
    static constexpr std::pair<std::string_view, uint32_t> kFilters[] = {
        {"box", AF_FILTER_BOX},           {"triangle", AF_FILTER_TRIANGLE}, {"kaiser", AF_FILTER_KAISER},
        {"lanczos3", AF_FILTER_LANCZOS3}, {"mitchell", AF_FILTER_MITCHELL}, {"point", AF_FILTER_POINT},
    };
    for (const auto& [n2, f] : kFilters)
        if (n == n2) return f;
    sdk::usage("unknown filter '" + std::string(name) +
               "': expected one of box, triangle, kaiser, lanczos3, mitchell, point");
}

void require_resample(const af_host* host, const char* what) {
    if (!AF_HOST_HAS(host, resample))
        sdk::unsupported(sdk::format("%s needs a host with API 1.3 (af_host.resample); give the texture its full mip "
                                     "chain or write without mips",
                                     what));
}

namespace {

sdk::ResampleOptions options_of(const ResampleSettings& s, bool premultiply, bool srgb) {
    sdk::ResampleOptions o;
    o.filter = s.filter;
    o.edge = AF_EDGE_CLAMP;
    o.linear_light = s.linear_light;
    o.premultiply_alpha = premultiply;
    o.srgb = srgb;
    return o;
}

} // namespace

Texture resample(const af_host* host, const Texture& in, uint32_t width, uint32_t height, const ResampleSettings& s) {
    return sdk::resample(host, in, width, height, options_of(s, s.premultiply_alpha, is_srgb(in.desc)));
}

namespace {

// Float → byte as the host stores a filtered level (v · 255 + 0.5, truncated),
// which is not to_rgba8's rounding.
Texture filtered_to_rgba8(const Texture& f) {
    Texture out = rgba8_picture(f.desc.width, f.desc.height, is_srgb(f.desc));
    const std::span<const float> in = floats(f);
    for (size_t i = 0; i < in.size(); ++i) out.data[i] = filtered_to_unorm8(in[i]);
    return out;
}

// The float plane the host's mips step carries from level to level: colour
// (alpha-weighted when premultiplied), alpha, and the unweighted colour the
// step fades to where alpha vanishes. Each group of three goes through the
// host as the colour of an RGBA32F picture with constant alpha, so nothing
// between levels is clamped or re-weighted: the same numbers the step keeps.
struct Plane {
    uint32_t width = 0, height = 0;
    std::vector<Texture> groups; // weighted colour, alpha (red), [unweighted colour]
};

Plane plane_of(const Texture& top, bool premultiplied) {
    Plane p{top.desc.width, top.desc.height, {}};
    p.groups.assign(premultiplied ? 3 : 2, rgba32f_picture(top.desc.width, top.desc.height));
    const std::span<const float> px = floats(top);
    const std::span<float> weighted = floats(p.groups[0]), alpha = floats(p.groups[1]);
    const std::span<float> unweighted = premultiplied ? floats(p.groups[2]) : std::span<float>();
    for (size_t i = 0; i < texels(top); ++i) {
        const float* c = &px[i * 4];
        float* w = &weighted[i * 4];
        float* a = &alpha[i * 4];
        for (int k = 0; k < 3; ++k) w[k] = premultiplied ? c[k] * c[3] : c[k];
        a[0] = c[3];
        w[3] = a[3] = 1.0f;
        if (premultiplied) {
            float* u = &unweighted[i * 4];
            for (int k = 0; k < 3; ++k) u[k] = c[k];
            u[3] = 1.0f;
        }
    }
    return p;
}

// Colour and alpha of a plane as the step stores a level (float: the values).
Texture stored(const Plane& p, bool srgb) {
    const bool premultiplied = p.groups.size() == 3;
    Texture out = rgba32f_picture(p.width, p.height, srgb);
    const std::span<const float> weighted = floats(p.groups[0]), alpha = floats(p.groups[1]);
    const std::span<const float> unweighted = premultiplied ? floats(p.groups[2]) : std::span<const float>();
    const std::span<float> px = floats(out);
    for (size_t i = 0; i < texels(out); ++i) {
        const float* w = &weighted[i * 4];
        const float a = alpha[i * 4];
        float* o = &px[i * 4];
        if (premultiplied) {
            // Below one 8-bit step of alpha the weighted colour is noise: fade to the unweighted one.
            const float* u = &unweighted[i * 4];
            constexpr float kFade = 1.0f / 255.0f;
            const float inv = a > 1e-8f ? 1.0f / a : 0.0f;
            const float f = std::clamp(a / kFade, 0.0f, 1.0f);
            for (int k = 0; k < 3; ++k) o[k] = f * (w[k] * inv) + (1.0f - f) * u[k];
        } else {
            for (int k = 0; k < 3; ++k) o[k] = w[k];
        }
        o[3] = std::isnan(a) ? 0.0f : std::clamp(a, 0.0f, 1.0f);
    }
    return out;
}

} // namespace

std::vector<Texture> mip_chain(const af_host* host, Texture top, uint32_t count, const ResampleSettings& s) {
    std::vector<Texture> out;
    out.reserve(count);
    if (count <= 1) {
        out.push_back(std::move(top));
        return out;
    }
    require_resample(host, "making mip levels");
    // Alpha weighting is decided once, from the top level, as the mips step does.
    const bool premultiply = s.premultiply_alpha && has_translucency(top);
    const bool bytes = !is_float(top);
    const bool srgb = is_srgb(top.desc);
    uint32_t w = top.desc.width, h = top.desc.height;
    if (s.linear_light && srgb) {
        // Linear light: the host filters each level from the stored values of
        // the one before (the plane's linear values are not reachable here).
        const sdk::ResampleOptions o = options_of(s, premultiply, srgb);
        Texture cur = to_float(top);
        out.push_back(std::move(top));
        for (uint32_t level = 1; level < count; ++level) {
            w = std::max(1u, w / 2);
            h = std::max(1u, h / 2);
            cur = sdk::resample(host, cur, w, h, o);
            if (bytes)
                out.push_back(filtered_to_rgba8(cur));
            else
                out.push_back(cur);
        }
        return out;
    }
    const sdk::ResampleOptions o = options_of(s, false, false);
    Plane plane = plane_of(to_float(top), premultiply);
    out.push_back(std::move(top));
    for (uint32_t level = 1; level < count; ++level) {
        w = std::max(1u, w / 2);
        h = std::max(1u, h / 2);
        for (auto& g : plane.groups) g = sdk::resample(host, g, w, h, o);
        plane.width = w;
        plane.height = h;
        Texture level_px = stored(plane, srgb);
        if (bytes)
            out.push_back(filtered_to_rgba8(level_px));
        else
            out.push_back(std::move(level_px));
    }
    return out;
}

} // namespace af::xtf
