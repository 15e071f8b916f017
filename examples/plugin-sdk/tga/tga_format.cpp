#include "tga_format.hpp"

#include <assetforge/bytes.hpp>
#include <assetforge/error.hpp>

namespace tga {

using af::sdk::format;

namespace {
bool known_type(uint8_t t) { return t == kMapped || t == kTrueColour || t == kGrey || (t >= 9 && t <= 11); }
} // namespace

bool plausible_header(const uint8_t* data, uint64_t size) {
    if (size < kHeaderBytes) return false;
    const uint8_t map_type = data[1], type = data[2], bits = data[16];
    if (map_type > 1 || !known_type(type)) return false;
    if ((type == kMapped || type == kMappedRle) != (map_type == 1)) return false;
    return bits == 8 || bits == 15 || bits == 16 || bits == 24 || bits == 32;
}

Header parse_header(const uint8_t* data, uint64_t size, uint32_t max_dimension, bool whole) {
    af::sdk::ByteReader r(data, size);
    r.need(0, kHeaderBytes, "TGA header");
    Header h;
    h.id_length = r.u8(0);
    h.map_type = r.u8(1);
    h.image_type = r.u8(2);
    h.map_first = r.u16(3);
    h.map_length = r.u16(5);
    h.map_bits = r.u8(7);
    h.width = r.u16(12);
    h.height = r.u16(14);
    h.pixel_bits = r.u8(16);
    h.descriptor = r.u8(17);
    if (h.map_type > 1)
        af::sdk::invalid(1, format("colour-map type %u (0 or 1 expected): not a TGA file?", h.map_type));
    if (h.image_type == 0) af::sdk::unsupported("TGA image type 0 (no image data)");
    if (!known_type(h.image_type))
        af::sdk::invalid(2, format("image type %u (1, 2, 3, 9, 10 or 11 expected): not a TGA file?", h.image_type));
    if (h.width == 0 || h.height == 0) af::sdk::invalid(12, "zero width or height");
    if (max_dimension && (h.width > max_dimension || h.height > max_dimension))
        af::sdk::invalid(12, format("%ux%u exceeds the dimension limit %u", h.width, h.height, max_dimension));
    const bool mapped = h.image_type == kMapped || h.image_type == kMappedRle;
    const bool grey = h.image_type == kGrey || h.image_type == kGreyRle;
    if (mapped) {
        if (h.map_type != 1) af::sdk::invalid(1, "a colour-mapped image without a colour map");
        if (h.pixel_bits != 8)
            af::sdk::unsupported(format("colour-mapped TGA with %u-bit indices (8 only)", h.pixel_bits));
        if (h.map_bits != 24 && h.map_bits != 32)
            af::sdk::unsupported(format("TGA colour map of %u-bit entries (24 and 32 only)", h.map_bits));
        if (h.map_length == 0) af::sdk::invalid(5, "empty colour map");
    } else if (grey) {
        if (h.pixel_bits != 8) af::sdk::unsupported(format("%u-bit greyscale TGA (8 only)", h.pixel_bits));
    } else if (h.pixel_bits != 24 && h.pixel_bits != 32) {
        af::sdk::unsupported(format("%u-bit true-colour TGA (24 and 32 only)", h.pixel_bits));
    }
    if (whole) r.need(h.map_offset(), h.pixels_offset() - h.map_offset(), "TGA image id and colour map");
    return h;
}

} // namespace tga
