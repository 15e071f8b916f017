// The selftest of the spec sheet and the statistics behind `stats`: one walk
// of the tree that checks every rule and accounts for every byte of the file.
#pragma once

#include "pages_reader.hpp"

#include <array>
#include <cstdint>
#include <string>

namespace af::vtpages {

struct Census {
    uint64_t pages = 0; // the root pointer at 32 excluded
    uint64_t edges = 0; // parent→child links between pages (pages − 1)
    std::array<uint64_t, kMaxLevels> per_level{};
    // Byte accounting: used + slack == file size.
    uint64_t used = 0;  // file header + root pointer + every page's node header and payload (with cover masks)
    uint64_t slack = 0; // reserved by parents beyond what the page uses
    uint64_t file_size = 0;
    // Breakdown of `used`
    uint64_t node_header_bytes = 0; // 40 per page (root pointer counted in header_bytes)
    uint64_t header_bytes = 72;     // file header + root pointer
    uint64_t sub_header_bytes = 0;
    std::array<uint64_t, kBlockCount> block_bytes{};
    uint64_t cover_bytes = 0, cover_masks = 0;
    uint64_t pad_bytes = 0;            // even-padding of sub-headed payloads
    uint64_t opaque_payload_bytes = 0; // DXT and uncompressed payloads (no sub-header)
    std::array<uint64_t, kCompCount> per_compression{};
    std::array<uint64_t, 256> flags{};
    uint64_t pages_with_slack = 0, max_slack = 0;
    uint64_t slack_2048 = 0; // pages whose slack is exactly 2048 bytes
};

// Walks the tree (see walk_tree for the per-node rules), then checks that the
// reservations tile [72, end of file) exactly: no two overlap, no byte is
// unreferenced. Throws sdk::Error with the offset on the first violation.
// Memory: 8 bytes per page (for the overlap check), nothing per byte.
// `check_header` adds the header invariants (pagesWide, totalPages, totalFileSize).
Census take_census(const PagesFile& file, bool check_header = true);

// "selftest ok: FILE, N sentences, E edges, B B + S B slack = T B"
std::string selftest_line(const std::string& name, const Census& c);

} // namespace af::vtpages
