// Minimal DDS file with a DX10 header, one 2D surface, no mips: just enough
// for an independent reader (Pillow) to load BC6H/BC7 data the tests wrote.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

namespace af::bc::test {

inline std::vector<uint8_t> make_dds_dx10(uint32_t width, uint32_t height, uint32_t dxgi_format,
                                          const std::vector<uint8_t>& blocks) {
    std::vector<uint8_t> f(4 + 124 + 20, 0);
    auto put32 = [&](size_t off, uint32_t v) { memcpy(f.data() + off, &v, 4); };
    memcpy(f.data(), "DDS ", 4);
    put32(4, 124);                               // dwSize
    put32(8, 0x1 | 0x2 | 0x4 | 0x1000 | 0x80000); // CAPS HEIGHT WIDTH PIXELFORMAT LINEARSIZE
    put32(12, height);
    put32(16, width);
    put32(20, uint32_t(blocks.size())); // linear size of the top mip
    put32(28, 1);                       // mip count
    put32(76, 32);                      // DDS_PIXELFORMAT.dwSize
    put32(80, 0x4);                     // DDPF_FOURCC
    memcpy(f.data() + 84, "DX10", 4);
    put32(108, 0x1000); // DDSCAPS_TEXTURE
    put32(128, dxgi_format);
    put32(132, 3); // D3D10_RESOURCE_DIMENSION_TEXTURE2D
    put32(140, 1); // array size
    f.insert(f.end(), blocks.begin(), blocks.end());
    return f;
}

} // namespace af::bc::test
