#include "tga_reader.hpp"

#include <assetforge/bytes.hpp>
#include <assetforge/error.hpp>
#include <assetforge/plugin.hpp>
#include <assetforge/texture.hpp>

#include <algorithm>
#include <cstring>
#include <string>

namespace tga {

using af::sdk::format;

namespace {

// One stored value (index, grey level or B,G,R[,A]) as R,G,B,A.
struct Expander {
    const Header& h;
    const uint8_t* map = nullptr; // colour map entries, B,G,R[,A]

    void operator()(const uint8_t* v, uint8_t* rgba, uint64_t at) const {
        if (map) {
            const uint32_t index = v[0];
            if (index < h.map_first || index - h.map_first >= h.map_length)
                af::sdk::invalid(at, format("colour index %u outside the colour map (%u..%u)", index, h.map_first,
                                            h.map_first + h.map_length - 1));
            v = map + uint64_t(index - h.map_first) * h.map_entry_bytes();
            return bgr(v, h.map_bits == 32, rgba);
        }
        if (h.pixel_bits == 8) {
            rgba[0] = rgba[1] = rgba[2] = v[0];
            rgba[3] = 255;
            return;
        }
        bgr(v, h.pixel_bits == 32, rgba);
    }
    static void bgr(const uint8_t* v, bool alpha, uint8_t* rgba) {
        rgba[0] = v[2];
        rgba[1] = v[1];
        rgba[2] = v[0];
        rgba[3] = alpha ? v[3] : 255;
    }
};

// The stored values in file order, unpacked from RLE where needed; each calls put(value, texel index, offset).
template <class Put> void for_each_value(const Header& h, const uint8_t* data, uint64_t size, Put&& put) {
    const uint64_t count = uint64_t(h.width) * h.height;
    const uint32_t bytes = h.pixel_bytes();
    uint64_t at = h.pixels_offset();
    if (!h.rle()) {
        if (size - at < count * bytes)
            af::sdk::invalid(size, format("truncated: %llu pixel bytes expected at offset %llu, %llu present",
                                          (unsigned long long)(count * bytes), (unsigned long long)at,
                                          (unsigned long long)(size - at)));
        for (uint64_t i = 0; i < count; ++i, at += bytes) put(data + at, i, at);
        return;
    }
    for (uint64_t i = 0; i < count;) {
        if (at >= size)
            af::sdk::invalid(at, format("truncated: RLE data ends after %llu of %llu pixels", (unsigned long long)i,
                                        (unsigned long long)count));
        const uint8_t packet = data[at];
        const uint64_t n = (packet & 0x7f) + 1u;
        if (n > count - i)
            af::sdk::invalid(at, format("RLE packet of %llu pixels runs past the image's %llu", (unsigned long long)n,
                                        (unsigned long long)count));
        const uint64_t stored = (packet & 0x80) ? bytes : n * bytes;
        if (size - at - 1 < stored)
            af::sdk::invalid(size, format("truncated: RLE packet at offset %llu needs %llu bytes",
                                          (unsigned long long)at, (unsigned long long)(stored + 1)));
        const uint8_t* v = data + at + 1;
        for (uint64_t k = 0; k < n; ++k) put((packet & 0x80) ? v : v + k * bytes, i + k, at);
        i += n;
        at += 1 + stored;
    }
}

// Smallest file that could hold the image: a hostile header in a tiny file is refused before any allocation.
void check_room(const Header& h, uint64_t size) {
    const uint64_t count = uint64_t(h.width) * h.height;
    const uint64_t bytes = h.pixel_bytes();
    // RLE at best stores 128 pixels in one packet of 1 + bytes.
    const uint64_t least = h.rle() ? (count + 127) / 128 * (1 + bytes) : count * bytes;
    if (size - h.pixels_offset() < least)
        af::sdk::invalid(size,
                         format("truncated: a %ux%u image needs at least %llu bytes of pixels, %llu present", h.width,
                                h.height, (unsigned long long)least, (unsigned long long)(size - h.pixels_offset())));
}

std::string image_kind(const Header& h) {
    const char* kind = h.image_type % 8 == kMapped ? "colour-mapped"
                       : h.image_type % 8 == kGrey ? "greyscale"
                                                   : "true-colour";
    return format("%s %u-bit%s", kind, h.pixel_bits, h.rle() ? ", RLE" : "");
}

} // namespace

std::vector<uint8_t> decode_rgba8(const Header& h, const uint8_t* data, uint64_t size) {
    check_room(h, size);
    Expander expand{h, h.image_type % 8 == kMapped ? data + h.map_offset() : nullptr};
    std::vector<uint8_t> out(uint64_t(h.width) * h.height * 4);
    for_each_value(h, data, size, [&](const uint8_t* v, uint64_t i, uint64_t at) {
        uint64_t x = i % h.width, y = i / h.width;
        if (h.right_to_left()) x = h.width - 1 - x;
        if (!h.top_down()) y = h.height - 1 - y; // TGA's default origin is the bottom left
        expand(v, out.data() + (y * h.width + x) * 4, at);
    });
    return out;
}

int32_t probe(const uint8_t* head, uint64_t size, const char* path) {
    std::string p(path ? path : "");
    std::transform(p.begin(), p.end(), p.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    const bool named = p.size() > 4 && p.compare(p.size() - 4, 4, ".tga") == 0;
    // No magic number: the name decides, and a header that cannot be TGA vetoes it.
    return named && plausible_header(head, size) ? AF_PROBE_EXTENSION : AF_PROBE_NO;
}

af_status read(const af_host* host, const af_input* in, const af_options*, af_texture* out, af_error* err) {
    return af::sdk::guard(err, [&] {
        const Header h = parse_header(in->data, in->size, host->max_dimension);
        // Decoded before the texture is made: af::Texture(desc) allocates the claimed size, and decode_rgba8
        // first checks that the file is large enough to hold it.
        std::vector<uint8_t> rgba = decode_rgba8(h, in->data, in->size);
        // TGA records no colour space; like an untagged PNG its 8-bit colour is taken as sRGB.
        af::Texture t;
        t.desc = af::TextureDesc{af::FMT_R8G8B8A8_UNORM_SRGB, h.width, h.height};
        t.data = std::move(rgba);
        const bool has_alpha = h.pixel_bits == 32 || (h.image_type % 8 == kMapped && h.map_bits == 32);
        t.desc.alpha_mode = has_alpha ? AF_ALPHA_STRAIGHT
                                      : AF_ALPHA_OPAQUE; // TGA 2.0: straight unless an extension area says otherwise
        af::sdk::export_texture(host, t, out);
    });
}

af_status dims(const af_host* host, const af_input* in, const af_options*, af_dims* out, af_error* err) {
    return af::sdk::guard(err, [&] {
        const Header h = parse_header(in->data, in->size, host->max_dimension, false);
        out->format = af::FMT_R8G8B8A8_UNORM_SRGB; // every kind is read into RGBA8 (see read)
        out->width = h.width;
        out->height = h.height;
    });
}

af_status info(const af_host* host, const af_input* in, const af_options*, af_info_text* out, af_error* err) {
    return af::sdk::guard(err, [&] {
        const Header h = parse_header(in->data, in->size, host->max_dimension);
        const char* origin = h.top_down() ? "top left" : "bottom left";
        out->json = af::sdk::host_strdup(
            host, format("{\"container\":\"tga\",\"width\":%u,\"height\":%u,\"image_type\":%u,\"pixel_bits\":%u,"
                         "\"rle\":%s,\"origin\":\"%s\"}",
                         h.width, h.height, h.image_type, h.pixel_bits, h.rle() ? "true" : "false", origin));
        out->text = af::sdk::host_strdup(host, format("container: tga\ndimensions: %ux%u\nkind: %s\norigin: %s\n",
                                                      h.width, h.height, image_kind(h).c_str(), origin));
    });
}

} // namespace tga
