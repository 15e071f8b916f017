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

namespace {

// Where each replacement goes, and which frames must be decoded to compare,
// to rebuild, or to read the texture metadata a DDS is checked against.
struct ReplacementPlan {
    std::vector<const TreeEntry*> by_file;         // per file index: its replacement, or null
    std::vector<const TreeEntry*> added;           // replacements the set has no file for
    std::map<uint64_t, const TreeEntry*> new_meta; // file symbol -> replacement metadata
    std::map<uint64_t, uint64_t> meta_file;        // file symbol -> index of its texture metadata in the set
    std::set<uint32_t> need;                       // frames to decode
};

ReplacementPlan plan_replacements(const Manifest& m, const std::vector<TreeEntry>& repl, const RepackOptions& opts) {
    std::map<std::pair<uint64_t, uint64_t>, uint64_t> index;
    for (uint64_t j = 0; j < m.files.size(); ++j) index[{m.files[j].type, m.files[j].file}] = j;
    ReplacementPlan plan;
    plan.by_file.assign(m.files.size(), nullptr);
    for (const auto& e : repl) {
        auto it = index.find({e.type, e.file});
        if (e.type == kTypeTextureMeta) plan.new_meta[e.file] = &e;
        if (it == index.end()) {
            if (!opts.add_new)
                sdk::fail(AF_ERR_INVALID_DATA, AF_NO_OFFSET,
                          e.where + ": the set has no file " + hex16(e.type) + "/" + hex16(e.file) +
                              " (replace changes existing files; --add-new appends new ones)");
            plan.added.push_back(&e);
            continue;
        }
        plan.by_file[it->second] = &e;
        plan.need.insert(m.files[it->second].frame);
    }
    for (uint64_t j = 0; j < m.files.size(); ++j)
        if (m.files[j].type == kTypeTextureMeta) plan.meta_file[m.files[j].file] = j;
    for (const auto& e : repl)
        if (strips_header(e) && !plan.new_meta.count(e.file))
            if (auto it = plan.meta_file.find(e.file); it != plan.meta_file.end())
                plan.need.insert(m.files[it->second].frame);
    return plan;
}

// The decoded frames the plan needs, and the original bytes of files in them.
class Originals {
  public:
    Originals(const PackageSet& set, const ReplacementPlan& plan, const af_host* host)
        : set_(set), m_(set.manifest()), plan_(plan) {
        std::vector<uint32_t> frames_needed;
        for (uint32_t f : plan.need)
            if (m_.frames[f].is_data()) frames_needed.push_back(f);
        decoded_.resize(frames_needed.size());
        run_jobs(host, frames_needed.size(), [&](uint64_t i) { decoded_[i] = set.decompress(frames_needed[i]); });
        for (size_t i = 0; i < frames_needed.size(); ++i) frame_data_[frames_needed[i]] = decoded_[i].bytes();
    }

    bool decoded(uint32_t frame) const { return frame_data_.count(frame) != 0; }

    std::span<const uint8_t> file(uint64_t j) const {
        const FileEntry& f = m_.files[j];
        if (!f.size) return {};
        auto it = frame_data_.find(f.frame);
        if (it == frame_data_.end()) // a planning slip here must name the file, never surface as map::at
            sdk::fail(AF_ERR_INTERNAL, AF_NO_OFFSET,
                      set_.location().manifest.string() + format(": file %llu (%s/%s): frame %u was not decoded",
                                                                 (ull)j, hex16(f.type).c_str(), hex16(f.file).c_str(),
                                                                 f.frame));
        return it->second.subspan(f.offset, f.size);
    }

    // Only a raw BC texture given as DDS is checked against its texture
    // metadata; a DDS-type texture may have metadata too (in any frame), but
    // nothing of it is needed, and its frame was not decoded for it.
    std::span<const uint8_t> meta_for(const TreeEntry& e) const {
        if (!strips_header(e)) return {};
        if (auto it = plan_.new_meta.find(e.file); it != plan_.new_meta.end()) return it->second->bytes;
        if (auto it = plan_.meta_file.find(e.file); it != plan_.meta_file.end()) return file(it->second);
        return {};
    }

  private:
    const PackageSet& set_;
    const Manifest& m_;
    const ReplacementPlan& plan_;
    std::vector<FrameBytes> decoded_;
    std::map<uint32_t, std::span<const uint8_t>> frame_data_;
};

// The new stored bytes of every replaced file; equal bytes are no change.
struct Changes {
    std::vector<std::span<const uint8_t>> content; // per file index, when changed
    std::vector<char> changed;
    std::set<uint32_t> rebuild; // frames holding a changed file
};

Changes find_changes(const Manifest& m, const ReplacementPlan& plan, const Originals& orig, const Limits& limits,
                     const WarnFn& warn, RepackReport& rep) {
    Changes c;
    c.content.resize(m.files.size());
    c.changed.assign(m.files.size(), 0);
    for (uint64_t j = 0; j < m.files.size(); ++j) {
        const TreeEntry* e = plan.by_file[j];
        if (!e) continue;
        const std::span<const uint8_t> b = stored_bytes(*e, orig.meta_for(*e), warn);
        const std::span<const uint8_t> old = orig.file(j);
        if (b.size() == old.size() && std::equal(b.begin(), b.end(), old.begin())) {
            ++rep.unchanged;
            continue;
        }
        if (b.size() > frame_capacity(limits))
            sdk::fail(AF_ERR_INVALID_DATA, AF_NO_OFFSET, e->where + ": " + over_frame_capacity(b.size(), limits));
        c.content[j] = b;
        c.changed[j] = 1;
        rep.changed.push_back(j);
        c.rebuild.insert(m.files[j].frame);
    }
    return c;
}

struct RebuiltFrames {
    std::vector<OutFrame> frames;  // compressed, in the order of `at`
    std::map<uint32_t, size_t> at; // original frame index -> position in `frames`
    std::vector<uint64_t> orphans; // changed files whose record held no data
};

// Rebuilt frames: the same files in the order of their original offsets,
// each at a multiple of its alignment. A changed file in an empty record
// (an empty file) moves to a frame of its own among the new ones. Offsets
// and sizes are updated in `out`. Every frame's new size is counted before
// any is built: larger replacements, or a hostile alignment's padding, must
// not make one pass what a frame may hold, nor cost the memory to find out.
RebuiltFrames rebuild_frames(const PackageSet& set, const ReplacementPlan& plan, const Changes& c,
                             const Originals& orig, const Limits& limits, Manifest& out, const af_host* host) {
    const Manifest& m = set.manifest();
    std::map<uint32_t, std::vector<uint64_t>> members;
    for (uint64_t j = 0; j < m.files.size(); ++j)
        if (c.rebuild.count(m.files[j].frame)) members[m.files[j].frame].push_back(j);
    RebuiltFrames r;
    std::vector<uint32_t> ids;
    std::vector<std::vector<uint8_t>> raw;
    for (auto& [fi, list] : members) {
        if (!m.frames[fi].is_data()) {
            for (uint64_t j : list)
                if (c.changed[j]) r.orphans.push_back(j);
            continue;
        }
        std::stable_sort(list.begin(), list.end(),
                         [&](uint64_t a, uint64_t b) { return m.files[a].offset < m.files[b].offset; });
        uint64_t size = 0;
        for (uint64_t j : list) {
            const uint64_t n = c.changed[j] ? c.content[j].size() : m.files[j].size;
            // Never wraps: the sum so far is capped, the padding and the size are 32-bit.
            size = placed_end(size, m.files[j].alignment, n);
            if (size <= frame_capacity(limits)) continue;
            const auto changed = std::find_if(list.begin(), list.end(), [&](uint64_t k) { return c.changed[k]; });
            sdk::fail(AF_ERR_INVALID_DATA, AF_NO_OFFSET,
                      set.location().manifest.string() + ": " + set.describe_frame(fi) + ": rebuilt with " +
                          plan.by_file[*changed]->where + format(", its %zu files would take at least ", list.size()) +
                          over_frame_capacity(size, limits));
        }
    }
    for (auto& [fi, list] : members) {
        if (!m.frames[fi].is_data()) continue;
        std::vector<uint8_t> frame;
        for (uint64_t j : list) {
            const std::span<const uint8_t> b = c.changed[j] ? c.content[j] : orig.file(j);
            const auto where = [&] { return set.location().manifest.string() + ": " + file_label(j, m.files[j]); };
            out.files[j].offset = field32(place(frame, m.files[j].alignment, b), "offset", where);
            out.files[j].size = field32(b.size(), "size", where);
        }
        ids.push_back(fi);
        raw.push_back(std::move(frame));
    }
    r.frames = compress_all(std::move(raw), host);
    for (size_t k = 0; k < ids.size(); ++k) r.at[ids[k]] = k;
    return r;
}

// A copied frame is never decompressed for its own sake, but a damaged one
// would carry its damage into the new set: each is checked (decoded and
// dropped) so the result passes every reader check the input failed.
void check_copied_frames(const PackageSet& set, const Originals& orig, const af_host* host) {
    const Manifest& m = set.manifest();
    std::vector<uint32_t> unchecked;
    for (uint32_t i = 0; i < m.frames.size(); ++i)
        if (m.frames[i].is_data() && !orig.decoded(i)) unchecked.push_back(i);
    run_jobs(host, unchecked.size(), [&](uint64_t k) { (void)set.decompress(unchecked[k]); });
}

// Data frames in table order: copied as they are, or rebuilt, each with the part
// it was in when the layout is kept; files in `out` point at the new frame numbers.
std::vector<OutFrame> table_frames(const PackageSet& set, RebuiltFrames& rebuilt, bool keep_layout, Manifest& out,
                                   RepackReport& rep) {
    const Manifest& m = set.manifest();
    std::vector<OutFrame> frames;
    std::vector<uint32_t> new_index(m.frames.size(), kNoFrame);
    for (uint32_t i = 0; i < m.frames.size(); ++i) {
        if (!m.frames[i].is_data()) continue;
        new_index[i] = uint32_t(frames.size()); // below the reader's record count, itself below kNoFrame
        if (auto it = rebuilt.at.find(i); it != rebuilt.at.end()) {
            frames.push_back(std::move(rebuilt.frames[it->second]));
        } else {
            frames.push_back({set.compressed(i), nullptr, m.frames[i].length});
            ++rep.frames_copied;
        }
        if (keep_layout) frames.back().part = m.frames[i].package;
    }
    for (uint64_t j = 0; j < out.files.size(); ++j) {
        out.files[j].frame = new_index[m.files[j].frame];
        if (out.files[j].frame == kNoFrame) out.files[j].offset = 0;
    }
    return frames;
}

// Added files, and changed empty-record files, go to new frames after the original ones.
void append_new_files(const Manifest& m, const std::vector<uint64_t>& orphans, const Changes& c,
                      const ReplacementPlan& plan, const Originals& orig, const RepackOptions& opts,
                      const af_host* host, const WarnFn& warn, Manifest& out, std::vector<OutFrame>& frames,
                      RepackReport& rep) {
    std::vector<PackItem> items;
    for (uint64_t j : orphans)
        items.push_back({-1, std::max<uint32_t>(1, m.files[j].alignment), c.content[j], plan.by_file[j]->where});
    for (const TreeEntry* e : plan.added)
        items.push_back({-1, 16, stored_bytes(*e, orig.meta_for(*e), warn), e->where});
    // Sizes are checked here, before any frame is packed or compressed.
    PackedFrames packed = pack_frames(items, opts.frame_limit, opts.limits);
    const uint64_t base = frames.size();
    for (auto& f : compress_all(std::move(packed.frames), host)) frames.push_back(std::move(f));
    auto at = [&](size_t k) {
        if (packed.at[k].frame == kNoFrame) return std::pair(kNoFrame, 0u);
        const uint32_t frame = field32(base + packed.at[k].frame, "frame index", [&] { return items[k].where; });
        return std::pair(frame, packed.at[k].offset);
    };
    for (size_t k = 0; k < orphans.size(); ++k) {
        FileEntry& f = out.files[orphans[k]];
        std::tie(f.frame, f.offset) = at(k);
        f.size = field32(items[k].bytes.size(), "size", [&] { return items[k].where; });
    }
    for (size_t k = 0; k < plan.added.size(); ++k) {
        const size_t item = orphans.size() + k;
        const TreeEntry* e = plan.added[k];
        FileEntry f{e->type, e->file, 0, 0, field32(items[item].bytes.size(), "size", [&] { return e->where; }), 16};
        std::tie(f.frame, f.offset) = at(item);
        out.files.push_back(f);
        out.metadata.push_back({f.type, f.file, 0, 0, 0});
        ++rep.added;
    }
}

} // namespace

RepackReport repack_set(const PackageSet& set, std::vector<TreeEntry> repl, const RepackOptions& opts,
                        const af_host* host, const WarnFn& warn) {
    const Manifest& m = set.manifest();
    check_unique(repl);
    const ReplacementPlan plan = plan_replacements(m, repl, opts);
    const Originals orig(set, plan, host);
    RepackReport rep;
    const Changes changes = find_changes(m, plan, orig, opts.limits, warn, rep);
    Manifest out = m;
    RebuiltFrames rebuilt = rebuild_frames(set, plan, changes, orig, opts.limits, out, host);
    rep.frames_rebuilt = rebuilt.frames.size();
    check_copied_frames(set, orig, host);
    std::vector<OutFrame> frames = table_frames(set, rebuilt, opts.keep_layout, out, rep);
    append_new_files(m, rebuilt.orphans, changes, plan, orig, opts, host, warn, out, frames, rep);
    const FrameRecord final_record = m.frames.empty() || m.frames.back().is_data() ? FrameRecord{} : m.frames.back();
    rep.image = assemble_set(std::move(out), std::move(frames), final_record, opts.part_limit, opts.limits);
    return rep;
}

} // namespace af::evr
