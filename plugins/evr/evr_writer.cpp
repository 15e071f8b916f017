#include "evr_writer.hpp"

#include "evr_reader.hpp"
#include "folder_switch.hpp"
#include "manifest_writer.hpp"
#include "output_batch.hpp"

#include "assetforge/error.hpp"

#include <algorithm>

namespace af::evr {

namespace fs = std::filesystem;
using sdk::format;
using ull = unsigned long long;

SetImage assemble_set(Manifest m, std::vector<OutFrame> frames, const FrameRecord& final_record, uint64_t part_limit,
                      const Limits& limits) {
    // Every frame record (data frames, a marker per part, the final one) must
    // have an index a file entry's 32-bit frame field can name, kNoFrame aside.
    if (frames.size() >= kNoFrame / 2)
        sdk::fail(AF_ERR_INVALID_DATA, AF_NO_OFFSET,
                  format("%zu data frames, more than the 32-bit frame index of a file entry can name", frames.size()));
    SetImage img;
    const auto new_part = [&] {
        img.parts.emplace_back();
        img.part_sizes.push_back(0);
    };
    new_part();
    uint32_t original_part = 0; // the part of the source set the current part stands for
    m.frames.clear();
    for (size_t i = 0; i < frames.size(); ++i) {
        OutFrame& f = frames[i];
        // The writers refuse an oversized frame before building it; this is
        // the last word before the disk, so a set verify refuses never lands.
        if (f.length == 0 || f.length > frame_capacity(limits))
            sdk::fail(AF_ERR_INVALID_DATA, AF_NO_OFFSET,
                      format("frame %zu: ", i) + (f.length ? over_frame_capacity(f.length, limits) : "no bytes"));
        const auto where = [&] { return format("frame %zu (%llu bytes)", i, (ull)f.length); };
        const uint32_t csize = field32(f.compressed.size(), "compressed size", where);
        // The game's own split: parts are where its frames were (an unedited set comes back part for part, and
        // installing it leaves no part of the game's missing), empty ones included.
        for (; f.part != kNoPart && f.part > original_part; ++original_part) new_part();
        if (img.part_sizes.back() && img.part_sizes.back() + csize > part_limit) new_part();
        const uint64_t at = img.part_sizes.back();
        if (at + csize > kField32Max)
            sdk::fail(AF_ERR_INVALID_DATA, AF_NO_OFFSET,
                      format("frame %zu would end past the 4 GiB a part offset can address", i));
        m.frames.push_back({uint32_t(img.parts.size() - 1), uint32_t(at), csize, uint32_t(f.length)});
        img.parts.back().push_back(f.compressed);
        img.part_sizes.back() += csize;
        if (f.owned) img.keep.push_back(std::move(f.owned));
    }
    // Below 2^31 data frames, parts (at most one per frame) and the final
    // record leave every index below kNoFrame; part sizes were held under 4 GiB.
    const uint32_t first_marker = uint32_t(m.frames.size());
    for (size_t p = 0; p < img.parts.size(); ++p) m.frames.push_back({uint32_t(p), uint32_t(img.part_sizes[p]), 0, 0});
    FrameRecord last = final_record;
    last.length = 0; // whatever the source held, the final record is empty
    m.frames.push_back(last);
    for (auto& f : m.files)
        if (f.frame == kNoFrame) f = {f.type, f.file, first_marker, 0, 0, f.alignment};
    m.package_count = uint32_t(img.parts.size());
    img.manifest = manifest_archive(manifest_body(m));
    // With the limits a reader of the new set applies: a body it would refuse is never written.
    read_manifest(img.manifest, "the new manifest", limits, nullptr);
    img.model = std::move(m);
    return img;
}

bool is_set_name(const std::string& name) {
    return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
           name.find('\0') == std::string::npos;
}

std::vector<uint8_t> part_bytes(const SetImage& img, size_t i) {
    std::vector<uint8_t> out;
    out.reserve(img.part_sizes[i]);
    for (const auto& piece : img.parts[i]) out.insert(out.end(), piece.begin(), piece.end());
    return out;
}

namespace {} // namespace

void write_set(const SetImage& img, const fs::path& dir, const std::string& name, bool overwrite,
               const SetLocation* input) {
    const fs::path manifest = dir / "manifests" / name, packages = dir / "packages";
    if (input &&
        (same_place(manifest, input->manifest) || (name == input->name && same_place(packages, input->packages))))
        sdk::fail(AF_ERR_IO, AF_NO_OFFSET,
                  dir.string() + ": holds the input set; write the new set to another folder (the input is never "
                                 "changed in place)");
    std::error_code ec;
    if (!overwrite && fs::exists(manifest, ec))
        sdk::fail(AF_ERR_IO, AF_NO_OFFSET, manifest.string() + ": exists (give --overwrite to replace that set)");
    for (const fs::path& d : {manifest.parent_path(), packages}) {
        fs::create_directories(d, ec);
        if (ec) sdk::fail(AF_ERR_IO, AF_NO_OFFSET, d.string() + ": cannot create directory: " + ec.message());
    }
    auto write_into = [&](const fs::path& root) {
        OutputBatch batch(root); // a linked manifests/ or packages/ inside it is refused
        for (size_t i = 0; i < img.parts.size(); ++i) {
            std::vector<std::span<const uint8_t>> pieces = img.parts[i];
            batch.add(root / "packages" / (name + "_" + std::to_string(i)), pieces);
        }
        // The manifest last in the batch: it is renamed into place after every part.
        batch.add(root / "manifests" / name, {}, img.manifest);
        batch.commit();
    };
    if (!fs::exists(manifest, ec)) {
        // No set to keep whole: parts first, the manifest last; then parts
        // left by an earlier, larger set (they would read as an extra part).
        write_into(dir);
        for (size_t i = img.parts.size();; ++i) {
            const fs::path stale = packages / (name + "_" + std::to_string(i));
            if (!fs::is_regular_file(stale, ec)) break;
            fs::remove(stale, ec);
        }
        return;
    }
    // Replacing a set: the folder is prepared beside itself without this
    // set's files and switched in one exchange, so a kill leaves the old set
    // or the new one (parts of a larger old set go with the old folder).
    const auto own = [&](const fs::path& rel) {
        const std::string r = rel.generic_string();
        if (r == "manifests/" + name) return true;
        const std::string prefix = "packages/" + name + "_";
        if (r.rfind(prefix, 0) != 0) return false;
        const std::string n = r.substr(prefix.size());
        return !n.empty() && std::all_of(n.begin(), n.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    switch_folder(dir, own, write_into);
}

} // namespace af::evr
