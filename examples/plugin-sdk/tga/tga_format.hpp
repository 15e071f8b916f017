// Truevision TGA: the 18-byte header, what this plugin accepts of it, and where the pixels start.
//
// Layout (little-endian): id length u8, colour-map type u8, image type u8, colour-map first index u16, colour-map
// length u16, colour-map entry bits u8, x/y origin u16 u16, width u16, height u16, pixel bits u8, descriptor u8
// (bits 0-3 alpha bits, bit 4 right-to-left, bit 5 top-to-bottom); then the image id, the colour map, the pixels
// (RLE: packets of a count byte, high bit = one value repeated), and an optional TGA 2.0 footer.
#pragma once

#include <cstdint>
#include <string>

namespace tga {

constexpr uint64_t kHeaderBytes = 18;
constexpr uint64_t kFooterBytes = 26;
constexpr char kFooterSignature[] = "TRUEVISION-XFILE."; // + NUL: the last 18 bytes of a TGA 2.0 file

enum ImageType : uint8_t {
    kMapped = 1,
    kTrueColour = 2,
    kGrey = 3,
    kMappedRle = 9,
    kTrueColourRle = 10,
    kGreyRle = 11
};

struct Header {
    uint8_t id_length = 0, map_type = 0, image_type = 0;
    uint16_t map_first = 0, map_length = 0;
    uint8_t map_bits = 0;
    uint16_t width = 0, height = 0;
    uint8_t pixel_bits = 0, descriptor = 0;

    bool rle() const { return image_type >= 9; }
    bool top_down() const { return descriptor & 0x20; }
    bool right_to_left() const { return descriptor & 0x10; }
    uint32_t pixel_bytes() const { return pixel_bits / 8; }
    uint32_t map_entry_bytes() const { return (map_bits + 7u) / 8u; }
    uint64_t map_offset() const { return kHeaderBytes + id_length; }
    uint64_t pixels_offset() const { return map_offset() + (map_type ? uint64_t(map_length) * map_entry_bytes() : 0); }
};

// The header of `data`, checked: a kind this plugin cannot read is "unsupported: …", a damaged one an error at
// its offset; both name what was found. `max_dimension` 0 means no limit. `whole`: data holds the whole file,
// whose image id and colour map must then be there (dims is given only the first bytes).
Header parse_header(const uint8_t* data, uint64_t size, uint32_t max_dimension, bool whole = true);

// Whether the first bytes look like a TGA header at all (TGA has no magic number).
bool plausible_header(const uint8_t* data, uint64_t size);

} // namespace tga
