#include "pages_writer.hpp"

#include "pages_census.hpp"

#include "assetforge/atomic_file.hpp"
#include "assetforge/plugin.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>

namespace af::vtpages {

using sdk::format;
using sdk::usage;
using ull = unsigned long long;

namespace {

bool is_ancestor_or_self(PageKey a, PageKey d) {
    if (d.level > a.level) return false;
    const int s = a.level - d.level;
    return (d.x >> s) == a.x && (d.y >> s) == a.y;
}

// Interleaves x (even bits) and y (odd bits): the order of child slots at every level.
uint32_t morton(uint32_t x, uint32_t y) {
    uint32_t m = 0;
    for (int b = 0; b < 16; ++b) m |= ((x >> b) & 1u) << (2 * b) | ((y >> b) & 1u) << (2 * b + 1);
    return m;
}

std::string key_text(PageKey k) { return format("level %u (%u, %u)", k.level, k.x, k.y); }

size_t find_index(const Layout& l, PageKey k) {
    for (size_t i = 0; i < l.nodes.size(); ++i)
        if (l.nodes[i].key == k) return i;
    return SIZE_MAX;
}

std::span<const uint8_t> own(Layout& l, std::span<const uint8_t> payload, uint64_t size) {
    // Copies the payload (padded to its on-disk size) so the caller's buffer may go away.
    l.owned.emplace_back(payload.begin(), payload.end());
    l.owned.back().resize(size, 0);
    return l.owned.back();
}

void check_on_grid(const Layout& l, PageKey k) {
    const int levels = l.header.num_levels;
    const uint32_t across = 1u << (levels - 1);
    if (k.level >= levels || k.x >= (across >> k.level) || k.y >= (across >> k.level))
        usage(format("page %s is outside a %d-level tree", key_text(k).c_str(), levels));
}

} // namespace

uint64_t Layout::file_size() const {
    uint64_t n = kFirstNodeOffset;
    for (const auto& p : nodes) n += p.reservation;
    return n;
}

uint64_t align_to_scale(uint64_t n, uint32_t scale) { return (n + scale - 1) / scale * scale; }

FileHeader new_header(int levels, uint32_t scale, int16_t layout_version, int32_t installed_mip_and_offset) {
    if (levels < 1 || levels > kMaxLevels) usage(format("levels %d outside 1..%d", levels, kMaxLevels));
    if (scale < 1 || scale > 64 || kFirstNodeOffset % scale)
        sdk::unsupported(
            format("scale %u: the writer needs a scale in 1..64 that divides 72 (the first page's offset)", scale));
    FileHeader h;
    h.magic = kFileMagic;
    h.pages_wide = int32_t(1u << (levels - 1));
    h.installed_mip_and_offset = installed_mip_and_offset;
    h.num_levels = int16_t(levels);
    h.layout_version = layout_version;
    h.total_pages = int32_t(complete_tree_nodes(levels));
    h.disk_offset_scale = int32_t(scale);
    return h;
}

uint64_t checked_payload_size(int32_t compression, std::span<const uint8_t> head, uint64_t size,
                              const std::string& what) {
    if (compression <= kCompNone || compression >= kCompCount)
        usage(format("%s: compression %d is not a page compression (1..6)", what.c_str(), int(compression)));
    if (has_sub_header(compression)) {
        if (size < kSubHeaderSize || head.size() < kSubHeaderSize)
            sdk::invalid(0, format("%s: %llu bytes, shorter than the 16-byte sub-header", what.c_str(), ull(size)));
        const uint64_t want = decode_sub_header(head.data()).payload_size();
        if (size != want && size + 1 != want)
            sdk::invalid(0, format("%s: %llu bytes, but its sub-header describes a %llu-byte payload", what.c_str(),
                                   ull(size), ull(want)));
        return want;
    }
    if (compression == kCompDxt) {
        if (size != kDxtPageSmall && size != kDxtPageLarge)
            sdk::invalid(
                0, format("%s: DXT page of %llu bytes; known sizes are 40960 and 49152", what.c_str(), ull(size)));
        return size;
    }
    return size + (size & 1);
}

Layout layout_of(const PagesFile& file) {
    take_census(file); // the layout model needs exact tiling: refuse anything selftest refuses
    Layout l;
    l.header = file.header();
    l.root_src = file.data() + kRootPointerOffset;
    l.source = &file;
    walk_tree(file, [&](const WalkStep& s) {
        const PageInfo& p = s.page;
        LayoutNode n;
        n.key = p.key();
        n.compression = p.node.compression;
        n.header_src = file.data() + p.offset;
        n.payload_size = p.payload;
        n.payload = file.bytes(p.payload_offset(), p.payload);
        n.reservation = p.reserved;
        n.slack_src = file.bytes(p.offset + p.used(), p.slack());
        l.nodes.push_back(n);
    });
    std::sort(l.nodes.begin(), l.nodes.end(),
              [](const LayoutNode& a, const LayoutNode& b) { return a.header_src < b.header_src; });
    return l;
}

void order_nodes(std::vector<LayoutNode>& nodes, NodeOrder order) {
    if (order == NodeOrder::Given) return;
    // Breadth-first as a queue with children pushed in slot order produces it:
    // level by level from the top, and within a level in Z (Morton) order.
    auto bfs_less = [](const LayoutNode& a, const LayoutNode& b) {
        if (a.key.level != b.key.level) return a.key.level > b.key.level;
        return morton(a.key.x, a.key.y) < morton(b.key.x, b.key.y);
    };
    if (order == NodeOrder::Bfs) {
        std::stable_sort(nodes.begin(), nodes.end(), bfs_less);
        return;
    }
    // Pre-order, child slots 0..3: project both pages to the coarser one's level; equal
    // projections mean one is the other's ancestor (it goes first), otherwise the child
    // slots just below the level where their paths split decide.
    auto dfs_less = [](const LayoutNode& a, const LayoutNode& b) {
        const int sa = a.key.level, sb = b.key.level, l = std::max(sa, sb);
        const uint32_t ax = a.key.x >> (l - sa), ay = a.key.y >> (l - sa);
        const uint32_t bx = b.key.x >> (l - sb), by = b.key.y >> (l - sb);
        if (ax == bx && ay == by) return sa > sb;
        int d = 1;
        while ((ax >> d) != (bx >> d) || (ay >> d) != (by >> d)) ++d;
        return child_index(ax >> (d - 1), ay >> (d - 1)) < child_index(bx >> (d - 1), by >> (d - 1));
    };
    std::stable_sort(nodes.begin(), nodes.end(), dfs_less);
}

namespace {

// The nodes sorted by key, for the child and parent links.
class KeyIndex {
  public:
    explicit KeyIndex(const Layout& l) {
        index_.reserve(l.nodes.size());
        for (uint32_t i = 0; i < l.nodes.size(); ++i) index_.emplace_back(l.nodes[i].key.packed(), i);
        std::sort(index_.begin(), index_.end());
        for (size_t i = 1; i < index_.size(); ++i)
            if (index_[i].first == index_[i - 1].first)
                usage(format("page %s appears twice", key_text(l.nodes[index_[i].second].key).c_str()));
    }

    // The node's position in the layout, or -1 when there is no such page.
    int64_t find(PageKey k) const {
        auto it = std::lower_bound(index_.begin(), index_.end(), std::pair<uint64_t, uint32_t>{k.packed(), 0});
        return it != index_.end() && it->first == k.packed() ? int64_t(it->second) : -1;
    }

  private:
    std::vector<std::pair<uint64_t, uint32_t>> index_;
};

PageKey top_key(const Layout& l) { return {uint16_t(l.header.num_levels - 1), 0, 0}; }

struct Placement {
    std::vector<uint32_t> units; // each node's offset in scale units
    uint64_t file_size = 0;
};

// Offsets (in scale units) and per-node checks: on the grid, with a parent,
// a reservation links can describe, a start a u32 link can address.
Placement place_nodes(const Layout& l, const KeyIndex& index) {
    const uint32_t scale = l.scale();
    Placement p;
    p.units.resize(l.nodes.size());
    uint64_t at = kFirstNodeOffset;
    if (at % scale) sdk::unsupported(format("scale %u does not divide 72, the offset of the first page", scale));
    const PageKey top = top_key(l);
    if (index.find(top) < 0) usage("the top page (level numLevels-1, 0, 0) is missing");
    for (size_t i = 0; i < l.nodes.size(); ++i) {
        const LayoutNode& n = l.nodes[i];
        check_on_grid(l, n.key);
        if (!(n.key == top) &&
            index.find({uint16_t(n.key.level + 1), uint16_t(n.key.x >> 1), uint16_t(n.key.y >> 1)}) < 0)
            usage(format("page %s has no parent page", key_text(n.key).c_str()));
        if (n.reservation < n.used() || n.reservation % scale || n.reservation / scale > kMaxChildUnits)
            usage(format("page %s: reservation %llu must hold %llu bytes, be a multiple of %u and at most %u × %u",
                         key_text(n.key).c_str(), ull(n.reservation), ull(n.used()), scale, kMaxChildUnits, scale));
        if (at / scale > UINT32_MAX)
            usage(format("page %s would start at %llu, beyond what a u32 × scale %u link can address",
                         key_text(n.key).c_str(), ull(at), scale));
        p.units[i] = uint32_t(at / scale);
        at += n.reservation;
    }
    p.file_size = at;
    return p;
}

// Small writes gather in a 1 MiB buffer; large ones go straight to the sink.
class BufferedSink {
  public:
    explicit BufferedSink(const ByteSink& sink) : sink_(sink) { buf_.reserve(1 << 20); }

    void flush() {
        if (!buf_.empty()) sink_(buf_.data(), buf_.size());
        buf_.clear();
    }
    void put(const uint8_t* p, uint64_t n) {
        if (n >= (1u << 19)) {
            flush();
            sink_(p, n);
            return;
        }
        if (buf_.size() + n > buf_.capacity()) flush();
        buf_.insert(buf_.end(), p, p + n);
    }
    void fill(uint8_t v, uint64_t n) {
        while (n) {
            if (buf_.size() == buf_.capacity()) flush();
            const uint64_t k = std::min<uint64_t>(n, buf_.capacity() - buf_.size());
            buf_.insert(buf_.end(), k, v);
            n -= k;
        }
    }

  private:
    const ByteSink& sink_;
    std::vector<uint8_t> buf_;
};

// The root pointer (kept from the source when there is one) links the top page.
void write_root(const Layout& l, const KeyIndex& index, const Placement& p, BufferedSink& out) {
    NodeHeader root;
    if (l.root_src)
        root = decode_node_header(l.root_src);
    else {
        root.magic = kNodeMagic;
        root.compression = kCompNone;
    }
    const int64_t ti = index.find(top_key(l));
    root.child_offset[0] = p.units[ti];
    root.child_length[0] = uint16_t(l.nodes[ti].reservation / l.scale());
    uint8_t raw[kNodeHeaderSize];
    encode_node_header(root, raw);
    out.put(raw, kNodeHeaderSize);
}

// A node's header: kept from the source where there is one, with its key,
// compression and child links set to the new layout.
NodeHeader node_header(const Layout& l, const LayoutNode& n, const KeyIndex& index, const Placement& p) {
    NodeHeader nh;
    if (n.header_src) nh = decode_node_header(n.header_src);
    nh.magic = kNodeMagic;
    nh.compression = n.compression;
    nh.x = n.key.x;
    nh.y = n.key.y;
    nh.level = n.key.level;
    for (int s = 0; s < 4; ++s) {
        int64_t c = -1;
        if (n.key.level > 0)
            c = index.find(
                {uint16_t(n.key.level - 1), uint16_t(2 * n.key.x + (s & 1)), uint16_t(2 * n.key.y + (s >> 1))});
        if (c >= 0) {
            nh.child_offset[s] = p.units[c];
            nh.child_length[s] = uint16_t(l.nodes[c].reservation / l.scale());
        } else {
            if (nh.child_length[s] != 0) nh.child_offset[s] = 0; // a child that went away
            nh.child_length[s] = 0;
        }
    }
    return nh;
}

// Payload (from memory or its file; `loaded` is reused across nodes), the
// even-padding byte, then the slack: kept from the source, else 0xFF.
void write_node_body(const Layout& l, const LayoutNode& n, std::vector<uint8_t>& loaded, BufferedSink& out) {
    std::span<const uint8_t> payload = n.payload;
    if (n.payload_path >= 0) {
        const auto& path = l.paths[n.payload_path];
        std::ifstream in(path, std::ios::binary);
        if (!in) sdk::fail(AF_ERR_IO, AF_NO_OFFSET, "cannot open payload " + path.string());
        loaded.assign(std::istreambuf_iterator<char>(in), {});
        payload = loaded;
    }
    const uint64_t from_src = std::min<uint64_t>(payload.size(), n.payload_size);
    out.put(payload.data(), from_src);
    out.fill(0, n.payload_size - from_src);
    const uint64_t slack = n.reservation - n.used();
    const uint64_t kept = std::min<uint64_t>(slack, n.slack_src.size());
    out.put(n.slack_src.data(), kept);
    out.fill(0xFF, slack - kept);
}

} // namespace

void emit(const Layout& l, const ByteSink& sink) {
    if (l.nodes.empty()) usage("no pages to write");
    const KeyIndex index(l);
    const Placement placed = place_nodes(l, index);
    FileHeader h = l.header;
    h.total_file_size = int64_t(placed.file_size);

    BufferedSink out(sink);
    uint8_t raw[kNodeHeaderSize];
    encode_file_header(h, raw);
    out.put(raw, kFileHeaderSize);
    write_root(l, index, placed, out);

    std::vector<uint8_t> loaded;
    for (size_t i = 0; i < l.nodes.size(); ++i) {
        const LayoutNode& n = l.nodes[i];
        if (l.source && i % 512 == 511) l.source->drop_resident();
        encode_node_header(node_header(l, n, index, placed), raw);
        out.put(raw, kNodeHeaderSize);
        write_node_body(l, n, loaded, out);
    }
    out.flush();
}

void emit_to_file(const Layout& layout, const std::filesystem::path& out) {
    sdk::AtomicFile f(out);
    emit(layout, [&](const uint8_t* p, uint64_t n) { f.write(p, n); });
    f.commit();
}

std::vector<uint8_t> emit_to_memory(const Layout& layout) {
    std::vector<uint8_t> out;
    emit(layout, [&](const uint8_t* p, uint64_t n) { out.insert(out.end(), p, p + n); });
    return out;
}

void replace_page(Layout& l, PageKey key, std::span<const uint8_t> payload, int32_t compression, uint64_t reserve,
                  RepackReport& r) {
    const size_t i = find_index(l, key);
    if (i == SIZE_MAX) usage(format("page %s is not in the file", key_text(key).c_str()));
    const uint64_t size =
        checked_payload_size(compression, payload, payload.size(), "replacement for " + key_text(key));
    LayoutNode& n = l.nodes[i];
    n.compression = compression;
    n.payload = own(l, payload, size);
    n.payload_path = -1;
    n.payload_size = size;
    n.slack_src = {};
    if (n.used() <= n.reservation) {
        ++r.replaced_in_place;
        return;
    }
    LayoutNode moved = n;
    const uint64_t freed = n.reservation;
    moved.reservation = align_to_scale(moved.used() + reserve, l.scale());
    l.nodes.erase(l.nodes.begin() + i);
    if (i > 0 && (l.nodes[i - 1].reservation + freed) / l.scale() <= kMaxChildUnits) {
        // The page before takes the freed bytes as slack, so no other page moves.
        l.nodes[i - 1].reservation += freed;
        r.absorbed += freed;
    }
    l.nodes.push_back(moved);
    ++r.relocated;
}

void add_page(Layout& l, PageKey key, std::span<const uint8_t> payload, int32_t compression, uint64_t reserve,
              RepackReport& r) {
    check_on_grid(l, key);
    if (find_index(l, key) != SIZE_MAX) usage(format("page %s is already in the file", key_text(key).c_str()));
    if (key.level + 1 < l.header.num_levels &&
        find_index(l, {uint16_t(key.level + 1), uint16_t(key.x >> 1), uint16_t(key.y >> 1)}) == SIZE_MAX)
        usage(format("page %s cannot be added: its parent is not in the file", key_text(key).c_str()));
    const uint64_t size = checked_payload_size(compression, payload, payload.size(), "new page " + key_text(key));
    LayoutNode n;
    n.key = key;
    n.compression = compression;
    n.payload = own(l, payload, size);
    n.payload_size = size;
    n.reservation = align_to_scale(n.used() + reserve, l.scale());
    l.nodes.push_back(n);
    ++r.added;
}

void remove_subtree(Layout& l, PageKey key, RepackReport& r) {
    if (find_index(l, key) == SIZE_MAX) usage(format("page %s is not in the file", key_text(key).c_str()));
    if (key.level + 1 == l.header.num_levels) usage("the top page cannot be removed");
    const size_t before = l.nodes.size();
    std::erase_if(l.nodes, [&](const LayoutNode& n) { return is_ancestor_or_self(key, n.key); });
    r.removed += before - l.nodes.size();
}

void compact(Layout& l) {
    for (auto& n : l.nodes) {
        n.reservation = align_to_scale(n.used(), l.scale());
        n.slack_src = {};
    }
}

} // namespace af::vtpages
