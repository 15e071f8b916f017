// Replacing files in an existing set (the strict repack): file order,
// identities, Metadata, the header's unknown fields and every untouched
// frame's compressed bytes are kept; only frames holding a changed file are
// rebuilt. The result is a new set, never the input changed in place.
#pragma once

#include "evr_writer.hpp"
#include "package_set.hpp"
#include "tree_entry.hpp"

#include "assetforge/plugin_abi.h"

#include <cstdint>
#include <vector>

namespace af::evr {

struct RepackOptions {
    uint64_t part_limit = kPartLimit;
    // Frames stay in the parts they were in (split further only past part_limit): an unedited repack is the
    // original, part for part. Off when the user asks for a part size.
    bool keep_layout = true;
    uint64_t frame_limit = kFrameLimit; // for frames of added files
    bool add_new = false;               // files the set lacks are appended; otherwise refused
    Limits limits;                      // of the readers of the new set: no frame or manifest larger is written
};

struct RepackReport {
    SetImage image;
    std::vector<uint64_t> changed; // file indices whose stored bytes differ from the original's
    uint64_t unchanged = 0;        // replacements equal to what the set holds
    uint64_t added = 0;
    uint64_t frames_rebuilt = 0, frames_copied = 0;
};

// `replacements` in tree form (the group level, if any, is ignored: symbols
// identify a file). Raw BC textures given as .dds are stripped back to raw
// BC and checked against their texture metadata; a DDS-type replacement that
// does not start with "DDS " is warned about; texture metadata must be 256
// bytes. Throws sdk::Error naming the replacement or the frame at fault.
RepackReport repack_set(const PackageSet& set, std::vector<TreeEntry> replacements, const RepackOptions& opts,
                        const af_host* host, const WarnFn& warn);

// A raw BC texture given as .dds: stored without its header, checked against its texture metadata.
bool strips_header(const TreeEntry& e);

// The stored bytes a tree entry stands for: a raw BC texture given as .dds
// loses its header after the checks against `meta` (the texture metadata with
// its file symbol, or empty); the other types are taken as they are.
std::span<const uint8_t> stored_bytes(const TreeEntry& e, std::span<const uint8_t> meta, const WarnFn& warn);

} // namespace af::evr
