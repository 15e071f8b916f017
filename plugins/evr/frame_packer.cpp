#include "frame_packer.hpp"

#include "manifest_writer.hpp"

#include "parallel_jobs.hpp"

#include "assetforge/error.hpp"

#include <algorithm>

namespace af::evr {

uint64_t place(std::vector<uint8_t>& frame, uint32_t alignment, std::span<const uint8_t> bytes) {
    const uint64_t a = std::max<uint32_t>(1, alignment);
    frame.resize((frame.size() + a - 1) / a * a, 0);
    const uint64_t at = frame.size();
    frame.insert(frame.end(), bytes.begin(), bytes.end());
    return at;
}

uint64_t placed_end(uint64_t size, uint32_t alignment, uint64_t bytes) {
    const uint64_t a = std::max<uint32_t>(1, alignment);
    // Frame sizes here are held to 32 bits, so none of this wraps.
    return (size + a - 1) / a * a + bytes;
}

PackedFrames pack_frames(const std::vector<PackItem>& items, uint64_t frame_limit, const Limits& limits) {
    const uint64_t capacity = frame_capacity(limits);
    for (const PackItem& it : items)
        if (it.bytes.size() > capacity)
            sdk::fail(AF_ERR_INVALID_DATA, AF_NO_OFFSET,
                      it.where + ": " + over_frame_capacity(it.bytes.size(), limits));
    // A file alone in a frame may pass `frame_limit`, never the capacity.
    frame_limit = std::min(frame_limit, capacity);
    PackedFrames out;
    out.at.resize(items.size());
    std::vector<uint8_t> cur;
    std::vector<size_t> waiting; // placed in `cur`, frame index given when it is flushed
    auto flush = [&] {
        if (cur.empty()) return;
        const uint32_t index = field32(out.frames.size(), "frame index", [] { return std::string("new frames"); });
        for (size_t i : waiting) out.at[i].frame = index;
        waiting.clear();
        out.frames.push_back(std::move(cur));
        cur.clear();
    };
    int64_t group = items.empty() ? -1 : items[0].group;
    for (size_t i = 0; i < items.size(); ++i) {
        const PackItem& it = items[i];
        if (it.group != group) flush();
        group = it.group;
        const uint64_t end = placed_end(cur.size(), it.alignment, it.bytes.size());
        // An empty file's padding alone can carry a full frame past its capacity.
        if (!cur.empty() && ((!it.bytes.empty() && end > frame_limit) || end > capacity)) flush();
        // In a fresh frame the file sits at 0 and fits (checked above).
        out.at[i].offset = uint32_t(place(cur, it.alignment, it.bytes));
        waiting.push_back(i);
    }
    flush();
    // Only empty files can be left: they go to the end of the last frame.
    for (size_t i : waiting) {
        if (out.frames.empty()) {
            out.at[i] = {kNoFrame, 0};
        } else {
            out.at[i] = {uint32_t(out.frames.size() - 1), uint32_t(out.frames.back().size())};
        }
    }
    return out;
}

std::vector<OutFrame> compress_all(std::vector<std::vector<uint8_t>> frames, const af_host* host) {
    std::vector<OutFrame> out(frames.size());
    run_jobs(host, frames.size(), [&](uint64_t i) {
        auto z = std::make_shared<const std::vector<uint8_t>>(compress_frame(frames[i], kFrameLevel));
        out[i].compressed = *z;
        out[i].owned = std::move(z);
        out[i].length = frames[i].size();
        std::vector<uint8_t>().swap(frames[i]); // the decompressed copy is no longer needed
    });
    return out;
}

} // namespace af::evr
