// PC VTF 7.0–7.5: header, resource directory and image layout (read), and the
// 7.2 writer. XTF is an Xbox fork of 7.2; the two share the format enum.
#pragma once

#include "xtf_reader.hpp"
#include "xtf_writer.hpp"

#include "assetforge/plugin_abi.h"
#include "assetforge/texture.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace af::xtf {

struct VtfResource {
    uint8_t tag[3];
    uint8_t flags;  // 0x02: no data chunk, `value` is the data itself
    uint32_t value; // offset of the data chunk, or the inline data
};

struct VtfHeader {
    uint32_t version_major = 7, version_minor = 2;
    uint32_t header_size = 80;
    uint16_t width = 0, height = 0;
    uint32_t flags = 0;
    uint16_t frames = 1, start_frame = 0;
    float reflectivity[3] = {0, 0, 0};
    float bumpmap_scale = 1.0f;
    int32_t image_format = 0;
    uint8_t mip_count = 1;
    int32_t lowres_format = -1;
    uint8_t lowres_width = 0, lowres_height = 0;
    uint16_t depth = 1;                 // 7.2+
    std::vector<VtfResource> resources; // 7.3+
};

struct VtfLayout {
    uint32_t format = 0; // AssetForge id
    uint32_t faces = 1;  // faces stored in the file (7 with a spheremap)
    uint32_t faces_kept = 1;
    uint64_t thumbnail_offset = 0, thumbnail_size = 0;
    uint64_t image_offset = 0, image_size = 0;
};

struct VtfFile {
    VtfHeader header;
    VtfLayout layout;
    Texture image; // spheremap face dropped; mips largest first
};

// Throws af::sdk::Error naming the field and offset.
VtfFile read_vtf(const uint8_t* data, uint64_t size, const af_host* host);

// Every field and the resource table for `info`.
VtfHeader parse_vtf_header(const uint8_t* data, uint64_t size);
VtfLayout vtf_layout(const VtfHeader& h, uint64_t file_size);

struct VtfWriteOptions {
    std::optional<int32_t> format;
    std::optional<uint32_t> flags; // Xbox and 7.3+ bits are cleared; ENVMAP/NOMIP follow the data
    bool nomip = false;
    // auto: a DXT1 thumbnail when the BC codec can encode it, else none
    // (low-res format -1, size 0×0); on: fail without the codec; off: none.
    std::string thumbnail = "auto";
    float bumpmap_scale = 1.0f;
    std::optional<std::array<float, 3>> reflectivity;
    uint32_t filter = AF_FILTER_MITCHELL; // AF_FILTER_*, for mips the texture lacks
};
VtfWriteOptions parse_vtf_write_options(const af_options* options);
// What parse_vtf_write_options reads: the vtf container's write options.
const sdk::ParamTable& vtf_write_params();

std::vector<uint8_t> write_vtf(const af_host* host, const Texture& in, const VtfWriteOptions& opt);

// Spec §13 conversions, keeping what the other side can hold (flags,
// reflectivity, bump scale) and without vtfpp's recorded bugs.
std::vector<uint8_t> vtf_to_xtf(const af_host* host, const VtfFile& vtf, XtfWriteOptions opt);
std::vector<uint8_t> xtf_to_vtf(const af_host* host, const XtfFile& xtf, VtfWriteOptions opt);

} // namespace af::xtf
