// The extraction tree read back: `[<group>/]<type hex>/<file hex>[.<ext>]`,
// 1-16 hex digits (0x allowed), the group a decimal frame index. The
// extension only says whether a raw BC texture comes as DDS (then its header
// is stripped); nothing is sniffed.
#pragma once

#include "evr_format.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace af::evr {

struct TreeEntry {
    int64_t group = -1; // -1: no group level
    uint64_t type = 0, file = 0;
    std::string ext;   // lower case with the dot, or ""
    std::string where; // the path as given, for messages
    std::vector<uint8_t> bytes;
};

// Parses a relative path (generic separators). Throws sdk::Error
// (AF_ERR_INVALID_DATA) naming `rel` when it does not fit the layout.
TreeEntry parse_tree_path(const std::string& rel);

// Every regular file under `root` (symlinks are refused: a tree that links
// outside itself would pack foreign files), sorted by path, bytes read.
// Duplicate (type, file) pairs are an error naming both paths. A file that
// no frame could hold under `limits` is refused from its size, before any
// file is read.
std::vector<TreeEntry> read_tree(const std::filesystem::path& root, const Limits& limits);

// Refuses an entry of `size` bytes that no frame could hold (less the DDS
// header a raw BC texture given as .dds loses), naming `where` (or e.where).
void check_entry_size(const TreeEntry& e, uint64_t size, const Limits& limits, const std::string& where = {});

// Refuses two entries with the same (type, file), naming both paths.
void check_unique(const std::vector<TreeEntry>& entries);

} // namespace af::evr
