#include "pages_reader.hpp"

#include "assetforge/mapped_file.hpp"
#include "assetforge/plugin.hpp"

#include <sys/mman.h>

namespace af::vtpages {

using sdk::format;
using sdk::invalid;
using ull = unsigned long long;

PagesFile::PagesFile(std::span<const uint8_t> bytes) : bytes_(bytes) {
    if (bytes_.size() < kFileHeaderSize)
        invalid(0, format("truncated: file has %llu bytes, the header needs 32", ull(bytes_.size())));
    header_ = decode_file_header(bytes_.data());
    if (header_.magic != kFileMagic)
        invalid(0, format("bad magic 0x%08x, expected 0x%08x (bytes 04 99 33 77)", header_.magic, kFileMagic));
    if (header_.num_levels < 1 || header_.num_levels > kMaxLevels)
        invalid(12, format("numLevels %d outside 1..%d", int(header_.num_levels), kMaxLevels));
    if (header_.disk_offset_scale < 0) invalid(20, format("diskOffsetScale %d is negative", header_.disk_offset_scale));
}

PagesFile PagesFile::open(const std::filesystem::path& path) {
    auto map = std::make_unique<sdk::MappedFile>(path);
    PagesFile f(map->bytes());
    f.map_ = std::move(map);
    return f;
}

PagesFile::~PagesFile() = default;
PagesFile::PagesFile(PagesFile&&) noexcept = default;
PagesFile& PagesFile::operator=(PagesFile&&) noexcept = default;

std::span<const uint8_t> PagesFile::bytes(uint64_t offset, uint64_t length) const {
    if (offset > size() || length > size() - offset)
        invalid(offset, format("truncated: %llu bytes at offset %llu run past the end of the file (%llu bytes)",
                               ull(length), ull(offset), ull(size())));
    return bytes_.subspan(offset, length);
}

NodeHeader PagesFile::node_at(uint64_t offset) const {
    auto b = bytes(offset, kNodeHeaderSize);
    NodeHeader n = decode_node_header(b.data());
    if (n.magic != kNodeMagic)
        invalid(offset,
                format("bad node magic 0x%08x at offset %llu, expected 0x%08x", n.magic, ull(offset), kNodeMagic));
    return n;
}

PageInfo PagesFile::page_at(uint64_t offset, uint64_t reserved) const {
    PageInfo p;
    p.offset = offset;
    p.reserved = reserved;
    if (reserved < kNodeHeaderSize)
        invalid(offset, format("node at %llu is reserved only %llu bytes, less than its 40-byte header", ull(offset),
                               ull(reserved)));
    bytes(offset, reserved);
    p.node = node_at(offset);
    const int32_t c = p.node.compression;
    if (c <= kCompNone || c >= kCompCount)
        invalid(offset + 4, format("node at %llu: compression %d (%s) is not valid for a page", ull(offset), int(c),
                                   std::string(compression_name(c)).c_str()));
    const uint64_t room = reserved - kNodeHeaderSize;
    if (has_sub_header(c)) {
        if (room < kSubHeaderSize)
            invalid(offset, format("node at %llu: reservation of %llu bytes leaves no room for the 16-byte sub-header",
                                   ull(offset), ull(reserved)));
        p.has_sub = true;
        p.sub = decode_sub_header(data() + p.payload_offset());
        p.payload = p.sub.payload_size();
        if (p.payload > room)
            invalid(offset, format("node at %llu: payload needs %llu bytes (16 + blocks %llu%s), its parent reserves "
                                   "only %llu after the node header",
                                   ull(offset), ull(p.payload), ull(p.sub.block_sum()),
                                   p.sub.has_cover() ? " + cover mask 2048" : "", ull(room)));
    } else if (c == kCompDxt) {
        // Two fixed sizes are known; the larger one wins when the reservation holds it.
        if (room >= kDxtPageLarge)
            p.payload = kDxtPageLarge;
        else if (room >= kDxtPageSmall)
            p.payload = kDxtPageSmall;
        else
            invalid(offset, format("node at %llu: DXT page reserved %llu bytes, less than the %u-byte DXT page",
                                   ull(offset), ull(room), kDxtPageSmall));
    } else {
        p.payload = room; // uncompressed: layout unknown, the whole reservation counts as payload
    }
    return p;
}

void PagesFile::drop_resident() const {
    // MADV_DONTNEED on a read-only private file mapping only drops page-table
    // entries; the next access faults the page back in from the page cache.
    if (map_ && map_->size()) ::madvise(const_cast<uint8_t*>(map_->data()), map_->size(), MADV_DONTNEED);
}

std::optional<PageInfo> PagesFile::find(PageKey key) const {
    const int top = levels() - 1;
    if (key.level > top || key.x >= (across() >> key.level) || key.y >= (across() >> key.level)) return std::nullopt;
    NodeHeader parent = root_pointer();
    int slot = 0;
    uint64_t link_at = kRootPointerOffset;
    for (int lvl = top;; --lvl) {
        const int shift = lvl - key.level;
        const uint16_t x = uint16_t(key.x >> shift), y = uint16_t(key.y >> shift);
        if (lvl != top) slot = child_index(x, y);
        if (parent.child_length[slot] == 0) return std::nullopt;
        const uint64_t off = uint64_t(parent.child_offset[slot]) * scale();
        const uint64_t res = uint64_t(parent.child_length[slot]) * scale();
        PageInfo p = page_at(off, res);
        if (p.node.level != lvl || p.node.x != x || p.node.y != y)
            invalid(off,
                    format("node at %llu (linked from %llu slot %d) is level %u (%u, %u), expected level %d (%u, %u)",
                           ull(off), ull(link_at), slot, p.node.level, p.node.x, p.node.y, lvl, x, y));
        if (lvl == key.level) return p;
        parent = p.node;
        link_at = off;
    }
}

std::vector<std::string> PagesFile::header_problems() const {
    std::vector<std::string> out;
    const FileHeader& h = header_;
    const int L = h.num_levels;
    if (h.pages_wide != int32_t(1u << (L - 1)))
        out.push_back(format("pagesWide %d != 1 << (numLevels-1) = %u", h.pages_wide, 1u << (L - 1)));
    if (uint64_t(uint32_t(h.total_pages)) != complete_tree_nodes(L) || h.total_pages < 0)
        out.push_back(format("totalPages %d != (4^%d - 1) / 3 = %llu", h.total_pages, L, ull(complete_tree_nodes(L))));
    if (h.total_file_size < 0 || uint64_t(h.total_file_size) != size())
        out.push_back(format("totalFileSize %lld != file length %llu", (long long)h.total_file_size, ull(size())));
    return out;
}

namespace {

struct Pending {
    uint64_t offset;
    uint64_t reserved;
    uint64_t parent;
    uint16_t level, x, y;
    uint8_t slot;
};

} // namespace

void walk_tree(const PagesFile& file, const std::function<void(const WalkStep&)>& visit) {
    const NodeHeader root = file.root_pointer();
    if (root.compression != kCompNone)
        invalid(kRootPointerOffset + 4,
                format("root pointer at 32 has compression %d, expected 0 (none)", root.compression));
    for (int i = 1; i < 4; ++i)
        if (root.child_length[i] != 0)
            invalid(kRootPointerOffset + 24 + 2 * i,
                    format("root pointer at 32 uses child slot %d; only slot 0 may be set", i));
    if (root.child_length[0] == 0) invalid(kRootPointerOffset + 24, "root pointer at 32 has no top page");

    const uint64_t scale = file.scale();
    // Offsets of the pages on the current path, by level: a link to one of them is a cycle.
    uint64_t path[kMaxLevels + 1] = {};
    std::vector<Pending> stack;
    stack.reserve(4 * kMaxLevels + 4);
    const uint16_t top = uint16_t(file.levels() - 1);
    stack.push_back({uint64_t(root.child_offset[0]) * scale, uint64_t(root.child_length[0]) * scale, kRootPointerOffset,
                     top, 0, 0, 0});
    uint64_t visited = 0;
    while (!stack.empty()) {
        // Fault-around maps up to 64 KiB per touched page; dropping the mappings every
        // so many pages bounds the resident set to a few tens of MB on any file size.
        if (++visited % 512 == 0) file.drop_resident();
        const Pending e = stack.back();
        stack.pop_back();
        if (e.offset < kFirstNodeOffset)
            invalid(e.parent,
                    format("link in node at %llu (slot %d) points to offset %llu, inside the file header or root "
                           "pointer",
                           ull(e.parent), int(e.slot), ull(e.offset)));
        if (e.offset > file.size() || e.reserved > file.size() - e.offset)
            invalid(e.parent,
                    format("link in node at %llu (slot %d) reserves [%llu, %llu), past the end of the file "
                           "(%llu bytes)",
                           ull(e.parent), int(e.slot), ull(e.offset), ull(e.offset + e.reserved), ull(file.size())));
        for (int l = e.level + 1; l <= top; ++l)
            if (path[l] == e.offset)
                invalid(e.parent,
                        format("cycle: link in node at %llu (slot %d) points back to its level-%d ancestor at "
                               "%llu",
                               ull(e.parent), int(e.slot), l, ull(e.offset)));
        const PageInfo p = file.page_at(e.offset, e.reserved);
        if (p.node.level != e.level || p.node.x != e.x || p.node.y != e.y)
            invalid(e.offset, format("node at %llu (slot %d of node at %llu) is level %u (%u, %u); its parent implies "
                                     "level %u (%u, %u)",
                                     ull(e.offset), int(e.slot), ull(e.parent), p.node.level, p.node.x, p.node.y,
                                     e.level, e.x, e.y));
        path[e.level] = e.offset;
        visit(WalkStep{p, e.parent, e.slot});
        // Push in reverse so slot 0 is visited first.
        for (int i = 3; i >= 0; --i) {
            if (p.node.child_length[i] == 0) continue;
            if (e.level == 0)
                invalid(e.offset + 24 + 2 * i,
                        format("level-0 page at %llu has a child link in slot %d", ull(e.offset), i));
            stack.push_back({uint64_t(p.node.child_offset[i]) * scale, uint64_t(p.node.child_length[i]) * scale,
                             e.offset, uint16_t(e.level - 1), uint16_t(2 * e.x + (i & 1)), uint16_t(2 * e.y + (i >> 1)),
                             uint8_t(i)});
        }
    }
}

} // namespace af::vtpages
