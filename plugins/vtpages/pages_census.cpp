#include "pages_census.hpp"

#include "assetforge/plugin.hpp"

#include <algorithm>
#include <vector>

namespace af::vtpages {

using sdk::format;
using sdk::invalid;
using ull = unsigned long long;

namespace {

// What the tiling check keeps per page: offsets and lengths in scale units,
// exactly as the links store them.
struct Span {
    uint32_t offset_units;
    uint16_t length_units;
};
static_assert(sizeof(Span) == 8);

} // namespace

Census take_census(const PagesFile& file, bool check_header) {
    if (check_header) {
        auto problems = file.header_problems();
        if (!problems.empty()) invalid(0, "header: " + problems.front());
    }
    Census c;
    c.file_size = file.size();
    const uint64_t scale = file.scale();
    std::vector<Span> spans;
    // Capacity is only address space until touched, so the bound costs nothing resident.
    spans.reserve(size_t(std::min<uint64_t>(complete_tree_nodes(file.levels()), file.size() / kNodeHeaderSize)));

    walk_tree(file, [&](const WalkStep& s) {
        const PageInfo& p = s.page;
        ++c.pages;
        if (s.parent_offset != kRootPointerOffset) ++c.edges;
        ++c.per_level[p.node.level];
        ++c.per_compression[p.node.compression];
        c.node_header_bytes += kNodeHeaderSize;
        c.used += p.used();
        c.slack += p.slack();
        if (p.slack()) ++c.pages_with_slack;
        if (p.slack() == 2048) ++c.slack_2048;
        c.max_slack = std::max(c.max_slack, p.slack());
        if (p.has_sub) {
            const PayloadLayout l = payload_layout(p.sub);
            c.sub_header_bytes += kSubHeaderSize;
            for (int b = 0; b < kBlockCount; ++b) c.block_bytes[b] += l.block_size[b];
            c.cover_bytes += l.cover_size;
            c.cover_masks += l.cover_size ? 1 : 0;
            c.pad_bytes += l.pad;
            ++c.flags[p.sub.flags];
        } else {
            c.opaque_payload_bytes += p.payload;
        }
        spans.push_back({uint32_t(p.offset / scale), uint16_t(p.reserved / scale)});
    });
    c.used += c.header_bytes;

    std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.offset_units < b.offset_units; });
    uint64_t at = kFirstNodeOffset;
    for (const Span& s : spans) {
        const uint64_t off = uint64_t(s.offset_units) * scale, len = uint64_t(s.length_units) * scale;
        if (off < at)
            invalid(off, format("overlapping nodes: node at %llu starts inside the reservation of the node before it "
                                "(which ends at %llu)",
                                ull(off), ull(at)));
        if (off > at)
            invalid(at, format("bytes [%llu, %llu) are not reserved by any node (unreferenced)", ull(at), ull(off)));
        at = off + len;
    }
    if (at != file.size())
        invalid(at, format("bytes [%llu, %llu) at the end of the file are not reserved by any node (unreferenced)",
                           ull(at), ull(file.size())));
    if (c.used + c.slack != c.file_size)
        invalid(AF_NO_OFFSET, format("accounting: %llu used + %llu slack != %llu file bytes", ull(c.used), ull(c.slack),
                                     ull(c.file_size)));
    return c;
}

std::string selftest_line(const std::string& name, const Census& c) {
    return format("selftest ok: %s, %llu sentences, %llu edges, %llu B + %llu B slack = %llu B", name.c_str(),
                  ull(c.pages), ull(c.edges), ull(c.used), ull(c.slack), ull(c.file_size));
}

} // namespace af::vtpages
