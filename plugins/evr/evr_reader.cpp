#include "evr_reader.hpp"

#include "zstd_frame.hpp"

#include "assetforge/bytes.hpp"
#include "assetforge/error.hpp"

#include <algorithm>

namespace af::evr {

namespace {

using sdk::format;
using sdk::invalid;
using ull = unsigned long long;

constexpr const char* kSectionNames[3] = {"FrameContents", "Metadata", "Frames"};
constexpr uint64_t kDescriptorOffsets[3] = {16, 80, 144};
constexpr uint64_t kElementSizes[3] = {kFileEntrySize, kMetaEntrySize, kFrameRecordSize};
constexpr uint64_t kPaddingOffsets[2] = {64, 128};

std::string printable_magic(std::span<const uint8_t> m) {
    std::string s;
    for (uint8_t c : m) s += (c >= 0x20 && c < 0x7f) ? std::string(1, char(c)) : format("\\x%02x", c);
    return s;
}

} // namespace

Manifest parse_manifest_body(std::span<const uint8_t> body, const std::string& path, const WarnFn& warn) {
    if (body.size() < kBodyHeaderSize)
        invalid(0, path + format(": manifest body is %zu bytes, shorter than its 192-byte header", body.size()));
    sdk::ByteReader r(body.data(), body.size());
    Manifest m;
    m.body_size = body.size();
    m.package_count = r.u32(0);
    m.unknown_a = r.u32(4);
    m.unknown_b = r.u64(8);
    // Every descriptor is checked, and every table's end placed inside the
    // body, before a single entry is read or any vector sized from a count.
    uint64_t pos = kBodyHeaderSize;
    uint64_t starts[3];
    for (int s = 0; s < 3; ++s) {
        const uint64_t d = kDescriptorOffsets[s];
        SectionDescriptor& sd = m.sections[s];
        sd = {r.u64(d), r.u64(d + 8), r.u64(d + 16), r.u64(d + 24), r.u64(d + 32), r.u64(d + 40)};
        const std::string where =
            path + format(": %s section (descriptor at body offset %llu)", kSectionNames[s], (ull)d);
        if (sd.element_size != kElementSizes[s])
            invalid(d + 24, where + format(": element size %llu, expected %llu (unsupported manifest layout)",
                                           (ull)sd.element_size, (ull)kElementSizes[s]));
        if (sd.count != sd.element_count)
            invalid(d + 32, where + format(": count %llu differs from element count %llu", (ull)sd.count,
                                           (ull)sd.element_count));
        // element_count * size cannot overflow here: the size is at most 40, so
        // compare by division instead of multiplying a hostile count.
        if (sd.length % sd.element_size != 0 || sd.length / sd.element_size != sd.element_count)
            invalid(d, where + format(": length %llu is not %llu elements x %llu bytes", (ull)sd.length,
                                      (ull)sd.element_count, (ull)sd.element_size));
        if (sd.length > body.size() - pos)
            invalid(pos, where + format(": table at body offset %llu with %llu bytes runs past the end of the "
                                        "%zu-byte manifest body",
                                        (ull)pos, (ull)sd.length, body.size()));
        // Frame records are numbered by 32-bit fields (and loops): one past them could never be named.
        if (s == kFrames && sd.count > kField32Max)
            invalid(d + 32, where + format(": %llu frame records, more than the 32-bit frame index of a file entry "
                                           "can name (%llu)",
                                           (ull)sd.count, (ull)kField32Max));
        starts[s] = pos;
        pos += sd.length;
    }
    m.trailing.assign(body.begin() + long(pos), body.end());
    if (!m.trailing.empty() && warn)
        warn(path + format(": %zu unexplained bytes after the Frames table", m.trailing.size()));
    for (int k = 0; k < 2; ++k) std::copy_n(body.begin() + long(kPaddingOffsets[k]), 16, m.paddings[k].begin());

    m.files.resize(m.sections[kFrameContents].count);
    for (uint64_t i = 0; i < m.files.size(); ++i) {
        const uint64_t o = starts[kFrameContents] + i * kFileEntrySize;
        m.files[i] = {r.u64(o), r.u64(o + 8), r.u32(o + 16), r.u32(o + 20), r.u32(o + 24), r.u32(o + 28)};
    }
    m.metadata.resize(m.sections[kMetadata].count);
    for (uint64_t i = 0; i < m.metadata.size(); ++i) {
        const uint64_t o = starts[kMetadata] + i * kMetaEntrySize;
        m.metadata[i] = {r.u64(o), r.u64(o + 8), r.u64(o + 16), r.u64(o + 24), r.u64(o + 32)};
    }
    m.frames.resize(m.sections[kFrames].count);
    for (uint64_t i = 0; i < m.frames.size(); ++i) {
        const uint64_t o = starts[kFrames] + i * kFrameRecordSize;
        m.frames[i] = {r.u32(o), r.u32(o + 4), r.u32(o + 8), r.u32(o + 12)};
    }
    return m;
}

Manifest read_manifest(std::span<const uint8_t> file, const std::string& path, const Limits& limits,
                       const WarnFn& warn) {
    if (file.size() < kArchiveHeaderSize)
        invalid(0, path + format(": %zu bytes, too short for the 24-byte archive header", file.size()));
    sdk::ByteReader r(file.data(), file.size());
    const auto magic = file.subspan(0, 4);
    if (!(magic[0] == 'Z' && magic[1] == 'S' && magic[2] == 'T' && magic[3] == 'D')) {
        const bool bare = magic[0] == 0x28 && magic[1] == 0xB5 && magic[2] == 0x2F && magic[3] == 0xFD;
        invalid(0, path + ": archive magic '" + printable_magic(magic) + "', expected 'ZSTD'" +
                       (bare ? " (a bare zstd frame: the manifest lacks its archive header)" : ""));
    }
    const uint32_t header_length = r.u32(4);
    if (header_length != 16 && header_length != 24)
        invalid(4, path + format(": archive header-length field %u, expected 16", header_length));
    if (header_length == 24 && warn)
        warn(path + ": archive header-length field is 24 (an old community writer's value; 16 expected)");
    const uint64_t length = r.u64(8), compressed = r.u64(16);
    const uint64_t follow = file.size() - kArchiveHeaderSize;
    if (compressed != follow)
        invalid(16, path + format(": archive header says %llu compressed bytes, %llu follow the header (%s)",
                                  (ull)compressed, (ull)follow,
                                  compressed > follow ? "truncated manifest" : "trailing bytes"));
    if (length < kBodyHeaderSize || length > limits.max_manifest_bytes)
        invalid(8, path + format(": archive header says the manifest body has %llu bytes (needs 192 .. %llu)",
                                 (ull)length, (ull)limits.max_manifest_bytes));
    const FrameBytes body = decompress_frame(file.subspan(kArchiveHeaderSize), length,
                                             path + ": manifest payload at offset 24", "the archive header");
    Manifest m = parse_manifest_body(body.bytes(), path, warn);
    m.header_length = header_length;
    return m;
}

} // namespace af::evr
