// A new package set from an extraction tree: files ordered by (group, type,
// file), each group starting a new frame (so a tree extracted with --groups
// keeps the original frame grouping), frames capped at 512000 bytes unless
// they hold one file, new files aligned to 16, Metadata (type, file, 0, 0, 0).
#pragma once

#include "evr_writer.hpp"
#include "tree_entry.hpp"

#include "assetforge/plugin_abi.h"

namespace af::evr {

struct BuildOptions {
    uint64_t part_limit = kPartLimit;
    uint64_t frame_limit = kFrameLimit;
    Limits limits; // of the readers of the new set: no frame or manifest larger is written
};

SetImage build_set(std::vector<TreeEntry> entries, const BuildOptions& opts, const af_host* host, const WarnFn& warn);

} // namespace af::evr
