// The XTF header (58 bytes, packed) and the file layout it implies: where the
// low-res image, palettes, fallback and every high-res image live.
#pragma once

#include <cstdint>
#include <vector>

namespace af::xtf {

inline constexpr uint32_t kXtfHeaderSize = 58;
inline constexpr uint32_t kXtfPlatformXbox = 5;
inline constexpr uint32_t kSector = 512;
inline constexpr uint32_t kPaletteBytes = 256 * 4;

struct XtfHeader {
    uint32_t version_major = kXtfPlatformXbox;       // offset 4
    uint32_t version_minor = 0;                      // 8
    uint32_t header_size = kXtfHeaderSize;           // 12
    uint32_t flags = 0;                              // 16
    uint16_t width = 0, height = 0, depth = 1;       // 20, 22, 24
    uint16_t frames = 1;                             // 26
    uint16_t preload_size = 0;                       // 28
    uint16_t image_offset = 0;                       // 30
    float reflectivity[3] = {0, 0, 0};               // 32
    float bumpmap_scale = 1.0f;                      // 44
    int32_t image_format = 0;                        // 48
    uint8_t lowres_width = 0, lowres_height = 0;     // 52, 53
    uint8_t fallback_width = 0, fallback_height = 0; // 54, 55
    uint8_t mip_skip = 0;                            // 56
    uint8_t padding = 0;                             // 57
};

// Field offsets, for error messages.
namespace xtfoff {
constexpr uint64_t signature = 0, version_major = 4, version_minor = 8, header_size = 12, flags = 16, width = 20,
                   height = 22, depth = 24, frames = 26, preload_size = 28, image_offset = 30, reflectivity = 32,
                   bumpmap_scale = 44, image_format = 48, lowres_width = 52, lowres_height = 53, fallback_width = 54,
                   fallback_height = 55, mip_skip = 56, padding = 57;
}

// Parses and checks the fixed fields (signature, version, header size, non-zero
// extents, known format). Throws af::sdk::Error naming field and offset.
XtfHeader parse_xtf_header(const uint8_t* data, uint64_t size);
void serialize_xtf_header(const XtfHeader& h, uint8_t out[kXtfHeaderSize]);

struct XtfBlock {
    uint32_t frame, face, mip;
    uint32_t width, height, depth;
    uint64_t offset, size;
};

struct XtfLayout {
    uint32_t format = 0; // AssetForge format id
    uint32_t faces = 1, mips = 1, fallback_mips = 0;
    bool nomip_repaired = false; // the spec §11 quirk: NOMIP missing, file holds one mip
    uint64_t lowres_offset = 0, lowres_size = 0;
    uint64_t palette_offset = 0, palette_size = 0;
    uint64_t fallback_offset = 0, fallback_size = 0;
    uint64_t preload_end = 0;  // what preload size should be
    uint64_t image_offset = 0; // start of the high-res block
    uint64_t image_size = 0;   // including inter-frame pads
    uint64_t end_of_data = 0;
    uint64_t file_size = 0;                // end_of_data padded to 512 when above 512
    std::vector<XtfBlock> fallback, image; // file order
};

bool xtf_has_fallback(const XtfHeader& h);
uint32_t xtf_face_count(const XtfHeader& h);

// Computes the layout of a file whose header is `h`. The high-res block starts
// at h.image_offset (readers seek there, like vtfpp). When `file_size` is given,
// every block must fit in it: the first that does not is reported with its offset,
// before anything proportional to the header's claims is allocated.
// `blocks` false skips the per-block tables (sizes only).
XtfLayout xtf_layout(const XtfHeader& h, uint64_t file_size, bool blocks = true);

// preload size and image offset a writer stores for this header (fields 28/30
// of `h` are ignored).
void xtf_writer_offsets(const XtfHeader& h, uint64_t& preload_end, uint64_t& image_offset);

} // namespace af::xtf
