#include "texture/information_loss.hpp"

#include "assetforge/format_channels.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>

namespace af::texture {
// Bits of precision per colour channel: 16 for BC6H and 16/32-bit formats,
// 8 for the other block formats (their endpoints and weights decode to 8
// bits), the widest channel for plain formats.
unsigned precision(const FormatInfo& f) {
    if (f.compressed()) return (f.flags & fmtflag::hdr) ? 16 : 8;
    unsigned bits = 0;
    for (int i = 0; i < 3; ++i) bits = std::max<unsigned>(bits, f.ch[i].bits);
    return bits ? bits : f.ch[3].bits;
}

namespace {

bool is_bc1(const FormatInfo& f) {
    const uint32_t id = with_srgb(f.id, false);
    return id >= FMT_BC1_TYPELESS && id <= FMT_BC1_UNORM;
}

} // namespace

std::vector<std::string> information_lost(const Content& c, const FormatInfo* from, const FormatInfo& to,
                                          bool normal_map) {
    std::vector<std::string> out;
    const std::string name(to.name);
    const char* kind = c.alpha == AlphaKind::Smooth ? "smooth" : "cut-out";
    if (c.alpha != AlphaKind::Opaque && !to.has_alpha())
        out.push_back("alpha dropped: the source's " + std::string(kind) + " alpha is not all 255 and " + name +
                      " has no alpha channel");
    else if (c.alpha == AlphaKind::Smooth && is_bc1(to))
        out.push_back("alpha reduced to one bit: the source's alpha has values between 0 and 255 and " + name +
                      " keeps only cut-out alpha (0 or 255)");
    const int channels = std::popcount(stored_colour(to));
    if (channels == 2 && !normal_map && !c.vectors.two_channel)
        out.push_back("blue dropped: " + name + " stores red and green only (not a normal map, whose blue the " +
                      "shader rebuilds)");
    if (channels == 1 && !c.grey) out.push_back("green and blue dropped: " + name + " stores red only");
    if (c.above_one && !(to.flags & fmtflag::hdr))
        out.push_back("values above 1 clipped: " + name + " stores 0..1 only");
    const unsigned have = from ? precision(*from) : 8, keep = precision(to);
    if (keep < have && keep < 16)
        out.push_back("bit depth: " + std::to_string(have) + "-bit channels stored in " + std::to_string(keep) +
                      " bits (" + name + ")");
    return out;
}

std::string values_clipped(const std::vector<ImageView>& surfaces, std::string_view stored_as) {
    uint64_t above = 0, below = 0;
    float hi = 1.0f, lo = 0.0f;
    for (const ImageView& s : surfaces) {
        const float* f = s.f32();
        if (!f) continue;
        for (size_t i = 0; i < s.texels(); ++i) {
            const float* p = f + i * 4;
            const float top = std::max({p[0], p[1], p[2]}), bottom = std::min({p[0], p[1], p[2]});
            above += top > 1.0f, below += bottom < 0.0f;
            hi = std::max(hi, top), lo = std::min(lo, bottom);
        }
    }
    if (!above && !below) return "";
    char buf[200];
    std::string out;
    if (above)
        std::snprintf(buf, sizeof buf, "values above 1.0 clipped: %llu texels, max %.4g", (unsigned long long)above,
                      hi),
            out = buf;
    if (below) {
        std::snprintf(buf, sizeof buf, "values below 0 clipped: %llu texels, min %.4g", (unsigned long long)below, lo);
        out += (out.empty() ? "" : "; ") + std::string(buf);
    }
    return out + " (" + std::string(stored_as) + " stores 0..1; write .exr to keep them)";
}

} // namespace af::texture
