#include "manifest_writer.hpp"

#include "assetforge/bytes.hpp"
#include "assetforge/error.hpp"

#include <zstd.h>

namespace af::evr {

namespace {

void descriptor(sdk::ByteWriter& w, const SectionDescriptor& d, uint64_t element_size, uint64_t count) {
    w.u64(element_size * count);
    w.u64(d.unknown_c);
    w.u64(d.unknown_d);
    w.u64(element_size);
    w.u64(count);
    w.u64(count);
}

} // namespace

Manifest new_manifest() {
    Manifest m;
    m.unknown_a = 524288;
    m.unknown_b = 0;
    for (auto& s : m.sections) s.unknown_d = uint64_t(1) << 32;
    return m;
}

std::vector<uint8_t> manifest_body(const Manifest& m) {
    const uint64_t size = kBodyHeaderSize + m.files.size() * kFileEntrySize + m.metadata.size() * kMetaEntrySize +
                          m.frames.size() * kFrameRecordSize + m.trailing.size();
    sdk::ByteWriter w(size);
    w.u32(m.package_count);
    w.u32(m.unknown_a);
    w.u64(m.unknown_b);
    descriptor(w, m.sections[kFrameContents], kFileEntrySize, m.files.size());
    w.append(m.paddings[0].data(), 16);
    descriptor(w, m.sections[kMetadata], kMetaEntrySize, m.metadata.size());
    w.append(m.paddings[1].data(), 16);
    descriptor(w, m.sections[kFrames], kFrameRecordSize, m.frames.size());
    for (const auto& f : m.files) {
        w.u64(f.type);
        w.u64(f.file);
        w.u32(f.frame);
        w.u32(f.offset);
        w.u32(f.size);
        w.u32(f.alignment);
    }
    for (const auto& e : m.metadata) {
        w.u64(e.type);
        w.u64(e.file);
        w.u64(e.unknown_e);
        w.u64(e.unknown_f);
        w.u64(e.asset_type);
    }
    for (const auto& r : m.frames) {
        w.u32(r.package);
        w.u32(r.offset);
        w.u32(r.csize);
        w.u32(r.length);
    }
    w.append(m.trailing);
    return std::move(w).bytes();
}

std::vector<uint8_t> compress_frame(std::span<const uint8_t> data, int level) {
    std::vector<uint8_t> out(ZSTD_compressBound(data.size()));
    // The simple API writes the content size when it knows it, and no checksum.
    const size_t n = ZSTD_compress(out.data(), out.size(), data.data(), data.size(), level);
    if (ZSTD_isError(n))
        sdk::fail(AF_ERR_INTERNAL, AF_NO_OFFSET, std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
    out.resize(n);
    return out;
}

std::vector<uint8_t> manifest_archive(std::span<const uint8_t> body) {
    const std::vector<uint8_t> z = compress_frame(body, kFrameLevel);
    sdk::ByteWriter w(kArchiveHeaderSize + z.size());
    w.append("ZSTD", 4);
    w.u32(16); // the bytes of header after this field; 24 from an old writer is only read, never written
    w.u64(body.size());
    w.u64(z.size());
    w.append(z);
    return std::move(w).bytes();
}

} // namespace af::evr
