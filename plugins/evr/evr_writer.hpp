// A package set as it will be written: the manifest archive and each part as
// a list of pieces (borrowed from mapped input parts or owned), so copying an
// untouched frame never decompresses, recompresses or even copies it in memory
// before the write.
#pragma once

#include "evr_format.hpp"
#include "package_set.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace af::evr {

// A file's frame index meaning "no data frame": an empty file in a set that
// has none points at the first end-of-part marker, offset 0.
inline constexpr uint32_t kNoFrame = 0xffffffffu;
// An OutFrame that was in no part before (a new frame, or no layout kept).
inline constexpr uint32_t kNoPart = 0xffffffffu;

// A data frame of the set being written.
struct OutFrame {
    std::span<const uint8_t> compressed;
    std::shared_ptr<const std::vector<uint8_t>> owned; // holds `compressed` for rebuilt and new frames
    uint64_t length = 0;                               // decompressed
    uint32_t part = kNoPart;                           // the part it was in, in the set it comes from
};

// The part-size limit every writer uses (int32 max); a frame never spans parts.
inline constexpr uint64_t kPartLimit = 2147483647;
// Frames built for new files hold at most this many decompressed bytes unless
// they hold a single file (the community repacker's "streaming buffer" cap).
inline constexpr uint64_t kFrameLimit = 512000;

struct SetImage {
    Manifest model;                // as written
    std::vector<uint8_t> manifest; // the archive file's bytes
    std::vector<std::vector<std::span<const uint8_t>>> parts;
    std::vector<uint64_t> part_sizes;
    std::vector<std::shared_ptr<const std::vector<uint8_t>>> keep; // owners of the pieces
};

// `m` holds the files (frame = index into `frames`, or kNoFrame), Metadata and
// header fields; its frame table and PackageCount are rebuilt here: data
// frames appended to parts in order (a new part where a frame's original
// `part` moves on, and when the next frame would pass `part_limit`), one
// end-of-part marker per part, then `final_record`. A frame with no original
// part (kNoPart) joins the current one.
// The manifest made is read back through the reader's checks with `limits`:
// a writer bug must never reach the disk as a set the game would load, nor a
// frame or manifest larger than a reader with those limits accepts.
SetImage assemble_set(Manifest m, std::vector<OutFrame> frames, const FrameRecord& final_record,
                      uint64_t part_limit = kPartLimit, const Limits& limits = {});

// A name a set can have: one file name (no '/', not "." or "..").
bool is_set_name(const std::string& name);

// The bytes of part `i` in one buffer (for the pipeline stages, whose outputs are items).
std::vector<uint8_t> part_bytes(const SetImage& img, size_t i);

// Writes DIR/manifests/NAME and DIR/packages/NAME_<i> as one batch: every file
// to a temporary, one flush, then the renames, so an interrupted write leaves
// the previous set (or nothing), never a half-written one. Refuses a target
// that holds the input set (`input`, may be null) and an existing manifest
// unless `overwrite`; with it, parts numbered past the new count are removed.
void write_set(const SetImage& img, const std::filesystem::path& dir, const std::string& name, bool overwrite,
               const SetLocation* input);

} // namespace af::evr
