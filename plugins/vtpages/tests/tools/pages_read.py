#!/usr/bin/env python3
"""An independent `.pages` reader for property tests, written from the format's
description (the plugin's README and the project's format notes), sharing no
code with the plugin: reads the header and walks the quadtree from the root
pointer, checking every rule a file must obey, and returns each page's
compression and payload.

    read_pages(bytes) -> dict {(level, x, y): (compression, payload bytes)}, header dict
Raises ValueError naming the offset and rule on any violation.
"""
import struct

MAGIC_FILE, MAGIC_NODE = 0x77339904, 0xCABFED04


def payload_length(body):
    """Payload length from the 16-byte sub-header (compression 3..6)."""
    if len(body) < 16:
        raise ValueError("payload shorter than its 16-byte sub-header")
    flags = body[4]
    sizes = struct.unpack(">5H", body[6:16])
    n = 16 + sum(sizes) + (2048 if flags & 8 else 0)
    return (n + 1) & ~1


def read_pages(data):
    if len(data) < 72:
        raise ValueError("file shorter than header + root pointer")
    magic, across, _installed, levels, _layout, total_pages, scale, total = struct.unpack_from("<IiihhiiQ", data, 0)
    if magic != MAGIC_FILE:
        raise ValueError("offset 0: bad magic 0x%08x" % magic)
    if scale == 0:
        scale = 64
    if across != 1 << (levels - 1):
        raise ValueError("offset 4: across %d != 1 << (levels - 1) with levels %d" % (across, levels))
    if total_pages != (4 ** levels - 1) // 3:
        raise ValueError("offset 16: totalPages %d is not a complete quadtree's" % total_pages)
    if total != len(data):
        raise ValueError("offset 24: totalFileSize %d != file size %d" % (total, len(data)))
    used = [(0, 72)]  # header and root pointer
    pages = {}

    def node(off):
        if off + 40 > len(data):
            raise ValueError("offset %d: node header outside the file" % off)
        m, comp = struct.unpack_from("<Ii", data, off)
        if m != MAGIC_NODE:
            raise ValueError("offset %d: bad node magic 0x%08x" % (off, m))
        offs = struct.unpack_from("<4I", data, off + 8)
        lens = struct.unpack_from("<4H", data, off + 24)
        x, y, lvl, _r = struct.unpack_from("<4H", data, off + 32)
        return comp, offs, lens, x, y, lvl

    rcomp, roffs, rlens, _, _, _ = node(32)
    if rcomp != 0:
        raise ValueError("offset 32: root pointer compression %d != 0" % rcomp)
    if rlens[0] == 0:
        return pages, dict(levels=levels, scale=scale, size=len(data))
    stack = [(roffs[0] * scale, rlens[0] * scale, (levels - 1, 0, 0))]
    while stack:
        off, reserved, want = stack.pop()
        comp, offs, lens, x, y, lvl = node(off)
        if (lvl, x, y) != want:
            raise ValueError("offset %d: node says level %d (%d, %d), its parent implies %s" % (off, lvl, x, y, want))
        if want in pages:
            raise ValueError("offset %d: page %s reached twice" % (off, want))
        if not 1 <= comp <= 6:
            raise ValueError("offset %d: compression %d" % (off, comp))
        if comp >= 3:
            plen = payload_length(data[off + 40:off + 40 + 16])
        else:
            plen = reserved - 40  # raw pages: the reservation is all the node has
        if 40 + plen > reserved or off + reserved > len(data):
            raise ValueError("offset %d: node of %d bytes outside its reservation %d" % (off, 40 + plen, reserved))
        used.append((off, off + reserved))
        pages[want] = (comp, bytes(data[off + 40:off + 40 + plen]))
        for i in range(4):
            if lens[i] == 0:
                continue
            if lvl == 0:
                raise ValueError("offset %d: a finest-level page has a child" % off)
            cx, cy = 2 * x + (i & 1), 2 * y + (i >> 1)
            stack.append((offs[i] * scale, lens[i] * scale, (lvl - 1, cx, cy)))
    used.sort()
    for (a0, a1), (b0, b1) in zip(used, used[1:]):
        if b0 < a1:
            raise ValueError("offset %d: reservations overlap (%d..%d and %d..%d)" % (b0, a0, a1, b0, b1))
    return pages, dict(levels=levels, scale=scale, size=len(data))
