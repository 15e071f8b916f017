#include "tree_build.hpp"

#include "frame_packer.hpp"
#include "manifest_writer.hpp"
#include "repack.hpp"

#include "assetforge/error.hpp"

#include <algorithm>
#include <map>

namespace af::evr {

// New files are padded to 16 as the community repacker pads them; the
// offsets are stored, so padding never hurts a reader.
constexpr uint32_t kNewAlignment = 16;

SetImage build_set(std::vector<TreeEntry> entries, const BuildOptions& opts, const af_host* host, const WarnFn& warn) {
    check_unique(entries);
    std::sort(entries.begin(), entries.end(), [](const TreeEntry& a, const TreeEntry& b) {
        return std::tie(a.group, a.type, a.file) < std::tie(b.group, b.type, b.file);
    });
    std::map<uint64_t, std::span<const uint8_t>> metas;
    for (const auto& e : entries)
        if (e.type == kTypeTextureMeta) metas[e.file] = e.bytes;
    std::vector<PackItem> items;
    items.reserve(entries.size());
    for (const auto& e : entries) {
        auto it = metas.find(e.file);
        const std::span<const uint8_t> b =
            stored_bytes(e, it == metas.end() ? std::span<const uint8_t>() : it->second, warn);
        items.push_back({e.group, kNewAlignment, b, e.where});
    }
    // Sizes are checked here, before any frame is packed or compressed.
    PackedFrames packed = pack_frames(items, opts.frame_limit, opts.limits);
    Manifest m = new_manifest();
    for (size_t i = 0; i < entries.size(); ++i) {
        m.files.push_back({entries[i].type, entries[i].file, packed.at[i].frame, packed.at[i].offset,
                           field32(items[i].bytes.size(), "size", [&] { return entries[i].where; }), kNewAlignment});
        m.metadata.push_back({entries[i].type, entries[i].file, 0, 0, 0});
    }
    return assemble_set(std::move(m), compress_all(std::move(packed.frames), host), FrameRecord{}, opts.part_limit,
                        opts.limits);
}

} // namespace af::evr
