// The fixed facts of an Echo VR package set: table layouts, the known asset
// types, and the in-memory form of a checked manifest.
#pragma once

#include "assetforge/error.hpp"

#include <array>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace af::evr {

// The manifest file is a 24-byte archive header followed by one zstd frame.
inline constexpr uint64_t kArchiveHeaderSize = 24;
inline constexpr uint64_t kBodyHeaderSize = 192;
inline constexpr uint64_t kFileEntrySize = 32;
inline constexpr uint64_t kMetaEntrySize = 40;
inline constexpr uint64_t kFrameRecordSize = 16;

inline constexpr uint64_t kTypeDds = 0xbeac1969cb7b8861ull;
inline constexpr uint64_t kTypeRawBc = 0x7f5bc1cf8ce51ffdull;
inline constexpr uint64_t kTypeTextureMeta = 0x2f6e61706a2c8f35ull;
inline constexpr uint64_t kTypeAudioRef = 0x38ee951a26fb816aull;
inline constexpr uint64_t kTypeAssetRef = 0xca6cd085401cbc87ull;

// The community's name for a type symbol, or "" when nobody has named it.
const char* type_name(uint64_t type);
// Symbols print as 16 lowercase hex digits, zero-padded, whatever tool wrote them.
std::string hex16(uint64_t symbol);
// 1-16 hex digits with an optional 0x prefix; false when `text` is not one.
bool parse_symbol(const std::string& text, uint64_t& out);
// "A,B, 0xC": comma-separated symbols added to `out`; returns the first item
// that is not a symbol, or "" when all are.
std::string parse_symbol_list(const std::string& text, std::set<uint64_t>& out);

struct SectionDescriptor {
    uint64_t length = 0, unknown_c = 0, unknown_d = 0, element_size = 0, count = 0, element_count = 0;
};

struct FileEntry {
    uint64_t type = 0, file = 0;
    uint32_t frame = 0, offset = 0, size = 0, alignment = 0;
};

struct MetaEntry {
    uint64_t type = 0, file = 0, unknown_e = 0, unknown_f = 0, asset_type = 0;
};

struct FrameRecord {
    uint32_t package = 0, offset = 0, csize = 0, length = 0;
    bool is_data() const { return length > 0; }
};

enum Section { kFrameContents = 0, kMetadata = 1, kFrames = 2 };

struct Manifest {
    uint32_t header_length = 16; // archive header field: 16, or 24 from an old community writer
    uint64_t body_size = 0;
    uint32_t package_count = 0;
    uint32_t unknown_a = 0;
    uint64_t unknown_b = 0;
    std::array<SectionDescriptor, 3> sections{};
    // The 16 bytes after the FrameContents and Metadata descriptors: zero in
    // every known file, kept byte for byte on repack all the same.
    std::array<std::array<uint8_t, 16>, 2> paddings{};
    std::vector<uint8_t> trailing; // after the Frames table: no known file has any; kept on repack
    std::vector<FileEntry> files;
    std::vector<MetaEntry> metadata;
    std::vector<FrameRecord> frames;
};

// This project's refusal limits (the format itself has none below 2^32 / 2^64).
struct Limits {
    uint64_t max_manifest_bytes = uint64_t(1) << 30;
    uint64_t max_frame_bytes = uint64_t(1) << 30;
};

// The largest value of the manifest's 32-bit fields (a frame record's
// offset, sizes and length, a file entry's frame, offset and size).
inline constexpr uint64_t kField32Max = 0xffffffffull;

// The most decompressed bytes a writer may put in one frame: what the frame
// record's 32-bit length holds, and no more than a reader with `limits`
// accepts, so that a set is never written that its own verify refuses.
uint64_t frame_capacity(const Limits& limits);

// "1288490188 bytes, more than one frame holds (…)": why `bytes` cannot go
// into a frame, naming the limit that binds (the 32-bit field or the reader's).
std::string over_frame_capacity(uint64_t bytes, const Limits& limits);

// `value` for a 32-bit field, refused (AF_ERR_INVALID_DATA, naming the field
// and `where()`) when it does not fit: the writers never cast one down.
// `where` builds its text only for the error.
template <class Where> uint32_t field32(uint64_t value, const char* field, Where&& where);

template <class Where> uint32_t field32(uint64_t value, const char* field, Where&& where) {
    if (value > kField32Max)
        sdk::fail(AF_ERR_INVALID_DATA, AF_NO_OFFSET,
                  std::string(where()) + sdk::format(": %llu, more than the 32-bit %s field of an Echo VR manifest "
                                                     "holds (%llu)",
                                                     (unsigned long long)value, field,
                                                     (unsigned long long)kField32Max));
    return uint32_t(value);
}

} // namespace af::evr
