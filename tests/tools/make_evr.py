#!/usr/bin/env python3
"""Write a synthetic Echo VR package set that follows docs/evr-format.md, plus a JSON manifest of it.

An independent writer to test readers, extractors and repackers against; it is not the project's writer.
  make_evr.py --out DIR --seed N [--files K] [--frame-size B] [--part-size B] [--name NAME]
              [--corrupt KIND] [--quirks] [--from-dir TREE]
Writes DIR/manifests/NAME, DIR/packages/NAME_0 .. NAME_<P-1> and DIR/manifest.json. manifest.json lists
every file in manifest order (type and file symbol, frame, offset, size, sha256 of the stored bytes) and
what an extractor must write for it (path relative to its output root, sha256), every frame record, and
the corruption applied, if any. --from-dir packs TREE/[<group>/]<type hex>/<file hex>[.ext] instead of
synthetic content (a raw-BC file given as .dds has its DDS header stripped). --corrupt damages the set in
one way a reader must refuse (names in CORRUPTIONS). --quirks adds legal oddities seen in or allowed by
the spec (24 in the archive header-length field, a non-zero final frame record, an unreferenced frame).
Deterministic: the same arguments give the same bytes (with the same libzstd version).
Needs python3-zstandard (apt-get install -y python3-zstandard).
"""
import argparse, hashlib, json, os, random, struct, sys
import zstandard

T_DDS, T_RAW, T_META = 0xBEAC1969CB7B8861, 0x7F5BC1CF8CE51FFD, 0x2F6E61706A2C8F35
OTHER_TYPES = [0x38EE951A26FB816A, 0xCA6CD085401CBC87]      # audio / asset references (opaque here)
BC = {}                                                      # DXGI format -> (bytes per 4x4 block, family)
for fam, (lo, bb) in enumerate([(70, 8), (73, 16), (76, 16), (79, 8), (82, 16), (94, 16), (97, 16)]):
    for f in range(lo, lo + 3):
        BC[f] = (bb, fam)
GEN_FORMATS = [71, 72, 77, 78, 80, 83, 84, 95, 96, 98, 99]
SRGB = {72, 75, 78, 99}
LEGACY = {b"DXT1": 71, b"DXT2": 74, b"DXT3": 74, b"DXT4": 77, b"DXT5": 77, b"ATI1": 80, b"BC4U": 80,
          b"BC4S": 81, b"ATI2": 83, b"BC5U": 83, b"BC5S": 84}
CORRUPTIONS = ["truncated-part", "truncated-manifest", "frame-offset", "frame-length", "file-bounds",
               "bad-magic", "count-mismatch", "zstd-garbage",
               "package-index", "missing-part", "frame-index", "archive-length", "archive-csize",
               "element-size", "trailing-bytes", "sections-overflow"]


def die(msg):
    sys.exit(f"make_evr: {msg}")


def rbytes(rng, n):
    return rng.getrandbits(8 * n).to_bytes(n, "little") if n > 0 else b""


def chain_size(w, h, mips, bb, layers=1):
    total = 0
    for _ in range(mips):
        total += max(1, (w + 3) // 4) * max(1, (h + 3) // 4) * bb
        w, h = max(1, w // 2), max(1, h // 2)
    return total * layers


def dds_header(w, h, mips, fmt, layers=1):
    """The 148-byte DX10 header of spec section 10.3 (what DirectXTex writes for a 2D BC texture)."""
    top = max(1, (w + 3) // 4) * max(1, (h + 3) // 4) * BC[fmt][0]
    hdr = struct.pack("<4s7I44x", b"DDS ", 124, 0xA1007, h, w, top, 1, mips)
    hdr += struct.pack("<II4s5I", 32, 4, b"DX10", 0, 0, 0, 0, 0)
    hdr += struct.pack("<5I", 0x1000 | (0x400008 if mips > 1 else 0), 0, 0, 0, 0)
    return hdr + struct.pack("<5I", fmt, 3, 0, layers, 0)


def extracted(f, metas):
    """(extension, bytes) an extractor must write for file f: spec section 11."""
    t, data = f["type"], f["data"]
    if t == T_DDS:
        return ".dds", data
    if t == T_META:
        return ".tmeta", data
    if t != T_RAW:
        return ".bin", data
    m = metas.get(f["file"])
    if m is None or len(m) != 256:
        return ".bc", data
    w, h, mips, fmt = struct.unpack_from("<4I", m)
    layers = struct.unpack_from("<I", m, 28)[0] or 1
    if fmt not in BC or not 1 <= w <= 16384 or not 1 <= h <= 16384 or layers > 2048 \
            or not 1 <= mips <= max(w, h).bit_length():
        return ".bc", data
    if len(data) != chain_size(w, h, mips, BC[fmt][0], layers):
        return ".bc", data
    return ".dds", dds_header(w, h, mips, fmt, layers) + data


def strip_dds(b, meta, where):
    """DDS file given for a raw-BC entry -> the raw payload (spec section 10.4), with its checks."""
    u32 = lambda o: struct.unpack_from("<I", b, o)[0]
    if len(b) < 128 or b[:4] != b"DDS " or u32(4) != 124:
        die(f"{where}: not a DDS file (needs 'DDS ' and a 124-byte header)")
    h, w, mips, fourcc = u32(12), u32(16), max(1, u32(28)), b[84:88]
    if u32(112) & 0x200200:
        die(f"{where}: cubemap or volume DDS; raw-BC entries hold plain 2D textures")
    if fourcc == b"DX10":
        if len(b) < 148:
            die(f"{where}: DX10 header truncated")
        fmt, layers, hl = u32(128), max(1, u32(140)), 148
        if u32(132) != 3 or u32(136) & 4:
            die(f"{where}: DX10 header is not a plain 2D texture (dimension {u32(132)}, misc flag {u32(136)})")
    elif fourcc in LEGACY:
        fmt, layers, hl = LEGACY[fourcc], 1, 128
    else:
        die(f"{where}: pixel format {fourcc!r} is not a BC format")
    if fmt not in BC:
        die(f"{where}: DXGI format {fmt} is not a BC format")
    want = chain_size(w, h, mips, BC[fmt][0], layers)
    if len(b) - hl != want:
        die(f"{where}: {len(b) - hl} data bytes after the header, {w}x{h} {mips} mips needs {want}")
    if meta is not None:
        mw, mh, mm, mf = struct.unpack_from("<4I", meta)
        ml = struct.unpack_from("<I", meta, 28)[0] or 1
        if (mw, mh, max(1, mm), ml) != (w, h, mips, layers) or BC.get(mf, (0, -1))[1] != BC[fmt][1]:
            die(f"{where}: DDS is {w}x{h}, {mips} mips, format {fmt}, {layers} layers but its metadata "
                f"says {mw}x{mh}, {mm} mips, format {mf}, {ml} layers")
    return b[hl:]


def tmeta(rng, w, h, mips, fmt, raw_size):
    flags = (1 if fmt in SRGB else 0) | (2 if fmt in (83, 84) else 0)
    if rng.random() < 0.3:                       # the game may store a rounded raw size (spec 10.2)
        raw_size = (raw_size + 63) // 64 * 64
    reserved = bytearray(224)
    if rng.random() < 0.3:
        reserved[rng.randrange(224)] = rng.randint(1, 255)
    return struct.pack("<8I", w, h, mips, fmt, raw_size + 148, raw_size, flags, 1) + bytes(reserved)


def opaque(rng, n):
    if rng.random() < 0.5:
        return rbytes(rng, n)
    unit = rbytes(rng, rng.randint(1, 16))
    return (unit * (n // len(unit) + 1))[:n]


def synth(rng, k, frame_size):
    files, seen = [], set()

    def sym(*types):
        while True:
            s = rng.getrandbits(64) >> (4 if rng.random() < 0.15 else 0)   # some with a leading 0 nibble
            if not any((t, s) in seen for t in types):
                seen.update((t, s) for t in types)
                return s

    def tex():
        fmt, w, h = rng.choice(GEN_FORMATS), rng.choice([1, 2, 3, 4, 6, 8, 12, 16, 20, 32, 64]), \
            rng.choice([1, 2, 4, 5, 8, 16, 24, 32, 64])
        full = max(w, h).bit_length()
        mips = rng.choice([1, full, rng.randint(1, full)])
        bb = BC[fmt][0]
        pal = [rbytes(rng, bb) for _ in range(rng.randint(1, 4))]
        return fmt, w, h, mips, b"".join(rng.choice(pal) for _ in range(chain_size(w, h, mips, bb) // bb))

    others = OTHER_TYPES + [rng.getrandbits(64) for _ in range(2)]
    if k >= 4:
        files.append(dict(type=rng.choice(others), data=b""))
        files.append(dict(type=rng.choice(others), data=opaque(rng, frame_size + rng.randint(1, 999))))
        files[0]["file"], files[1]["file"] = sym(files[0]["type"]), sym(files[1]["type"])
    while len(files) < k:
        kind = rng.choice("dddrrrrbbbb")
        if kind == "d" or (kind == "r" and len(files) == k - 1):
            fmt, w, h, mips, data = tex()
            s = sym(T_DDS, T_META)
            files.append(dict(type=T_DDS, file=s, data=dds_header(w, h, mips, fmt) + data))
            if rng.random() < 0.3:
                files.append(dict(type=T_META, file=s, data=tmeta(rng, w, h, mips, fmt, len(data))))
        elif kind == "r":
            fmt, w, h, mips, data = tex()
            s, v = sym(T_RAW, T_META), rng.random()
            meta = tmeta(rng, w, h, mips, fmt, len(data))
            if v < 0.15:                          # size disagrees with the metadata: extracted as .bc
                data = data[:-BC[fmt][0]] if len(data) > BC[fmt][0] else data + rbytes(rng, 8)
            files.append(dict(type=T_RAW, file=s, data=data))
            if v >= 0.3 or v < 0.15:              # 0.15..0.3: no metadata at all
                files.append(dict(type=T_META, file=s, data=meta))
        else:
            t = rng.choice(others)
            files.append(dict(type=t, file=sym(t), data=opaque(rng, rng.choice(
                [rng.randint(1, 64), rng.randint(65, 3000)]))))
    rng.shuffle(files)
    return files[:k]


def scan_tree(root):
    entries, seen = [], {}
    for dirpath, dirnames, names in os.walk(root):
        dirnames.sort()
        for name in sorted(names):
            rel = os.path.relpath(os.path.join(dirpath, name), root).split(os.sep)
            if len(rel) not in (2, 3) or (len(rel) == 3 and not rel[0].isdigit()):
                die(f"{'/'.join(rel)}: expected [<group>/]<type hex>/<file hex>[.ext]")
            try:
                t = int(rel[-2][2:] if rel[-2].lower().startswith("0x") else rel[-2], 16)
                stem, ext = (rel[-1].split(".", 1) + [""])[:2]
                f = int(stem[2:] if stem.lower().startswith("0x") else stem, 16)
            except ValueError:
                die(f"{'/'.join(rel)}: directory and file names must be hex symbols")
            if not (t < 1 << 64 and f < 1 << 64) or (t, f) in seen:
                die(f"{'/'.join(rel)}: symbol out of range or duplicate of {seen.get((t, f))}")
            seen[(t, f)] = "/".join(rel)
            data = open(os.path.join(dirpath, name), "rb").read()
            entries.append(dict(type=t, file=f, data=data, ext="." + ext.lower() if ext else "",
                                group=int(rel[0]) if len(rel) == 3 else -1, where="/".join(rel)))
    entries.sort(key=lambda e: (e["group"], e["type"], e["file"]))
    metas = {e["file"]: e["data"] for e in entries if e["type"] == T_META}
    for e in entries:
        if e["type"] == T_RAW and e["ext"] == ".dds":
            e["data"] = strip_dds(e["data"], metas.get(e["file"]), e["where"])
    return entries


def pack(files, rng, frame_size, part_size, quirks):
    frames, cur, members, group = [], bytearray(), [], None

    def flush():
        if cur:
            frames.append(bytes(cur))
            cur.clear(), members.clear()
    for f in files:
        size, a = len(f["data"]), f["align"]
        if f.get("group", -1) != group and group is not None and cur:
            flush()
        group = f.get("group", -1)
        pad = (-len(cur)) % a
        if cur and size and len(cur) + pad + size > frame_size:
            flush()
            pad = 0
        cur.extend(bytes(pad))
        f["frame"], f["offset"] = len(frames), len(cur)
        cur.extend(f["data"])
        members.append(f)
    flush()
    for f in members:              # only empty files are left: end of the last frame, or the first marker
        f["frame"], f["offset"] = (len(frames) - 1, len(frames[-1])) if frames else (0, 0)
    if quirks:                                    # a frame no file points at (left over by a patch)
        frames.append(opaque(rng, rng.randint(1, 500)))
    parts, records = [bytearray()], []
    for data in frames:
        z = zstandard.ZstdCompressor(level=rng.choice([1, 3, 9]), write_content_size=rng.random() < 0.6,
                                     write_checksum=rng.random() < 0.3).compress(data)
        if parts[-1] and len(parts[-1]) + len(z) > part_size:
            parts.append(bytearray())
        records.append([len(parts) - 1, len(parts[-1]), len(z), len(data)])
        parts[-1] += z
    records += [[i, len(p), 0, 0] for i, p in enumerate(parts)]
    records.append([0, 0, rng.randint(1, 1 << 31) if quirks else 0, 0])
    return [bytes(p) for p in parts], records


def manifest_body(m):
    body = struct.pack("<IIQ", m["pcount"], m["hu1"], m["hu2"])
    tables = [(m["fcs"], "<QQIIII", 32), (m["mds"], "<5Q", 40), (m["frames"], "<4I", 16)]
    for i, (rows, fmt, esz) in enumerate(tables):
        n = len(rows)
        sec = dict(length=n * esz, unk1=0, unk2=1 << 32, esize=esz, count=n, ecount=n)
        sec.update(m["sec_override"].get(i, {}))
        body += struct.pack("<6Q", sec["length"], sec["unk1"], sec["unk2"], sec["esize"], sec["count"],
                            sec["ecount"]) + (bytes(16) if i < 2 else b"")
    for rows, fmt, _ in tables:
        body += b"".join(struct.pack(fmt, *r) for r in rows)
    return body


def corrupt(kind, m, rng):
    """Damage the model before it is written; return a function that damages the written files."""
    used = {row[2] for row in m["fcs"]}
    data_frames = [i for i, r in enumerate(m["frames"]) if r[3] > 0 and i in used]
    fi = rng.choice(data_frames)
    pk, off, cs, ln = m["frames"][fi]
    late = lambda out: None
    if kind == "truncated-part":
        fi = max(i for i in data_frames if m["frames"][i][0] == pk)
        pk, off, cs, ln = m["frames"][fi]
        m["parts"][pk] = m["parts"][pk][:off + cs // 2]
    elif kind == "frame-offset":
        m["frames"][fi][1] = len(m["parts"][pk]) + rng.randint(0, 64)
    elif kind == "frame-length":
        m["frames"][fi][3] = ln + 1
    elif kind == "file-bounds":
        j = rng.choice([j for j, r in enumerate(m["fcs"]) if m["frames"][r[2]][3] > 0])
        m["fcs"][j][4] = m["frames"][m["fcs"][j][2]][3] - m["fcs"][j][3] + rng.randint(1, 64)
        fi = j
    elif kind == "count-mismatch":
        s, k = rng.randrange(3), rng.randint(1, 3)
        esz, n = (32, 40, 16)[s], len((m["fcs"], m["mds"], m["frames"])[s])
        m["sec_override"][s] = rng.choice([dict(count=n + k, ecount=n + k), dict(length=(n + k) * esz)])
        fi = s
    elif kind == "zstd-garbage":
        z = bytearray(m["parts"][pk][off:off + cs])
        hs = zstandard.frame_header_size(bytes(z))
        while True:
            z[hs:] = rbytes(rng, cs - hs)
            d = zstandard.ZstdDecompressor().decompressobj()
            try:
                d.decompress(bytes(z))
                if not d.eof:
                    break
            except zstandard.ZstdError:
                break
        m["parts"][pk] = m["parts"][pk][:off] + bytes(z) + m["parts"][pk][off + cs:]
    elif kind == "package-index":
        m["frames"][fi][0] = m["pcount"] + rng.randint(0, 3)
    elif kind == "frame-index":
        fi = rng.randrange(len(m["fcs"]))
        m["fcs"][fi][2] = len(m["frames"]) + rng.randint(0, 5)
    elif kind == "element-size":
        s = rng.randrange(3)
        esz, n = rng.choice([8, 24, 48, 64]), len((m["fcs"], m["mds"], m["frames"])[s])
        m["sec_override"][s] = dict(esize=esz, length=n * esz)
        fi = s
    elif kind == "trailing-bytes":             # junk right after the frame, later records of the part move
        extra, end = rbytes(rng, rng.randint(1, 16)), off + cs
        m["parts"][pk] = m["parts"][pk][:end] + extra + m["parts"][pk][end:]
        for i, r in enumerate(m["frames"]):
            if r[0] == pk and r[1] >= end and i != fi:
                r[1] += len(extra)
        m["frames"][fi][2] += len(extra)
    elif kind == "sections-overflow":
        n = len(m["frames"]) + rng.randint(1, 4)
        m["sec_override"][2] = dict(count=n, ecount=n, length=16 * n)
        fi = 2
    elif kind == "missing-part":
        late = lambda out: os.remove(os.path.join(out, "packages", f"{m['name']}_{pk}"))
        fi = pk
    elif kind == "archive-length":
        m["ulen_delta"] = rng.choice([-1, 1]) * rng.randint(1, 100)
    elif kind == "archive-csize":
        m["clen_delta"] = rng.choice([-1, 1]) * rng.randint(1, 8)
    elif kind == "bad-magic":
        m["magic"] = rng.choice([b"ZSTX", b"\x28\xb5\x2f\xfd", b"zstd", b"DDS "])
    elif kind == "truncated-manifest":
        m["cut"] = True
    what = {"file-bounds": "file", "frame-index": "file", "count-mismatch": "section", "element-size":
            "section", "sections-overflow": "section", "missing-part": "part"}.get(kind, "frame")
    if kind in ("bad-magic", "truncated-manifest", "archive-length", "archive-csize"):
        return dict(kind=kind, target="archive header" if kind != "truncated-manifest" else "archive"), late
    return dict(kind=kind, target=f"{what} {fi}"), late


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--files", type=int, default=24)
    ap.add_argument("--frame-size", type=int, default=8192, help="most decompressed bytes per frame")
    ap.add_argument("--part-size", type=int, default=2**31 - 1, help="most bytes per package part")
    ap.add_argument("--name", help="package name (default: 16 hex digits from the seed)")
    ap.add_argument("--corrupt", choices=CORRUPTIONS)
    ap.add_argument("--quirks", action="store_true")
    ap.add_argument("--from-dir")
    a = ap.parse_args()
    if a.frame_size < 1 or a.part_size < 1 or a.files < 0:
        die("--frame-size, --part-size must be >= 1 and --files >= 0")
    rng = random.Random(a.seed)
    name = a.name or f"{rng.getrandbits(64):016x}"
    files = scan_tree(a.from_dir) if a.from_dir else synth(rng, a.files, a.frame_size)
    for f in files:
        f["align"] = rng.choice([1, 1, 4, 8, 16])
        f["meta"] = [rng.choice([0, rng.getrandbits(64)]), rng.choice([0, rng.getrandbits(64)]),
                     {T_DDS: 0x11B1393FF, T_RAW: 0x11B1393FE}.get(f["type"], rng.choice([0, rng.getrandbits(40)]))]
    parts, records = pack(files, rng, a.frame_size, a.part_size, a.quirks)
    m = dict(name=name, pcount=len(parts), hu1=524288, hu2=0, parts=parts, frames=records, sec_override={},
             fcs=[[f["type"], f["file"], f["frame"], f["offset"], len(f["data"]), f["align"]] for f in files],
             mds=[[f["type"], f["file"]] + f["meta"] for f in files], magic=b"ZSTD")
    if a.corrupt and not any(records[f["frame"]][3] for f in files):
        die("--corrupt needs at least one non-empty frame")
    info, late = corrupt(a.corrupt, m, rng) if a.corrupt else (None, lambda out: None)
    body = manifest_body(m)
    z = zstandard.ZstdCompressor(level=3, write_content_size=rng.random() < 0.5).compress(body)
    archive = struct.pack("<4sIQQ", m["magic"], 24 if a.quirks else 16, len(body) + m.get("ulen_delta", 0),
                          len(z) + m.get("clen_delta", 0)) + z
    if m.get("cut"):
        archive = archive[:rng.randint(25, len(archive) - 1)]
    os.makedirs(os.path.join(a.out, "manifests"), exist_ok=True)
    os.makedirs(os.path.join(a.out, "packages"), exist_ok=True)
    open(os.path.join(a.out, "manifests", name), "wb").write(archive)
    for i, p in enumerate(m["parts"]):
        open(os.path.join(a.out, "packages", f"{name}_{i}"), "wb").write(p)
    late(a.out)

    sha = lambda b: hashlib.sha256(b).hexdigest()
    metas = {f["file"]: f["data"] for f in files if f["type"] == T_META}
    listing = []
    for i, f in enumerate(files):
        ext, out = extracted(f, metas)
        kind = {T_DDS: "dds", T_META: "tmeta", T_RAW: "rawbc-" + ext[1:]}.get(f["type"], "opaque")
        listing.append(dict(index=i, type=f"{f['type']:016x}", file=f"{f['file']:016x}", frame=f["frame"],
                            offset=f["offset"], size=len(f["data"]), alignment=f["align"], kind=kind,
                            sha256=sha(f["data"]), extract_path=f"{f['type']:016x}/{f['file']:016x}{ext}",
                            extract_sha256=sha(out)))
    doc = dict(name=name, seed=a.seed, args={k: v for k, v in vars(a).items() if k != "out"},
               expect="error" if a.corrupt else "ok", corrupt=info, quirks=a.quirks,
               manifest=dict(path=f"manifests/{name}", archive_size=len(archive), body_size=len(body),
                             sha256=sha(archive)),
               package_count=len(parts),
               parts=[dict(path=f"packages/{name}_{i}", size=len(p), sha256=sha(p)) for i, p in enumerate(parts)],
               frames=[dict(index=i, package=r[0], offset=r[1], csize=r[2], length=r[3]) for i, r in
                       enumerate(m["frames"])],
               files=listing)
    with open(os.path.join(a.out, "manifest.json"), "w") as fh:
        json.dump(doc, fh, indent=1)
    n_data = sum(1 for r in records if r[3])
    print(f"wrote {a.out}: {len(files)} files, {n_data} data frames, {len(parts)} part(s)"
          + (f", corrupted: {a.corrupt}" if a.corrupt else ""))


if __name__ == "__main__":
    main()
