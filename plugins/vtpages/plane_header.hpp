// The byte-aligned HD Photo IMAGE_PLANE_HEADER each page block starts with
// (ITU-T T.832 §8.3 field order). Parsed: internal colour format, scaled
// flag, bands present, component count, and the DC/LP/HP quantisers when the
// plane uses uniform QPs. Not parsed: per-tile QPs (flag clear), the bit-depth
// dependent SHIFT_BITS/mantissa fields (the engine's stream carries no image
// header to say the bit depth; 8-bit is assumed), and anything after the
// header — the blocks are a modified codestream, so no pixels come out of them.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace af::vtpages {

struct QuantSet {
    bool present = false;    // the plane's *_UNIFORM_FLAG was set
    int component_mode = -1; // 0 uniform, 1 separate (luma/chroma), 2 independent; -1 when one component
    std::vector<uint8_t> qp; // 1 (uniform), 2 (luma, chroma) or one per component
};

struct PlaneHeader {
    int colour_format = 0; // INTERNAL_CLR_FMT
    bool no_scaled = false;
    int bands = 0; // BANDS_PRESENT
    int components = 0;
    uint32_t reserved_bits = 0; // 8 bits after the colour format (YUV) or 4 after the component count (N-component)
    QuantSet dc, lp, hp;
    size_t header_bytes = 0;      // byte-aligned length of the plane header
    int next_byte = -1;           // byte after the header (0xff in every known block), -1 past the end
    bool tile_start_code = false; // 00 00 01 00 follows that byte

    std::string_view colour_format_name() const;
    std::string_view bands_name() const;
    std::string describe() const; // "YUV444 NOFLEXBITS, 3 components, DC QP 30/48, LP 30/48, HP 30/48"
};

// Throws sdk::Error (invalid, offset relative to the block) when the bits run
// out or a field holds a reserved value.
PlaneHeader parse_plane_header(std::span<const uint8_t> block);

} // namespace af::vtpages
