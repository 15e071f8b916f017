// Byte layout of id Tech 5 `.pages` virtual-texture files (see README.md):
// a 32-byte file header, a root pointer node at
// offset 32, then a sparse quadtree of 40-byte node headers each followed by
// its page payload. Everything is little-endian except the payload sub-header.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace af::vtpages {

inline constexpr uint32_t kFileMagic = 0x77339904u;
inline constexpr uint32_t kNodeMagic = 0xCABFED04u;
inline constexpr uint64_t kFileHeaderSize = 32;
inline constexpr uint64_t kNodeHeaderSize = 40;
inline constexpr uint64_t kRootPointerOffset = 32;
inline constexpr uint64_t kFirstNodeOffset = kRootPointerOffset + kNodeHeaderSize; // 72
inline constexpr uint64_t kSubHeaderSize = 16;
inline constexpr uint64_t kCoverMaskSize = 2048; // 128×128 bits
inline constexpr uint32_t kPageTexels = 128;
inline constexpr int kMaxLevels = 12;            // MAX_VIRTUAL_PAGES_WIDE 2048 = 1 << 11
inline constexpr uint32_t kDxtPageSmall = 40960; // MAX_PAGE_DATA_SIZE_DXT
inline constexpr uint32_t kDxtPageLarge = 49152;
inline constexpr uint32_t kMaxChildUnits = 0xFFFF; // childLength is a u16

// compression_t with the engine's own names; 0 only appears on the root pointer.
enum Compression : int32_t {
    kCompNone = 0,
    kCompUncompressed = 1,
    kCompDxt = 2,
    kCompLzw = 3,
    kCompDct = 4,
    kCompHdp = 5,
    kCompJxr = 6,
    kCompCount = 7
};
std::string_view compression_name(int32_t c); // "HDP", or "invalid" beyond 6
// Compressions whose payload starts with the 16-byte big-endian sub-header.
inline bool has_sub_header(int32_t c) { return c >= kCompLzw && c <= kCompJxr; }

struct FileHeader {
    uint32_t magic = 0;
    int32_t pages_wide = 0;
    int32_t installed_mip_and_offset = 0;
    int16_t num_levels = 0;
    int16_t layout_version = 0;
    int32_t total_pages = 0;
    int32_t disk_offset_scale = 0; // raw; 0 means 64
    int64_t total_file_size = 0;

    uint32_t scale() const { return disk_offset_scale == 0 ? 64u : uint32_t(disk_offset_scale); }
    int installed_mip() const { return int(uint32_t(installed_mip_and_offset) >> 24); }
};

struct NodeHeader {
    uint32_t magic = 0;
    int32_t compression = 0;
    std::array<uint32_t, 4> child_offset{}; // × scale = file offset
    std::array<uint16_t, 4> child_length{}; // × scale = bytes reserved; 0 = absent
    uint16_t x = 0, y = 0, level = 0, reserved = 0;
};

// The five block sizes, in file order of the blocks that follow.
enum Block { kDiffuse = 0, kNormal = 1, kSpecular = 2, kPower = 3, kAlpha = 4, kBlockCount = 5 };
std::string_view block_name(int b);

inline constexpr uint8_t kFlagMonoSpecular = 0x4;
inline constexpr uint8_t kFlagCoverMask = 0x8;

struct SubHeader {
    std::array<uint8_t, 4> quality{}; // diffuse, normal, specular, power
    uint8_t flags = 0;
    uint8_t padding = 0;
    std::array<uint16_t, 5> sizes{}; // big-endian on disk

    bool has_cover() const { return flags & kFlagCoverMask; }
    int specular_shift() const { return flags & 3; }
    uint64_t block_sum() const { return uint64_t(sizes[0]) + sizes[1] + sizes[2] + sizes[3] + sizes[4]; }
    // (16 + sum(sizes) + (cover ? 2048 : 0) + 1) & ~1
    uint64_t payload_size() const {
        return (kSubHeaderSize + block_sum() + (has_cover() ? kCoverMaskSize : 0) + 1) & ~1ull;
    }
};

// Where each part of a sub-headed payload lies, relative to the payload start.
struct PayloadLayout {
    std::array<uint64_t, 5> block_offset{}; // diffuse, normal, specular, power, alpha
    std::array<uint64_t, 5> block_size{};
    uint64_t cover_offset = 0, cover_size = 0; // between power and alpha
    uint64_t pad = 0;                          // 0 or 1 byte of even-padding at the end
    uint64_t total = 0;
};
PayloadLayout payload_layout(const SubHeader& s);

FileHeader decode_file_header(const uint8_t* p); // 32 bytes, no checks
NodeHeader decode_node_header(const uint8_t* p); // 40 bytes, no checks
SubHeader decode_sub_header(const uint8_t* p);   // 16 bytes, no checks
void encode_file_header(const FileHeader& h, uint8_t* p);
void encode_node_header(const NodeHeader& n, uint8_t* p);
void encode_sub_header(const SubHeader& s, uint8_t* p);

// Child slot of a node at (x, y) under its parent: ((y & 1) << 1) | (x & 1).
inline int child_index(uint32_t x, uint32_t y) { return int(((y & 1u) << 1) | (x & 1u)); }
// Node count of a complete quadtree with `levels` levels: (4^levels − 1) / 3.
inline uint64_t complete_tree_nodes(int levels) { return ((uint64_t(1) << (2 * levels)) - 1) / 3; }

// A page's identity: level 0 is the finest mip.
struct PageKey {
    uint16_t level = 0, x = 0, y = 0;
    uint64_t packed() const { return uint64_t(level) << 32 | uint64_t(y) << 16 | x; }
    bool operator==(const PageKey&) const = default;
};

} // namespace af::vtpages
