// Writing `.pages` files. Every write goes through a Layout: the pages in
// file order, each with its payload, its reservation and where its slack
// bytes come from. Offsets are not stored; they are the running sum of the
// reservations from offset 72, so moving, adding or dropping a page can never
// leave a dangling link — every link is recomputed when the file is emitted.
#pragma once

#include "pages_reader.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace af::vtpages {

struct LayoutNode {
    PageKey key;
    int32_t compression = kCompHdp;
    const uint8_t* header_src = nullptr; // original 40 bytes: keeps the reserved field and absent-child bytes
    std::span<const uint8_t> payload;    // the payload, or empty when payload_path is set
    int32_t payload_path = -1;           // index into Layout::paths: read at emit time (bounded memory)
    uint64_t payload_size = 0;
    uint64_t reservation = 0;           // bytes, a multiple of the scale, ≥ 40 + payload_size
    std::span<const uint8_t> slack_src; // copied at the start of the slack; the rest is 0xFF
    uint64_t used() const { return kNodeHeaderSize + payload_size; }
};

struct Layout {
    FileHeader header;                 // total_file_size is recomputed on emit
    const uint8_t* root_src = nullptr; // original root pointer, else a fresh one
    std::vector<LayoutNode> nodes;     // file order
    std::vector<std::filesystem::path> paths;
    std::vector<std::vector<uint8_t>> owned; // buffers payload spans may point into
    const PagesFile* source = nullptr;       // mapped file the spans point into (resident set dropped while emitting)

    uint32_t scale() const { return header.scale(); }
    uint64_t file_size() const;
};

// Validates a payload for its compression: sub-headed payloads must be exactly
// as long as their sub-header's formula says (an odd length one short of it is
// accepted and padded by the caller), DXT payloads 40960 or 49152 bytes.
// Returns the payload length on disk. `what` names the payload in errors.
uint64_t checked_payload_size(int32_t compression, std::span<const uint8_t> head, uint64_t size,
                              const std::string& what);

uint64_t align_to_scale(uint64_t n, uint32_t scale);

// Header of a new file with `levels` levels.
FileHeader new_header(int levels, uint32_t scale, int16_t layout_version, int32_t installed_mip_and_offset);

// Reads a file that passes selftest into a Layout that emits it byte for byte.
Layout layout_of(const PagesFile& file);

// Checks the layout (one top page, every page's parent present, coordinates
// on the grid, no duplicates, reservations within u16 × scale, offsets within
// u32 × scale) and writes the file through `sink`.
using ByteSink = std::function<void(const uint8_t*, uint64_t)>;
void emit(const Layout& layout, const ByteSink& sink);
void emit_to_file(const Layout& layout, const std::filesystem::path& out); // atomic (temp + rename)
std::vector<uint8_t> emit_to_memory(const Layout& layout);

// Orders pages parents first: breadth-first (level by level from the top, each
// level in Z order = the order a FIFO queue with children pushed in slot order
// 0..3 gives) or depth-first (pre-order, child slots 0..3). Given keeps the order.
enum class NodeOrder { Bfs, Dfs, Given };
void order_nodes(std::vector<LayoutNode>& nodes, NodeOrder order);

// ---- repack ----------------------------------------------------------

struct RepackReport {
    uint64_t replaced_in_place = 0, relocated = 0, added = 0, removed = 0;
    uint64_t absorbed = 0; // freed bytes given to the preceding page's slack
};

// Replaces the payload of `key`: in place when it fits the reservation (only
// that reservation's bytes change), else the page moves to the end of the
// file with `reserve` bytes of growth room and its old bytes become slack of
// the page before it (or, when that page cannot hold more, later pages move up).
void replace_page(Layout& l, PageKey key, std::span<const uint8_t> payload, int32_t compression, uint64_t reserve,
                  RepackReport& r);
// Adds a page at the end of the file; its parent must already be in the layout.
void add_page(Layout& l, PageKey key, std::span<const uint8_t> payload, int32_t compression, uint64_t reserve,
              RepackReport& r);
// Drops `key` and every page under it; later pages move up.
void remove_subtree(Layout& l, PageKey key, RepackReport& r);
// Every reservation shrinks to its page rounded up to the scale.
void compact(Layout& l);

} // namespace af::vtpages
