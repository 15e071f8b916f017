// Read access to one `.pages` file held in memory or memory-mapped. Nothing is
// copied: every accessor decodes the few bytes it needs, so files of several
// GB are read page by page as the tree is walked.
#pragma once

#include "pages_format.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace af::sdk {
class MappedFile;
}

namespace af::vtpages {

// One page as the tree reaches it: its node header, where it lies, and how
// its reservation divides into node header, payload and slack.
struct PageInfo {
    uint64_t offset = 0;   // of the 40-byte node header
    uint64_t reserved = 0; // parent's childLength × scale
    NodeHeader node;
    bool has_sub = false; // compression 3–6
    SubHeader sub;
    uint64_t payload = 0; // bytes after the node header that belong to the page
    uint64_t used() const { return kNodeHeaderSize + payload; }
    uint64_t slack() const { return reserved - used(); }
    PageKey key() const { return {node.level, node.x, node.y}; }
    uint64_t payload_offset() const { return offset + kNodeHeaderSize; }
};

class PagesFile {
  public:
    // Checks only what reading needs (size, magic, level count, scale); see
    // header_problems() for the full header invariants. Throws sdk::Error.
    explicit PagesFile(std::span<const uint8_t> bytes);
    static PagesFile open(const std::filesystem::path& path); // maps the file
    ~PagesFile();
    PagesFile(PagesFile&&) noexcept;
    PagesFile& operator=(PagesFile&&) noexcept;

    const FileHeader& header() const { return header_; }
    uint32_t scale() const { return header_.scale(); }
    int levels() const { return header_.num_levels; }
    uint32_t across() const { return 1u << (header_.num_levels - 1); }
    const uint8_t* data() const { return bytes_.data(); }
    uint64_t size() const { return bytes_.size(); }
    std::span<const uint8_t> bytes(uint64_t offset, uint64_t length) const; // checked

    // The 40-byte header at `offset`, with its magic checked.
    NodeHeader node_at(uint64_t offset) const;
    NodeHeader root_pointer() const { return node_at(kRootPointerOffset); }

    // Decodes the page at `offset` reserved `reserved` bytes by its parent and
    // works out its payload size: from the sub-header formula (compression
    // 3–6), the fixed DXT sizes (2), or the whole reservation (1: layout unknown).
    PageInfo page_at(uint64_t offset, uint64_t reserved) const;

    // Follows child links from the root to (level, x, y): O(levels).
    // nullopt when the page (or an ancestor) is absent. Checks every node on the path.
    std::optional<PageInfo> find(PageKey key) const;

    // Unmaps the resident pages of an owned file mapping (they stay in the page
    // cache): keeps the resident set of a walk over a multi-GB file bounded.
    // A no-op for borrowed byte spans.
    void drop_resident() const;

    // Every problem with the 32-byte header, empty when it is consistent.
    std::vector<std::string> header_problems() const;

  private:
    std::unique_ptr<sdk::MappedFile> map_;
    std::span<const uint8_t> bytes_;
    FileHeader header_;
};

// Tree walk with an explicit stack (depth ≤ levels, ≤ 4 pending children per
// level): visits every page reachable from the root pointer, parents before
// children, and throws sdk::Error (invalid data, with the offset) on the first
// broken rule: link outside the file or into the headers, bad node magic,
// compression out of range, child level/x/y not the one its parent and child
// slot imply, links pointing back to an ancestor, payload larger than its
// reservation, children under a level-0 page.
struct WalkStep {
    const PageInfo& page;
    uint64_t parent_offset; // kRootPointerOffset for the top page
    int slot;               // child index in the parent
};
void walk_tree(const PagesFile& file, const std::function<void(const WalkStep&)>& visit);

} // namespace af::vtpages
