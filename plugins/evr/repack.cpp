#include "repack.hpp"

#include "dds_strip.hpp"
#include "frame_packer.hpp"
#include "manifest_writer.hpp"
#include "parallel_jobs.hpp"
#include "raw_texture.hpp"

#include "assetforge/bytes.hpp"
#include "assetforge/dds_header.hpp"
#include "assetforge/error.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace af::evr {

using sdk::format;
using ull = unsigned long long;

bool strips_header(const TreeEntry& e) { return e.type == kTypeRawBc && e.ext == ".dds"; }

std::span<const uint8_t> stored_bytes(const TreeEntry& e, std::span<const uint8_t> meta, const WarnFn& warn) {
    const std::span<const uint8_t> b = e.bytes;
    if (strips_header(e)) return raw_bc_from_dds(b, meta, e.where);
    if (e.type == kTypeTextureMeta && b.size() != kTextureMetaSize)
        sdk::fail(AF_ERR_INVALID_DATA, AF_NO_OFFSET,
                  e.where + format(": texture metadata is 256 bytes, this file has %zu (its layout is not verified, "
                                   "so it is never rewritten)",
                                   b.size()));
    if (e.type == kTypeDds && warn &&
        !(b.size() >= 4 && sdk::ByteReader(b.data(), b.size()).u32(0) == sdk::dds::kMagic))
        warn(e.where + ": a texture_dds file that does not start with 'DDS '");
    return b;
}

RepackReport repack_set(const PackageSet& set, std::vector<TreeEntry> repl, const RepackOptions& opts,
                        const af_host* host, const WarnFn& warn) {
    const Manifest& m = set.manifest();
    check_unique(repl);
    std::map<std::pair<uint64_t, uint64_t>, uint64_t> index;
    for (uint64_t j = 0; j < m.files.size(); ++j) index[{m.files[j].type, m.files[j].file}] = j;

    // Which replacement goes where; which frames must be decoded to compare,
    // to rebuild, or to read the texture metadata a DDS is checked against.
    std::vector<const TreeEntry*> by_file(m.files.size(), nullptr);
    std::vector<const TreeEntry*> added;
    std::map<uint64_t, const TreeEntry*> new_meta; // file symbol -> replacement metadata
    std::set<uint32_t> need;
    for (const auto& e : repl) {
        auto it = index.find({e.type, e.file});
        if (e.type == kTypeTextureMeta) new_meta[e.file] = &e;
        if (it == index.end()) {
            if (!opts.add_new)
                sdk::fail(AF_ERR_INVALID_DATA, AF_NO_OFFSET,
                          e.where + ": the set has no file " + hex16(e.type) + "/" + hex16(e.file) +
                              " (replace changes existing files; --add-new appends new ones)");
            added.push_back(&e);
            continue;
        }
        by_file[it->second] = &e;
        need.insert(m.files[it->second].frame);
    }
    std::map<uint64_t, uint64_t> meta_file; // file symbol -> index of its texture metadata in the set
    for (uint64_t j = 0; j < m.files.size(); ++j)
        if (m.files[j].type == kTypeTextureMeta) meta_file[m.files[j].file] = j;
    for (const auto& e : repl)
        if (strips_header(e) && !new_meta.count(e.file))
            if (auto it = meta_file.find(e.file); it != meta_file.end()) need.insert(m.files[it->second].frame);

    std::vector<uint32_t> frames_needed;
    for (uint32_t f : need)
        if (m.frames[f].is_data()) frames_needed.push_back(f);
    std::vector<FrameBytes> decoded(frames_needed.size());
    run_jobs(host, frames_needed.size(), [&](uint64_t i) { decoded[i] = set.decompress(frames_needed[i]); });
    std::map<uint32_t, std::span<const uint8_t>> frame_data;
    for (size_t i = 0; i < frames_needed.size(); ++i) frame_data[frames_needed[i]] = decoded[i].bytes();
    auto original = [&](uint64_t j) -> std::span<const uint8_t> {
        const FileEntry& f = m.files[j];
        if (!f.size) return {};
        auto it = frame_data.find(f.frame);
        if (it == frame_data.end()) // a planning slip here must name the file, never surface as map::at
            sdk::fail(AF_ERR_INTERNAL, AF_NO_OFFSET,
                      set.location().manifest.string() + format(": file %llu (%s/%s): frame %u was not decoded", (ull)j,
                                                                hex16(f.type).c_str(), hex16(f.file).c_str(), f.frame));
        return it->second.subspan(f.offset, f.size);
    };
    // Only a raw BC texture given as DDS is checked against its texture
    // metadata; a DDS-type texture may have metadata too (in any frame), but
    // nothing of it is needed, and its frame was not decoded for it.
    auto meta_for = [&](const TreeEntry& e) -> std::span<const uint8_t> {
        if (!strips_header(e)) return {};
        if (auto it = new_meta.find(e.file); it != new_meta.end()) return it->second->bytes;
        if (auto it = meta_file.find(e.file); it != meta_file.end()) return original(it->second);
        return {};
    };

    // The new stored bytes of every replaced file; equal bytes are no change.
    RepackReport rep;
    std::vector<std::span<const uint8_t>> content(m.files.size());
    std::vector<char> changed(m.files.size(), 0);
    std::set<uint32_t> rebuild;
    for (uint64_t j = 0; j < m.files.size(); ++j) {
        if (!by_file[j]) continue;
        const std::span<const uint8_t> b = stored_bytes(*by_file[j], meta_for(*by_file[j]), warn);
        const std::span<const uint8_t> old = original(j);
        if (b.size() == old.size() && std::equal(b.begin(), b.end(), old.begin())) {
            ++rep.unchanged;
            continue;
        }
        if (b.size() > 0xffffffffull)
            sdk::fail(AF_ERR_INVALID_DATA, AF_NO_OFFSET, by_file[j]->where + ": larger than a file entry can describe");
        content[j] = b;
        changed[j] = 1;
        rep.changed.push_back(j);
        rebuild.insert(m.files[j].frame);
    }

    // Rebuilt frames: the same files in the order of their original offsets,
    // each at a multiple of its alignment. A changed file in an empty record
    // (an empty file) moves to a frame of its own among the new ones.
    std::map<uint32_t, std::vector<uint64_t>> members;
    for (uint64_t j = 0; j < m.files.size(); ++j)
        if (rebuild.count(m.files[j].frame)) members[m.files[j].frame].push_back(j);
    Manifest out = m;
    std::vector<uint32_t> rebuilt_ids;
    std::vector<std::vector<uint8_t>> rebuilt_raw;
    std::vector<uint64_t> orphans; // changed files whose record held no data
    for (auto& [fi, list] : members) {
        if (!m.frames[fi].is_data()) {
            for (uint64_t j : list)
                if (changed[j]) orphans.push_back(j);
            continue;
        }
        std::stable_sort(list.begin(), list.end(),
                         [&](uint64_t a, uint64_t b) { return m.files[a].offset < m.files[b].offset; });
        std::vector<uint8_t> frame;
        for (uint64_t j : list) {
            const std::span<const uint8_t> b = changed[j] ? content[j] : original(j);
            out.files[j].offset = uint32_t(place(frame, m.files[j].alignment, b));
            out.files[j].size = uint32_t(b.size());
        }
        rebuilt_ids.push_back(fi);
        rebuilt_raw.push_back(std::move(frame));
    }
    std::vector<OutFrame> rebuilt = compress_all(std::move(rebuilt_raw), host);
    rep.frames_rebuilt = rebuilt.size();
    std::map<uint32_t, size_t> rebuilt_at;
    for (size_t k = 0; k < rebuilt_ids.size(); ++k) rebuilt_at[rebuilt_ids[k]] = k;

    // A copied frame is never decompressed for its own sake, but a damaged one
    // would carry its damage into the new set: each is checked (decoded and
    // dropped) so the result passes every reader check the input failed.
    std::vector<uint32_t> unchecked;
    for (uint32_t i = 0; i < m.frames.size(); ++i)
        if (m.frames[i].is_data() && !frame_data.count(i)) unchecked.push_back(i);
    run_jobs(host, unchecked.size(), [&](uint64_t k) { (void)set.decompress(unchecked[k]); });

    // Data frames in table order: copied as they are, or rebuilt.
    std::vector<OutFrame> frames;
    std::vector<uint32_t> new_index(m.frames.size(), kNoFrame);
    for (uint32_t i = 0; i < m.frames.size(); ++i) {
        if (!m.frames[i].is_data()) continue;
        new_index[i] = uint32_t(frames.size());
        if (auto it = rebuilt_at.find(i); it != rebuilt_at.end()) {
            frames.push_back(std::move(rebuilt[it->second]));
        } else {
            frames.push_back({set.compressed(i), nullptr, m.frames[i].length});
            ++rep.frames_copied;
        }
    }
    for (uint64_t j = 0; j < out.files.size(); ++j) {
        out.files[j].frame = new_index[m.files[j].frame];
        if (out.files[j].frame == kNoFrame) out.files[j].offset = 0;
    }

    // Added files, and changed empty-record files, go to new frames after the original ones.
    std::vector<PackItem> items;
    for (uint64_t j : orphans) items.push_back({-1, std::max<uint32_t>(1, m.files[j].alignment), content[j]});
    for (const TreeEntry* e : added) items.push_back({-1, 16, stored_bytes(*e, meta_for(*e), warn)});
    PackedFrames packed = pack_frames(items, opts.frame_limit);
    const uint32_t base = uint32_t(frames.size());
    for (auto& f : compress_all(std::move(packed.frames), host)) frames.push_back(std::move(f));
    auto at = [&](size_t k) {
        return packed.at[k].frame == kNoFrame ? std::pair(kNoFrame, 0u)
                                              : std::pair(base + packed.at[k].frame, packed.at[k].offset);
    };
    for (size_t k = 0; k < orphans.size(); ++k) {
        FileEntry& f = out.files[orphans[k]];
        std::tie(f.frame, f.offset) = at(k);
        f.size = uint32_t(items[k].bytes.size());
    }
    for (size_t k = 0; k < added.size(); ++k) {
        const size_t item = orphans.size() + k;
        FileEntry f{added[k]->type, added[k]->file, 0, 0, uint32_t(items[item].bytes.size()), 16};
        std::tie(f.frame, f.offset) = at(item);
        out.files.push_back(f);
        out.metadata.push_back({f.type, f.file, 0, 0, 0});
        ++rep.added;
    }
    const FrameRecord final_record = m.frames.empty() || m.frames.back().is_data() ? FrameRecord{} : m.frames.back();
    rep.image = assemble_set(std::move(out), std::move(frames), final_record, opts.part_limit);
    return rep;
}

} // namespace af::evr
