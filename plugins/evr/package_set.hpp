// A package set on disk: the checked manifest plus its mapped package parts.
// Opening one runs every check that needs only the manifest and the part
// sizes (1-11, 13, 14), so no output is written for a set that fails them.
#pragma once

#include "evr_format.hpp"
#include "evr_reader.hpp"
#include "zstd_frame.hpp"

#include "assetforge/mapped_file.hpp"

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace af::evr {

struct SetLocation {
    std::filesystem::path manifest;
    std::filesystem::path packages; // folder of <name>_<N>
    std::string name;
};

// DATA + NAME: DATA/manifests/NAME and DATA/packages. A manifest path alone:
// its parts are in ../packages next to the manifest's folder.
SetLocation locate_set(const std::filesystem::path& data, const std::string& name);
SetLocation locate_manifest(const std::filesystem::path& manifest);
// Whether two paths name the same file or folder (both resolved; false when either cannot be).
bool same_place(const std::filesystem::path& a, const std::filesystem::path& b);

// "file 12 (beefbeefbeefbeef/…)": how every message names the manifest's file j.
std::string file_label(uint64_t j, const FileEntry& f);

// A structural oddity of a set (check 15): a warning, never an error. The
// kind lets a repack's verify tell the oddities it inherited from the
// original from those it introduced.
struct Finding {
    enum Kind {
        kHeaderLength24,
        kTrailingBytes,
        kExtraPart,
        kUnreferencedFrame,
        kEmptyRecordBytes,
        kOverlap,
        kNoMarker,
        kNoFinalRecord,
        kMetadataMismatch,
        kKinds
    };
    Kind kind;
    std::string text;
};

class PackageSet {
  public:
    PackageSet(const SetLocation& where, const Limits& limits, const WarnFn& warn);
    // The manifest's bytes already in memory (a pipeline item); parts from `where`.
    PackageSet(std::span<const uint8_t> manifest, const SetLocation& where, const Limits& limits, const WarnFn& warn);

    const SetLocation& location() const { return where_; }
    const Manifest& manifest() const { return m_; }
    std::string part_path(uint32_t index) const;
    uint64_t part_size(uint32_t index) const { return parts_[index].size(); }
    uint32_t part_count() const { return uint32_t(parts_.size()); }

    // "frame 3 (…/NAME_0 @ 3733, 274 bytes)": how every message names a frame.
    std::string describe_frame(uint32_t index) const;
    // The compressed bytes of a data frame (range already checked on open).
    std::span<const uint8_t> compressed(uint32_t index) const;
    // Check 12: a data frame decompressed to exactly its length; empty records give nothing.
    FrameBytes decompress(uint32_t index) const;
    // How many times decompress() has decoded each frame record (empty records
    // stay 0). Extraction promises one decode per data frame; this lets tests
    // hold it to that. Always on: a relaxed increment next to a zstd decode.
    std::vector<uint32_t> decompress_counts() const;

    // Check 15: structural oddities that are warnings, never errors.
    void structure_warnings(const WarnFn& warn) const;
    // The same, with their kinds (the manifest's and the part folder's own
    // oddities, warned about on open, are not repeated here).
    std::vector<Finding> structure_findings() const;

  private:
    void open_parts(const WarnFn& warn);

    SetLocation where_;
    Limits limits_;
    Manifest m_;
    std::vector<sdk::MappedFile> parts_;
    std::unique_ptr<std::atomic<uint32_t>[]> decodes_; // one per frame record, from 0
};

} // namespace af::evr
