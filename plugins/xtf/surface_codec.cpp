#include "surface_codec.hpp"

#include "assetforge/plugin.hpp"

#include <cstring>
#include <optional>
#include <span>

namespace af::xtf {

namespace {

// Formats whose channels are whole unsigned bytes (RGBA8888, BGRA8888,
// BGRX8888, RGB888, ABGR8888, …): converting to or from RGBA8 is a byte
// shuffle, far cheaper than the host's general float path and bit-identical
// to it (an 8-bit unorm value survives /255 and ×255 with rounding).
struct ByteLayout {
    uint32_t bytes;
    int pos[4]; // byte of R, G, B, A in a texel; -1 when absent
};

std::optional<ByteLayout> byte_layout(const FormatInfo* fi) {
    if (fi->layout != Layout::Plain || (fi->flags & (fmtflag::luminance | fmtflag::bluescreen | fmtflag::typeless)))
        return std::nullopt;
    ByteLayout b{fi->block_bytes, {-1, -1, -1, -1}};
    for (int c = 0; c < 4; ++c) {
        const Channel& ch = fi->ch[c];
        if (ch.type == ChannelType::None) continue;
        if (ch.type != ChannelType::Unorm || ch.bits != 8 || ch.offset % 8) return std::nullopt;
        b.pos[c] = ch.offset / 8;
    }
    return b;
}

void bytes_to_rgba8(const ByteLayout& b, const uint8_t* src, uint8_t* dst, uint64_t texels) {
    for (uint64_t i = 0; i < texels; ++i, src += b.bytes, dst += 4)
        for (int c = 0; c < 4; ++c) dst[c] = b.pos[c] >= 0 ? src[b.pos[c]] : (c == 3 ? 255 : 0);
}

void rgba8_to_bytes(const ByteLayout& b, const uint8_t* src, uint8_t* dst, uint64_t texels) {
    std::memset(dst, 0, texels * b.bytes); // X bytes read as zero
    for (uint64_t i = 0; i < texels; ++i, src += 4, dst += b.bytes)
        for (int c = 0; c < 4; ++c)
            if (b.pos[c] >= 0) dst[b.pos[c]] = src[c];
}

// Formats the host's image layer keeps in 8 bits (a palette, 4:2:2, or plain
// unsigned channels of at most 8 bits): decoded to float, then rounded to
// RGBA8, as it has always decoded them.
bool fits_rgba8(const FormatInfo* fi) {
    if (fi->layout == Layout::Palette || fi->layout == Layout::Packed422) return true;
    if (fi->layout != Layout::Plain) return false;
    for (const auto& c : fi->ch)
        if (c.bits && (c.bits > 8 || (c.type != ChannelType::Unorm && c.type != ChannelType::Typeless))) return false;
    return true;
}

void convert(const af_host* host, const af_surface& src, af_surface& dst, const char* what, const FormatInfo* fi) {
    if (!host || !host->convert)
        sdk::unsupported(std::string(what) + " " + std::string(fi->name) + " needs the host's convert service");
    af_error e{};
    if (af_status s = host->convert(&src, &dst, nullptr, &e); s != AF_OK)
        sdk::fail(s, AF_NO_OFFSET, std::string(what) + " " + std::string(fi->name) + ": " + e.message);
}

} // namespace

Texture decode_surface(const af_host* host, uint32_t format, const uint8_t* data, uint64_t size, uint32_t width,
                       uint32_t height, uint32_t depth, const uint8_t* palette) {
    const FormatInfo* fi = format_info(format);
    if (!fi) sdk::unsupported(sdk::format("format id %u", format));
    const uint64_t texels = uint64_t(width) * height * depth;
    if (format == FMT_P8) {
        if (!palette) sdk::usage("P8 surface without a palette");
        if (size < texels) sdk::invalid(size, "P8 surface is shorter than its size");
        Texture img = rgba8_picture(width, height * depth);
        for (uint64_t i = 0; i < texels; ++i) std::memcpy(&img.data[i * 4], palette + data[i] * 4, 4);
        return img;
    }
    if (!fi->compressed())
        if (auto b = byte_layout(fi); b && size >= texels * b->bytes) {
            Texture img = rgba8_picture(width, height * depth, fi->srgb());
            bytes_to_rgba8(*b, data, img.data.data(), texels);
            return img;
        }
    // Block-compressed pictures were never tagged sRGB here: filtering them in
    // linear light (option linear) would change what this writer has written.
    Texture img = rgba32f_picture(width, height * depth, !fi->compressed() && fi->srgb());
    af_surface src{format, width, height, depth, const_cast<uint8_t*>(data), size};
    af_surface dst{FMT_R32G32B32A32_FLOAT, width, height, depth, img.data.data(), img.data.size()};
    convert(host, src, dst, "decoding", fi);
    if (!fi->compressed() && fits_rgba8(fi)) return to_rgba8(img);
    return img;
}

void encode_surface(const af_host* host, const Texture& img, uint32_t format, uint8_t* dst, uint64_t size,
                    uint32_t width, uint32_t height, uint32_t depth) {
    const FormatInfo* fi = format_info(format);
    if (!fi) sdk::unsupported(sdk::format("format id %u", format));
    if (format == FMT_P8) sdk::usage("P8 surfaces are written through the quantizer");
    if (img.desc.width != width || img.desc.height != height * depth)
        throw std::logic_error("encode_surface: image size disagrees with the surface");
    const uint64_t texels = uint64_t(width) * height * depth;
    if (!is_float(img) && !fi->compressed())
        if (auto b = byte_layout(fi); b && size >= texels * b->bytes) {
            rgba8_to_bytes(*b, img.data.data(), dst, texels);
            return;
        }
    const Texture f = to_float(img);
    af_surface src{FMT_R32G32B32A32_FLOAT, width, height, depth, const_cast<uint8_t*>(f.data.data()), f.data.size()};
    af_surface out{format, width, height, depth, dst, size};
    convert(host, src, out, "encoding", fi);
}

std::optional<std::string> encoder_missing(const af_host* host, uint32_t format) {
    const FormatInfo* fi = format_info(format);
    if (!fi) return sdk::format("format id %u is unknown", format);
    if (!fi->compressed()) return std::nullopt;
    if (!host || !host->convert) return std::string("the host offers no convert service");
    std::vector<float> probe(4 * 4 * 4, 0.0f);
    std::vector<uint8_t> block(fi->block_bytes);
    af_surface src{FMT_R32G32B32A32_FLOAT,      4, 4, 1, reinterpret_cast<uint8_t*>(probe.data()),
                   probe.size() * sizeof(float)};
    af_surface dst{format, 4, 4, 1, block.data(), block.size()};
    af_error e{};
    if (host->convert(&src, &dst, nullptr, &e) != AF_OK) return std::string(e.message);
    return std::nullopt;
}

Texture halve_volume(const Texture& vol, uint32_t w, uint32_t h, uint32_t d) {
    const Texture in = to_float(vol);
    const uint32_t nw = std::max(1u, w / 2), nh = std::max(1u, h / 2), nd = std::max(1u, d / 2);
    Texture out = rgba32f_picture(nw, nh * nd, is_srgb(in.desc));
    const std::span<const float> src = floats(in);
    const std::span<float> dst = floats(out);
    for (uint32_t z = 0; z < nd; ++z)
        for (uint32_t y = 0; y < nh; ++y)
            for (uint32_t x = 0; x < nw; ++x) {
                float acc[4] = {0, 0, 0, 0};
                uint32_t n = 0;
                for (uint32_t dz = 0; dz < (d > 1 ? 2u : 1u); ++dz)
                    for (uint32_t dy = 0; dy < (h > 1 ? 2u : 1u); ++dy)
                        for (uint32_t dx = 0; dx < (w > 1 ? 2u : 1u); ++dx) {
                            const size_t sx = x * (w > 1 ? 2 : 1) + dx, sy = y * (h > 1 ? 2 : 1) + dy,
                                         sz = z * (d > 1 ? 2 : 1) + dz;
                            const float* p = &src[((sz * h + sy) * w + sx) * 4];
                            for (int c = 0; c < 4; ++c) acc[c] += p[c];
                            ++n;
                        }
                float* q = &dst[((size_t(z) * nh + y) * nw + x) * 4];
                for (int c = 0; c < 4; ++c) q[c] = acc[c] / float(n);
            }
    return out;
}

} // namespace af::xtf
