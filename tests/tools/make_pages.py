#!/usr/bin/env python3
"""Write a synthetic id Tech 5 `.pages` file that follows plugins/vtpages/README.md, plus a JSON manifest.

An independent writer to test readers against: it is not the project's writer.
Usage: make_pages.py OUT.pages --levels 6 --seed 1 [--occupancy 0.3] [--slack-every 7]
                     [--scale 2] [--order bfs|dfs] [--compression 5]
The manifest (OUT.pages.json) lists every page (level, x, y, offset, reserved, flags, block sizes);
"pages" excludes the root pointer at offset 32 and "edges" counts parent-child links between pages
and the totals a selftest must report.
"""
import argparse, json, random, struct

MAGIC_FILE, MAGIC_NODE = 0x77339904, 0xCABFED04
PREFIX = {  # plane-header-like prefixes seen in retail blocks (diffuse, normal, specular, power)
    0: bytes.fromhex("7100a3c60a3c60a3c600ff00000100"),
    1: bytes.fromhex("d110a1a1aa1a1aa1a1a0ff00000100"),
    2: bytes.fromhex("d1008ca328c8ff00000100"),
    3: bytes.fromhex("d10094250940ff00000100"),
}

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out"); ap.add_argument("--levels", type=int, default=6)
    ap.add_argument("--seed", type=int, default=1); ap.add_argument("--occupancy", type=float, default=0.3)
    ap.add_argument("--slack-every", type=int, default=0, help="every Nth page gets 2048 B of 0xFF slack after it")
    ap.add_argument("--scale", type=int, default=2); ap.add_argument("--order", choices=["bfs", "dfs"], default="bfs")
    ap.add_argument("--compression", type=int, default=5)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    L = a.levels; across = 1 << (L - 1)

    # choose a sparse set of finest pages as axis-aligned rectangles (atlas-like), then close upwards
    present = set()
    for _ in range(max(1, int(across * across * a.occupancy / 16))):
        w, h = rnd.randint(1, max(1, across // 4)), rnd.randint(1, max(1, across // 4))
        x0, y0 = rnd.randrange(across), rnd.randrange(across)
        for y in range(y0, min(across, y0 + h)):
            for x in range(x0, min(across, x0 + w)):
                present.add((0, x, y))
    for lvl in range(1, L):
        for (l, x, y) in list(present):
            if l == lvl - 1:
                present.add((lvl, x >> 1, y >> 1))
    top = (L - 1, 0, 0); present.add(top)

    def children(p):
        l, x, y = p
        if l == 0: return [None] * 4
        out = [None] * 4
        for cy in (0, 1):
            for cx in (0, 1):
                c = (l - 1, 2 * x + cx, 2 * y + cy)
                if c in present: out[(cy << 1) | cx] = c
        return out

    order = []
    if a.order == "bfs":
        frontier = [top]
        while frontier:
            order += frontier
            frontier = [c for p in frontier for c in children(p) if c]
    else:
        stack = [top]
        while stack:
            p = stack.pop(); order.append(p)
            stack += [c for c in reversed(children(p)) if c]

    payload, meta = {}, {}
    for i, p in enumerate(order):
        flags = rnd.choice([5, 6, 6, 6, 14, 13])
        sizes = [rnd.randint(300, 4000), rnd.randint(500, 6000), rnd.randint(100, 2000), rnd.randint(20, 200), 0]
        blocks = b""
        for bi in range(4):
            pre = PREFIX[bi]
            blocks += pre + rnd.randbytes(sizes[bi] - len(pre))
        sub = bytes([30, 13, 25, 40, flags, 0]) + struct.pack(">5H", *sizes)
        cover = b""
        if flags & 8:
            cover = bytearray(b"\xff" * 2048)
            for _ in range(rnd.randint(0, 6)): cover[rnd.randrange(2048)] &= rnd.choice([0xE7, 0xEF])
            cover = bytes(cover)
        body = sub + blocks + cover
        if len(body) % 2: body += b"\x00"
        slack = 2048 if (a.slack_every and i % a.slack_every == a.slack_every - 1) else 0
        node_len = 40 + len(body)
        reserved = node_len + slack
        reserved += (-reserved) % a.scale
        payload[p] = body
        meta[p] = dict(level=p[0], x=p[1], y=p[2], flags=flags, sizes=sizes, node_len=node_len, reserved=reserved)

    # offsets: root pointer at 32, nodes from 72 in the chosen order
    off = 72
    for p in order:
        meta[p]["offset"] = off; off += meta[p]["reserved"]
    total = off

    def node(comp, kids, x, y, lvl):
        offs = [(meta[c]["offset"] // a.scale) if c else 0 for c in kids]
        lens = [(meta[c]["reserved"] // a.scale) if c else 0 for c in kids]
        return struct.pack("<Ii4I4HHHHH", MAGIC_NODE, comp, *offs, *lens, x, y, lvl, 0)

    out = bytearray()
    nodes_total = (4 ** L - 1) // 3
    out += struct.pack("<IiihhiiQ", MAGIC_FILE, across, 0, L, 1, nodes_total, a.scale, total)
    out += node(0, [top, None, None, None], 0, 0, 0)
    assert len(out) == 72
    for p in order:
        m = meta[p]
        assert len(out) == m["offset"]
        out += node(a.compression, children(p), m["x"], m["y"], m["level"]) + payload[p]
        pad = m["reserved"] - m["node_len"]
        out += b"\xff" * pad
    assert len(out) == total
    open(a.out, "wb").write(out)
    pages = [meta[p] for p in order]
    per_level = {}
    for m in pages: per_level[m["level"]] = per_level.get(m["level"], 0) + 1
    man = dict(file=a.out.split("/")[-1], bytes=total, across=across, levels=L, scale=a.scale,
               pages=len(pages), edges=len(pages) - 1, per_level=per_level,
               slack_bytes=sum(m["reserved"] - m["node_len"] for m in pages),
               cover_masks=sum(1 for m in pages if m["flags"] & 8), order=a.order, page_list=pages)
    json.dump(man, open(a.out + ".json", "w"), indent=1)
    print(f"wrote {a.out}: {total} B, {len(pages)} pages, {man['slack_bytes']} B slack, {man['cover_masks']} cover masks")

if __name__ == "__main__":
    main()
