#include "package_set.hpp"

#include "assetforge/error.hpp"

#include <algorithm>
#include <map>

namespace af::evr {

namespace fs = std::filesystem;
using sdk::format;
using sdk::invalid;
using ull = unsigned long long;

SetLocation locate_set(const fs::path& data, const std::string& name) {
    return {data / "manifests" / name, data / "packages", name};
}

bool same_place(const fs::path& a, const fs::path& b) {
    std::error_code ec1, ec2;
    const fs::path x = fs::weakly_canonical(a, ec1), y = fs::weakly_canonical(b, ec2);
    return !ec1 && !ec2 && x == y;
}

SetLocation locate_manifest(const fs::path& manifest) {
    const fs::path abs = fs::absolute(manifest);
    return {manifest, abs.parent_path().parent_path() / "packages", abs.filename().string()};
}

std::string file_label(uint64_t j, const FileEntry& f) {
    return format("file %llu (%s/%s)", (ull)j, hex16(f.type).c_str(), hex16(f.file).c_str());
}

namespace {

sdk::MappedFile map_or_fail(const fs::path& p, const std::string& what) {
    try {
        return sdk::MappedFile(p);
    } catch (const sdk::Error& e) {
        sdk::fail(AF_ERR_IO, AF_NO_OFFSET, p.string() + ": " + what + ": " + e.what());
    }
}

// The lowest index j whose (type, file) pair an earlier file already has, and
// that earlier file's index; {size, 0} when every pair is unique.
std::pair<uint64_t, uint64_t> first_duplicate(const std::vector<FileEntry>& files) {
    struct Key {
        uint64_t type, file, index;
        auto operator<=>(const Key&) const = default;
    };
    std::vector<Key> keys(files.size());
    for (uint64_t j = 0; j < files.size(); ++j) keys[j] = {files[j].type, files[j].file, j};
    std::sort(keys.begin(), keys.end());
    std::pair<uint64_t, uint64_t> best{files.size(), 0};
    const auto same = [&](size_t x, size_t y) { return keys[x].type == keys[y].type && keys[x].file == keys[y].file; };
    for (size_t k = 1; k < keys.size(); ++k) {
        // In a run of equal pairs (by index) the first is the original and the
        // second the lowest duplicate of it.
        const bool run_start = k == 1 || !same(k - 2, k - 1);
        if (same(k - 1, k) && run_start && keys[k].index < best.first) best = {keys[k].index, keys[k - 1].index};
    }
    return best;
}

} // namespace

PackageSet::PackageSet(const SetLocation& where, const Limits& limits, const WarnFn& warn)
    : where_(where), limits_(limits) {
    {
        const sdk::MappedFile mf = map_or_fail(where_.manifest, "cannot read the manifest");
        m_ = read_manifest(mf.bytes(), where_.manifest.string(), limits_, warn);
    }
    open_parts(warn);
}

PackageSet::PackageSet(std::span<const uint8_t> manifest, const SetLocation& where, const Limits& limits,
                       const WarnFn& warn)
    : where_(where), limits_(limits) {
    m_ = read_manifest(manifest, where_.manifest.string(), limits_, warn);
    open_parts(warn);
}

void PackageSet::open_parts(const WarnFn& warn) {
    const std::string mpath = where_.manifest.string();
    decodes_ = std::make_unique<std::atomic<uint32_t>[]>(m_.frames.size());
    // Check 10: the count is compared with the records before any part is opened,
    // so a hostile count cannot make us probe millions of files.
    const uint64_t records = m_.frames.size();
    if (m_.package_count > std::max<uint64_t>(1, records))
        invalid(0, mpath + format(": package count %u exceeds the %llu frame records", m_.package_count, (ull)records));
    parts_.reserve(m_.package_count);
    for (uint32_t i = 0; i < m_.package_count; ++i) {
        const fs::path p = where_.packages / (where_.name + "_" + std::to_string(i));
        std::error_code ec;
        if (!fs::is_regular_file(p, ec))
            sdk::fail(AF_ERR_INVALID_DATA, AF_NO_OFFSET,
                      p.string() + format(": package part %u of %u is missing", i, m_.package_count));
        parts_.push_back(map_or_fail(p, "cannot read package part"));
    }
    {
        std::error_code ec;
        const fs::path extra = where_.packages / (where_.name + "_" + std::to_string(m_.package_count));
        if (warn && fs::exists(extra, ec))
            warn(extra.string() + format(": exists but the manifest names only %u part(s)", m_.package_count));
    }
    // Check 11: every data frame's range inside its part, its length within the limit.
    for (uint32_t i = 0; i < m_.frames.size(); ++i) {
        const FrameRecord& r = m_.frames[i];
        if (!r.is_data()) continue;
        const std::string what = format("%s: frame %u (package %u, offset %u, %u compressed bytes, length %u)",
                                        mpath.c_str(), i, r.package, r.offset, r.csize, r.length);
        if (r.csize == 0) invalid(0, what + ": a data frame with no compressed bytes");
        if (r.package >= m_.package_count)
            invalid(0,
                    what + format(": package index %u, but the manifest has %u part(s)", r.package, m_.package_count));
        const uint64_t end = uint64_t(r.offset) + r.csize, size = parts_[r.package].size();
        if (end > size)
            invalid(r.offset, what + format(": bytes %u..%llu run past the end of %s (%llu bytes)", r.offset, (ull)end,
                                            part_path(r.package).c_str(), (ull)size));
        if (r.length > limits_.max_frame_bytes)
            invalid(0, what + format(": length over this reader's %llu-byte limit", (ull)limits_.max_frame_bytes));
    }
    // Checks 13 and 14: every file inside its frame, no (type, file) pair twice.
    // Duplicates are found by sorting (a set of hundreds of thousands of files
    // spent most of `verify` in a std::map here); the first file, in manifest
    // order, that repeats an earlier pair is the one reported, as before.
    const auto [dup, dup_of] = first_duplicate(m_.files);
    for (uint64_t j = 0; j < m_.files.size(); ++j) {
        const FileEntry& f = m_.files[j];
        const auto what = [&] { return mpath + ": " + file_label(j, f); }; // built only for an error
        if (f.frame >= records)
            invalid(0, what() + format(": frame index %u, but there are %llu frame records", f.frame, (ull)records));
        const uint64_t end = uint64_t(f.offset) + f.size, length = m_.frames[f.frame].length;
        if (end > length)
            invalid(0, what() + format(": bytes %u..%llu run past the end of frame %u (%llu bytes)", f.offset, (ull)end,
                                       f.frame, (ull)length));
        if (j == dup)
            invalid(0,
                    what() + format(": same type and file symbol as file %llu (the extraction tree cannot hold both)",
                                    (ull)dup_of));
    }
}

std::string PackageSet::part_path(uint32_t index) const {
    return (where_.packages / (where_.name + "_" + std::to_string(index))).string();
}

std::string PackageSet::describe_frame(uint32_t index) const {
    const FrameRecord& r = m_.frames[index];
    return format("frame %u (%s @ %u, %u bytes)", index, part_path(r.package).c_str(), r.offset, r.csize);
}

std::span<const uint8_t> PackageSet::compressed(uint32_t index) const {
    const FrameRecord& r = m_.frames[index];
    return parts_[r.package].bytes().subspan(r.offset, r.csize);
}

FrameBytes PackageSet::decompress(uint32_t index) const {
    const FrameRecord& r = m_.frames[index];
    if (!r.is_data()) return {};
    decodes_[index].fetch_add(1, std::memory_order_relaxed);
    return decompress_frame(compressed(index), r.length, describe_frame(index), "the manifest");
}

std::vector<uint32_t> PackageSet::decompress_counts() const {
    std::vector<uint32_t> n(m_.frames.size());
    for (size_t i = 0; i < n.size(); ++i) n[i] = decodes_[i].load(std::memory_order_relaxed);
    return n;
}

void PackageSet::structure_warnings(const WarnFn& warn) const {
    if (!warn) return;
    for (const auto& f : structure_findings()) warn(f.text);
}

std::vector<Finding> PackageSet::structure_findings() const {
    std::vector<Finding> out;
    auto warn = [&out](Finding::Kind k, std::string text) { out.push_back({k, std::move(text)}); };
    const auto& frames = m_.frames;
    std::vector<bool> used(frames.size());
    for (const auto& f : m_.files) used[f.frame] = true;                  // frame indices were checked on open
    std::map<uint32_t, std::vector<std::pair<uint64_t, uint32_t>>> spans; // part -> (offset, frame)
    for (uint32_t i = 0; i < frames.size(); ++i) {
        const FrameRecord& r = frames[i];
        if (r.is_data()) {
            spans[r.package].push_back({r.offset, i});
            if (!used[i]) warn(Finding::kUnreferencedFrame, format("frame %u holds no file", i));
        } else if (r.csize && i + 1 != frames.size()) {
            warn(Finding::kEmptyRecordBytes, format("frame %u: empty record with %u compressed bytes", i, r.csize));
        }
    }
    for (auto& [pk, list] : spans) {
        std::sort(list.begin(), list.end());
        for (size_t k = 1; k < list.size(); ++k) {
            const FrameRecord& a = frames[list[k - 1].second];
            if (list[k].first < uint64_t(a.offset) + a.csize)
                warn(Finding::kOverlap, format("frames %u and %u overlap in %s", list[k - 1].second, list[k].second,
                                               part_path(pk).c_str()));
        }
    }
    for (uint32_t pk = 0; pk < parts_.size(); ++pk) {
        const bool marked = std::any_of(frames.begin(), frames.end(), [&](const FrameRecord& r) {
            return !r.is_data() && r.csize == 0 && r.package == pk && r.offset == parts_[pk].size();
        });
        if (!marked)
            warn(Finding::kNoMarker, format("no end-of-part record {%u, %llu, 0, 0} for %s", pk, (ull)parts_[pk].size(),
                                            part_path(pk).c_str()));
    }
    if (frames.empty() || frames.back().is_data())
        warn(Finding::kNoFinalRecord, "the frame table does not end with an empty record");
    // Sorted vectors, not multisets: cheap for sets of hundreds of thousands of files.
    std::vector<std::pair<uint64_t, uint64_t>> a, b;
    a.reserve(m_.files.size());
    b.reserve(m_.metadata.size());
    for (const auto& f : m_.files) a.push_back({f.type, f.file});
    for (const auto& e : m_.metadata) b.push_back({e.type, e.file});
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    if (a != b)
        warn(Finding::kMetadataMismatch,
             format("the %zu Metadata entries do not name the same files as the %zu FrameContents entries",
                    m_.metadata.size(), m_.files.size()));
    return out;
}

} // namespace af::evr
