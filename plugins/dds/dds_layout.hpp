// What a DDS header means: format, shape and where every surface lies.
// Sizes come from the format table, never from pitch/linear size or flags.
#pragma once

#include "dds_format.hpp"

#include "assetforge/texture.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace af::dds {

// Host limits (0 = none); checked before anything is allocated.
struct Limits {
    uint32_t max_dimension = 0;
    uint32_t max_surfaces = 0;
    uint64_t max_texture_bytes = 0;
};

// A non-fatal finding, for warnings and the info report.
struct Problem {
    uint64_t offset; // AF_NO_OFFSET when it concerns the whole file
    std::string message;
};

struct DdsLayout {
    RawHeader header;
    TextureDesc desc;          // the texture the header describes
    std::string format_source; // "DX10 header", "FourCC 'DXT1'", "D3DFMT_A8R8G8B8 (…)"
    uint32_t dimension = 2;    // 1, 2 or 3
    uint64_t file_size = 0;
    uint64_t data_offset = 0;
    std::vector<uint64_t> mip_bytes;      // bytes of each mip of one face of one layer
    uint64_t chain_bytes = 0;             // one face's whole mip chain
    uint64_t data_bytes = 0;              // every surface, as the header promises
    std::vector<Problem> header_problems; // oddities tolerated while reading the header

    uint64_t available_bytes() const { return file_size > data_offset ? file_size - data_offset : 0; }
    uint64_t surface_count() const { return uint64_t(desc.layers) * desc.faces * desc.mips; }
};

// Decodes and validates the header against the file size and the limits.
// Throws af::sdk::Error (with the offending field's offset) for hostile or
// unsupported headers. `permissive` tolerates wrong structure-size fields.
// It does not reject a file whose data is shorter than promised: callers decide.
DdsLayout describe(const uint8_t* data, uint64_t size, const Limits& limits, bool permissive);

// What is wrong with a block-compressed texture of this top level that is not whole blocks (one wording for
// info and the writer).
std::string block_multiple_problem(uint32_t width, uint32_t height, uint32_t block_w, uint32_t block_h);

// Inconsistencies a strict reader or game loader might trip on: flags,
// caps, pitch/linear size, size mismatches (with an explanation of the
// length when a common miscount matches it).
std::vector<Problem> consistency_problems(const DdsLayout& l);

// When the data length disagrees with the header, a guess at why (fewer mips,
// sub-4×4 mips miscounted, wrong block size…); "" when nothing matches.
std::string explain_length(const DdsLayout& l);

} // namespace af::dds
