#include "pages_format.hpp"

#include "assetforge/bytes.hpp"

#include <cstring>

namespace af::vtpages {
namespace {

uint16_t le16(const uint8_t* p) { return uint16_t(p[0] | p[1] << 8); }
uint32_t le32(const uint8_t* p) {
    return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
uint64_t le64(const uint8_t* p) { return uint64_t(le32(p)) | uint64_t(le32(p + 4)) << 32; }

} // namespace

std::string_view compression_name(int32_t c) {
    static constexpr std::string_view names[] = {"none", "uncompressed", "DXT", "LZW", "DCT", "HDP", "JXR"};
    return c >= 0 && c < kCompCount ? names[c] : "invalid";
}

std::string_view block_name(int b) {
    static constexpr std::string_view names[] = {"diffuse", "normal", "specular", "power", "alpha"};
    return b >= 0 && b < kBlockCount ? names[b] : "?";
}

FileHeader decode_file_header(const uint8_t* p) {
    FileHeader h;
    h.magic = le32(p);
    h.pages_wide = int32_t(le32(p + 4));
    h.installed_mip_and_offset = int32_t(le32(p + 8));
    h.num_levels = int16_t(le16(p + 12));
    h.layout_version = int16_t(le16(p + 14));
    h.total_pages = int32_t(le32(p + 16));
    h.disk_offset_scale = int32_t(le32(p + 20));
    h.total_file_size = int64_t(le64(p + 24));
    return h;
}

NodeHeader decode_node_header(const uint8_t* p) {
    NodeHeader n;
    n.magic = le32(p);
    n.compression = int32_t(le32(p + 4));
    for (int i = 0; i < 4; ++i) n.child_offset[i] = le32(p + 8 + 4 * i);
    for (int i = 0; i < 4; ++i) n.child_length[i] = le16(p + 24 + 2 * i);
    n.x = le16(p + 32);
    n.y = le16(p + 34);
    n.level = le16(p + 36);
    n.reserved = le16(p + 38);
    return n;
}

SubHeader decode_sub_header(const uint8_t* p) {
    SubHeader s;
    for (int i = 0; i < 4; ++i) s.quality[i] = p[i];
    s.flags = p[4];
    s.padding = p[5];
    for (int i = 0; i < 5; ++i) s.sizes[i] = uint16_t(p[6 + 2 * i] << 8 | p[7 + 2 * i]);
    return s;
}

void encode_file_header(const FileHeader& h, uint8_t* p) {
    sdk::ByteWriter w(kFileHeaderSize);
    w.u32(h.magic);
    w.u32(uint32_t(h.pages_wide));
    w.u32(uint32_t(h.installed_mip_and_offset));
    w.u16(uint16_t(h.num_levels));
    w.u16(uint16_t(h.layout_version));
    w.u32(uint32_t(h.total_pages));
    w.u32(uint32_t(h.disk_offset_scale));
    w.u64(uint64_t(h.total_file_size));
    std::memcpy(p, w.data(), w.size());
}

void encode_node_header(const NodeHeader& n, uint8_t* p) {
    sdk::ByteWriter w(kNodeHeaderSize);
    w.u32(n.magic);
    w.u32(uint32_t(n.compression));
    for (int i = 0; i < 4; ++i) w.u32(n.child_offset[i]);
    for (int i = 0; i < 4; ++i) w.u16(n.child_length[i]);
    w.u16(n.x);
    w.u16(n.y);
    w.u16(n.level);
    w.u16(n.reserved);
    std::memcpy(p, w.data(), w.size());
}

void encode_sub_header(const SubHeader& s, uint8_t* p) {
    for (int i = 0; i < 4; ++i) p[i] = s.quality[i];
    p[4] = s.flags;
    p[5] = s.padding;
    for (int i = 0; i < 5; ++i) {
        p[6 + 2 * i] = uint8_t(s.sizes[i] >> 8);
        p[7 + 2 * i] = uint8_t(s.sizes[i]);
    }
}

PayloadLayout payload_layout(const SubHeader& s) {
    PayloadLayout l;
    uint64_t at = kSubHeaderSize;
    for (int b = kDiffuse; b <= kPower; ++b) {
        l.block_offset[b] = at;
        l.block_size[b] = s.sizes[b];
        at += s.sizes[b];
    }
    if (s.has_cover()) {
        l.cover_offset = at;
        l.cover_size = kCoverMaskSize;
        at += kCoverMaskSize;
    }
    l.block_offset[kAlpha] = at;
    l.block_size[kAlpha] = s.sizes[kAlpha];
    at += s.sizes[kAlpha];
    l.pad = at & 1;
    l.total = at + l.pad;
    return l;
}

} // namespace af::vtpages
