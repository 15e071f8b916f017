#include "zstd_frame.hpp"

#include "assetforge/error.hpp"

#include <zstd.h>
#include <zstd_errors.h>

namespace af::evr {

namespace {

using sdk::format;
using sdk::invalid;

struct DctxFree {
    void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
};

// One decoder context per thread: frames are decoded in parallel, and a
// context is costly enough (about 160 KB) not to make one per frame.
ZSTD_DCtx* thread_dctx() {
    thread_local std::unique_ptr<ZSTD_DCtx, DctxFree> ctx(ZSTD_createDCtx());
    if (!ctx) sdk::fail(AF_ERR_NO_MEMORY, AF_NO_OFFSET, "cannot create a zstd decoder");
    return ctx.get();
}

// The frame header fields this reader needs, parsed here rather than through
// libzstd's experimental API so any libzstd 1.4+ will do.
struct FrameHeader {
    uint64_t header_size = 0;
    uint64_t content_size = 0;
    bool has_content_size = false;
    uint64_t block_size_max = 0;
};

FrameHeader frame_header(std::span<const uint8_t> in, const std::string& what) {
    auto need = [&](uint64_t n) {
        if (in.size() < n) invalid(0, what + format(": %zu bytes cannot hold a zstd frame header", in.size()));
    };
    need(6);
    const uint32_t magic = uint32_t(in[0]) | uint32_t(in[1]) << 8 | uint32_t(in[2]) << 16 | uint32_t(in[3]) << 24;
    if ((magic & 0xFFFFFFF0u) == 0x184D2A50u) invalid(0, what + ": a zstd skippable frame, not a data frame");
    if (magic != 0xFD2FB528u) invalid(0, what + format(": not a zstd frame (magic %08x)", magic));
    const uint8_t fhd = in[4];
    if (fhd & 0x08) invalid(4, what + ": zstd frame header has its reserved bit set");
    const bool single_segment = fhd & 0x20;
    static constexpr uint64_t kDictBytes[4] = {0, 1, 2, 4}, kFcsBytes[4] = {0, 2, 4, 8};
    const uint64_t dict_bytes = kDictBytes[fhd & 3];
    const uint64_t fcs_bytes = (fhd >> 6) == 0 && single_segment ? 1 : kFcsBytes[fhd >> 6];
    FrameHeader h;
    h.header_size = 5 + (single_segment ? 0 : 1) + dict_bytes + fcs_bytes;
    need(h.header_size);
    uint64_t pos = 5, window = 0;
    if (!single_segment) {
        const uint8_t wd = in[pos++];
        const uint64_t base = uint64_t(1) << (10 + (wd >> 3));
        window = base + base / 8 * (wd & 7);
    }
    uint64_t dict = 0;
    for (uint64_t i = 0; i < dict_bytes; ++i) dict |= uint64_t(in[pos + i]) << (8 * i);
    // Package frames are independent: a dictionary would be state shared between them.
    if (dict != 0) invalid(pos, what + format(": zstd frame needs dictionary %llu", (unsigned long long)dict));
    pos += dict_bytes;
    if (fcs_bytes) {
        for (uint64_t i = 0; i < fcs_bytes; ++i) h.content_size |= uint64_t(in[pos + i]) << (8 * i);
        if (fcs_bytes == 2) h.content_size += 256;
        h.has_content_size = true;
    }
    if (single_segment) window = h.content_size;
    h.block_size_max = window < (128u << 10) ? window : (128u << 10);
    return h;
}

} // namespace

uint64_t frame_output_bound(std::span<const uint8_t> in, const std::string& what) {
    FrameHeader h = frame_header(in, what);
    uint64_t pos = h.header_size, bound = 0;
    for (;;) {
        if (in.size() - pos < 3)
            invalid(pos, what + format(": zstd frame is incomplete (block header at %llu)", (unsigned long long)pos));
        uint32_t bh = uint32_t(in[pos]) | uint32_t(in[pos + 1]) << 8 | uint32_t(in[pos + 2]) << 16;
        pos += 3;
        const uint32_t type = (bh >> 1) & 3, size = bh >> 3;
        // Raw and RLE blocks say exactly what they produce; a compressed block
        // produces at most the frame's block size limit.
        const uint64_t payload = type == 1 ? 1 : type == 3 ? 0 : size;
        if (type == 3) invalid(pos - 3, what + ": zstd block of reserved type");
        if (in.size() - pos < payload)
            invalid(pos, what + format(": zstd frame is incomplete (block of %llu bytes at %llu)",
                                       (unsigned long long)payload, (unsigned long long)pos));
        pos += payload;
        bound += type == 2 ? h.block_size_max : size;
        if (bh & 1) break;
    }
    return bound;
}

FrameBytes decompress_frame(std::span<const uint8_t> in, uint64_t length, const std::string& what, const char* claim) {
    const FrameHeader h = frame_header(in, what);
    if (h.has_content_size && h.content_size != length)
        invalid(0, what + format(": zstd frame declares %llu bytes, %s says %llu", (unsigned long long)h.content_size,
                                 claim, (unsigned long long)length));
    const size_t frame_size = ZSTD_findFrameCompressedSize(in.data(), in.size());
    if (ZSTD_isError(frame_size))
        invalid(0, what + ": zstd frame is incomplete or corrupt (" + ZSTD_getErrorName(frame_size) + ")");
    if (frame_size < in.size())
        invalid(frame_size, what + format(": %llu bytes follow the end of the zstd frame",
                                          (unsigned long long)(in.size() - frame_size)));
    const uint64_t bound = frame_output_bound(in, what);
    if (length > bound)
        invalid(0, what + format(": zstd frame can produce at most %llu bytes, %s says %llu", (unsigned long long)bound,
                                 claim, (unsigned long long)length));
    FrameBytes out;
    out.data = std::make_unique_for_overwrite<uint8_t[]>(length ? length : 1);
    // One-shot decoding writes straight into `out`, so no window buffer is
    // allocated and the output can never pass `length`.
    const size_t r = ZSTD_decompressDCtx(thread_dctx(), out.data.get(), length, in.data(), frame_size);
    if (ZSTD_isError(r)) {
        if (ZSTD_getErrorCode(r) == ZSTD_error_dstSize_tooSmall)
            invalid(0, what + format(": decompresses to more than the %llu bytes %s says", (unsigned long long)length,
                                     claim));
        invalid(0, what + ": zstd error: " + ZSTD_getErrorName(r));
    }
    if (r != length)
        invalid(0, what + format(": decompresses to %zu bytes, %s says %llu", r, claim, (unsigned long long)length));
    out.size = length;
    return out;
}

} // namespace af::evr
