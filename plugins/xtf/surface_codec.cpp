#include "surface_codec.hpp"

#include "assetforge/plugin.hpp"
#include "core/pixel_convert.hpp"

namespace af::xtf {

Image decode_surface(const af_host* host, uint32_t format, const uint8_t* data, uint64_t size, uint32_t width,
                     uint32_t height, uint32_t depth, const uint8_t* palette) {
    const FormatInfo* fi = format_info(format);
    if (!fi) sdk::unsupported(sdk::format("format id %u", format));
    if (!fi->compressed()) {
        if (format == FMT_P8 && !palette) sdk::usage("P8 surface without a palette");
        Image img = surface_to_image(format, data, size, width, height * depth, palette);
        return img.is_float() ? img : to_float(img);
    }
    if (!host || !host->convert)
        sdk::unsupported(std::string("decoding ") + std::string(fi->name) + " needs the host's convert service");
    Image img = Image::makef(width, height * depth);
    af_surface src{format, width, height, depth, const_cast<uint8_t*>(data), size};
    af_surface dst{FMT_R32G32B32A32_FLOAT, width, height, depth, reinterpret_cast<uint8_t*>(img.rgba32f.data()),
                   img.rgba32f.size() * sizeof(float)};
    af_error e{};
    if (af_status s = host->convert(&src, &dst, nullptr, &e); s != AF_OK)
        sdk::fail(s, AF_NO_OFFSET, std::string("decoding ") + std::string(fi->name) + ": " + e.message);
    return img;
}

void encode_surface(const af_host* host, const Image& img, uint32_t format, uint8_t* dst, uint64_t size,
                    uint32_t width, uint32_t height, uint32_t depth) {
    const FormatInfo* fi = format_info(format);
    if (!fi) sdk::unsupported(sdk::format("format id %u", format));
    if (format == FMT_P8) sdk::usage("P8 surfaces are written through the quantizer");
    if (img.width != width || img.height != height * depth)
        throw std::logic_error("encode_surface: image size disagrees with the surface");
    if (!fi->compressed()) {
        image_to_surface(img, format, dst, size);
        return;
    }
    if (!host || !host->convert)
        sdk::unsupported(std::string("encoding ") + std::string(fi->name) + " needs the host's convert service");
    Image f = img.is_float() ? img : to_float(img);
    af_surface src{FMT_R32G32B32A32_FLOAT, width, height, depth, reinterpret_cast<uint8_t*>(f.rgba32f.data()),
                   f.rgba32f.size() * sizeof(float)};
    af_surface out{format, width, height, depth, dst, size};
    af_error e{};
    if (af_status s = host->convert(&src, &out, nullptr, &e); s != AF_OK)
        sdk::fail(s, AF_NO_OFFSET, std::string("encoding ") + std::string(fi->name) + ": " + e.message);
}

Image halve_volume(const Image& vol, uint32_t w, uint32_t h, uint32_t d) {
    Image in = vol.is_float() ? vol : to_float(vol);
    const uint32_t nw = std::max(1u, w / 2), nh = std::max(1u, h / 2), nd = std::max(1u, d / 2);
    Image out = Image::makef(nw, nh * nd, vol.srgb);
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
                            const float* p = &in.rgba32f[((sz * h + sy) * w + sx) * 4];
                            for (int c = 0; c < 4; ++c) acc[c] += p[c];
                            ++n;
                        }
                float* q = &out.rgba32f[((size_t(z) * nh + y) * nw + x) * 4];
                for (int c = 0; c < 4; ++c) q[c] = acc[c] / float(n);
            }
    return out;
}

} // namespace af::xtf
