#!/usr/bin/env python3
"""Independent reader for Echo VR package sets (layout: docs/evr-format.md): list, extract, verify.

  evr_read.py list    MANIFEST [--json]
  evr_read.py extract MANIFEST --out DIR [--groups]
  evr_read.py verify  MANIFEST [--strict] [--against ORIGINAL_MANIFEST]
MANIFEST is <data>/manifests/<name>; parts are read from <data>/packages/<name>_<N> (or --packages DIR).
extract writes DIR/<type hex16>/<file hex16><ext> (DIR/<frame>/... with --groups), rebuilding a DDS for
raw-BC textures that have usable metadata. verify decompresses every frame and checks every bound;
--against also checks the repack rules of spec section 12 against the set the repack started from.
Bad input: "error: ..." on stderr, exit 1. Warnings go to stderr and fail only with --strict.
Needs python3-zstandard (apt-get install -y python3-zstandard).
"""
import argparse, hashlib, json, os, struct, sys
import zstandard

T_DDS, T_RAW, T_META = 0xBEAC1969CB7B8861, 0x7F5BC1CF8CE51FFD, 0x2F6E61706A2C8F35
BLOCK_BYTES = {f: (8 if f in (70, 71, 72, 79, 80, 81) else 16) for f in list(range(70, 85)) + list(range(94, 100))}
MAX_FRAME = 1 << 30          # refuse frames that claim more than 1 GiB decompressed
MAX_MANIFEST = 1 << 30
WARNINGS = []


class Bad(Exception):
    pass


def warn(msg):
    WARNINGS.append(msg)
    print(f"warning: {msg}", file=sys.stderr)


def sha(b):
    return hashlib.sha256(b).hexdigest()


def unzstd(data, length, what, claim="the manifest"):
    """Exactly one zstd frame, exactly `length` bytes out, nothing after it."""
    try:
        declared = zstandard.get_frame_parameters(data).content_size
    except zstandard.ZstdError as e:
        raise Bad(f"{what}: not a zstd frame ({e})")
    if declared != zstandard.CONTENTSIZE_UNKNOWN and declared != length:
        raise Bad(f"{what}: zstd frame declares {declared} bytes, {claim} says {length}")
    d, out, pos = zstandard.ZstdDecompressor().decompressobj(), bytearray(), 0
    try:
        while pos < len(data) and not d.eof:
            out += d.decompress(data[pos:pos + 4096])
            pos += 4096
            if len(out) > length:
                raise Bad(f"{what}: decompresses to more than the {length} bytes {claim} says")
    except zstandard.ZstdError as e:
        raise Bad(f"{what}: zstd error: {e}")
    if not d.eof:
        raise Bad(f"{what}: zstd frame is incomplete (truncated or corrupt)")
    extra = len(d.unused_data) + max(0, len(data) - pos)
    if extra:
        raise Bad(f"{what}: {extra} bytes follow the end of the zstd frame")
    if len(out) != length:
        raise Bad(f"{what}: decompresses to {len(out)} bytes, {claim} says {length}")
    return bytes(out)


def load(mpath, pdir=None):
    try:
        raw = open(mpath, "rb").read()
    except OSError as e:
        raise Bad(f"{mpath}: {e.strerror}")
    if len(raw) < 24:
        raise Bad(f"{mpath}: {len(raw)} bytes, shorter than the 24-byte archive header")
    magic, hlen, ulen, clen = struct.unpack_from("<4sIQQ", raw)
    if magic != b"ZSTD":
        raise Bad(f"{mpath}: archive magic {magic!r}, expected b'ZSTD'")
    if hlen not in (16, 24):
        raise Bad(f"{mpath}: archive header-length field {hlen}, expected 16")
    if hlen == 24:
        warn(f"{mpath}: archive header-length field is 24 (an old community writer's value; 16 expected)")
    if clen != len(raw) - 24:
        raise Bad(f"{mpath}: archive header says {clen} compressed bytes, {len(raw) - 24} follow the header")
    if not 192 <= ulen <= MAX_MANIFEST:
        raise Bad(f"{mpath}: archive header says the manifest has {ulen} bytes (needs 192 .. {MAX_MANIFEST})")
    body = unzstd(raw[24:], ulen, f"{mpath}: manifest payload", "the archive header")
    pcount, hu1, hu2 = struct.unpack_from("<IIQ", body)
    pos, tables, sec_unknown = 192, [], []
    for name, off, esize, fmt in (("FrameContents", 16, 32, "<QQIIII"), ("Metadata", 80, 40, "<5Q"),
                                  ("Frames", 144, 16, "<4I")):
        length, u1, u2, es, count, ecount = struct.unpack_from("<6Q", body, off)
        where = f"{mpath}: {name} section"
        if es != esize:
            raise Bad(f"{where}: element size {es}, expected {esize} (unsupported manifest layout)")
        if count != ecount:
            raise Bad(f"{where}: count {count} differs from element count {ecount}")
        if length != ecount * esize:
            raise Bad(f"{where}: length {length} is not {ecount} elements x {esize} bytes")
        if pos + length > len(body):
            raise Bad(f"{where}: bytes {pos}..{pos + length} run past the end of the {len(body)}-byte manifest")
        tables.append([list(r) for r in struct.iter_unpack(fmt, body[pos:pos + length])])
        sec_unknown.append([u1, u2])
        pos += length
    if pos != len(body):
        warn(f"{mpath}: {len(body) - pos} unexplained bytes after the Frames section")
    fcs, mds, frames = tables
    name = os.path.basename(mpath)
    pdir = pdir or os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(mpath))), "packages")
    if pcount > max(1, len(frames)):
        raise Bad(f"{mpath}: package count {pcount} exceeds the {len(frames)} frame records")
    parts = []
    for i in range(pcount):
        p = os.path.join(pdir, f"{name}_{i}")
        if not os.path.isfile(p):
            raise Bad(f"{p}: package part {i} of {pcount} is missing")
        parts.append((p, os.path.getsize(p)))
    if os.path.exists(os.path.join(pdir, f"{name}_{pcount}")):
        warn(f"{pdir}: part {name}_{pcount} exists but the manifest names only {pcount} part(s)")
    for i, (pk, off, cs, ln) in enumerate(frames):
        if ln == 0:
            continue                       # part-end markers and the final record: never read
        what = f"frame {i}"
        if cs == 0:
            raise Bad(f"{what}: length {ln} but no compressed bytes")
        if pk >= pcount:
            raise Bad(f"{what}: package index {pk}, but the manifest has {pcount} part(s)")
        if off + cs > parts[pk][1]:
            raise Bad(f"{what}: bytes {off}..{off + cs} run past the end of {parts[pk][0]} ({parts[pk][1]} bytes)")
        if ln > MAX_FRAME:
            raise Bad(f"{what}: length {ln} is over this reader's {MAX_FRAME}-byte limit")
    seen = {}
    for j, (t, f, fi, do, sz, al) in enumerate(fcs):
        what = f"file {j} ({t:016x}/{f:016x})"
        if fi >= len(frames):
            raise Bad(f"{what}: frame index {fi}, but there are {len(frames)} frame records")
        if do + sz > frames[fi][3]:
            raise Bad(f"{what}: bytes {do}..{do + sz} run past the end of frame {fi} ({frames[fi][3]} bytes)")
        if (t, f) in seen:
            raise Bad(f"{what}: same type and file symbol as file {seen[(t, f)]}")
        seen[(t, f)] = j
    return dict(path=mpath, name=name, hlen=hlen, pcount=pcount, hu1=hu1, hu2=hu2, sec_unknown=sec_unknown,
                pads=[body[64:80].hex(), body[128:144].hex()], fcs=fcs, mds=mds, frames=frames, parts=parts)


def compressed(s, i):
    pk, off, cs, _ = s["frames"][i]
    with open(s["parts"][pk][0], "rb") as fh:
        fh.seek(off)
        return fh.read(cs)


def frame_data(s, i):
    pk, off, cs, ln = s["frames"][i]
    if ln == 0:
        return b""
    return unzstd(compressed(s, i), ln, f"frame {i} ({s['parts'][pk][0]} @ {off}, {cs} bytes)")


def dds_for_raw(meta, raw, what):
    """Rebuilt DDS bytes for a raw-BC texture, or None (then it is written as .bc): spec 10.3."""
    if meta is None:
        return None
    if len(meta) != 256:
        warn(f"{what}: its metadata is {len(meta)} bytes, not 256; written as .bc")
        return None
    w, h, mips, fmt, _, _, _, layers = struct.unpack_from("<8I", meta)
    layers = layers or 1
    if fmt not in BLOCK_BYTES or not (0 < w <= 16384 and 0 < h <= 16384) or layers > 2048 \
            or not 0 < mips <= max(w, h).bit_length():
        warn(f"{what}: metadata {w}x{h}, {mips} mips, DXGI {fmt}, {layers} layers is not a BC texture "
             f"this reader can describe; written as .bc")
        return None
    need, mw, mh = 0, w, h
    for _ in range(mips):
        need += -(-mw // 4) * -(-mh // 4) * BLOCK_BYTES[fmt]
        mw, mh = max(mw // 2, 1), max(mh // 2, 1)
    need *= layers
    if need != len(raw):
        warn(f"{what}: {len(raw)} bytes, but {w}x{h} with {mips} mips of DXGI {fmt} needs {need}; written as .bc")
        return None
    top = -(-w // 4) * -(-h // 4) * BLOCK_BYTES[fmt]
    caps = 0x401008 if mips > 1 else 0x1000
    head = b"DDS " + struct.pack("<7I", 124, 0x000A1007, h, w, top, 1, mips) + bytes(44)
    head += struct.pack("<2I", 32, 4) + b"DX10" + bytes(20) + struct.pack("<I", caps) + bytes(16)
    return head + struct.pack("<5I", fmt, 3, 0, layers, 0) + raw


def metadata_map(s):
    wanted = {}
    for t, f, fi, do, sz, _ in s["fcs"]:
        if t == T_META:
            wanted.setdefault(fi, []).append((f, do, sz))
    metas = {}
    for fi, items in wanted.items():
        data = frame_data(s, fi)
        for f, do, sz in items:
            metas[f] = data[do:do + sz]
    return metas


def extract(s, out, groups):
    metas = metadata_map(s)
    by_frame = {}
    for j, row in enumerate(s["fcs"]):
        by_frame.setdefault(row[2], []).append(j)
    counts = {}
    for fi in sorted(by_frame):
        data = frame_data(s, fi)
        for j in by_frame[fi]:
            t, f, _, do, sz, _ = s["fcs"][j]
            blob, ext = data[do:do + sz], ".bin"
            if t == T_DDS:
                ext = ".dds"
            elif t == T_META:
                ext = ".tmeta"
            elif t == T_RAW:
                dds = dds_for_raw(metas.get(f), blob, f"file {j} ({t:016x}/{f:016x})")
                blob, ext = (dds, ".dds") if dds is not None else (blob, ".bc")
            d = os.path.join(out, str(fi), f"{t:016x}") if groups else os.path.join(out, f"{t:016x}")
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, f"{f:016x}{ext}"), "wb") as fh:
                fh.write(blob)
            counts[ext] = counts.get(ext, 0) + 1
    print(f"extracted {len(s['fcs'])} files to {out}: " + ", ".join(f"{n} {e}" for e, n in sorted(counts.items())))


def contents(s):
    """sha256 of every file's stored bytes, in manifest order (decompresses every referenced frame)."""
    cache, out = {}, []
    for t, f, fi, do, sz, _ in s["fcs"]:
        if fi not in cache:
            cache[fi] = frame_data(s, fi)
        out.append(sha(cache[fi][do:do + sz]))
    return out


def verify(s, strict, against):
    frames, used = s["frames"], {row[2] for row in s["fcs"]}
    spans = {}
    for i, (pk, off, cs, ln) in enumerate(frames):
        if ln:
            frame_data(s, i)
            spans.setdefault(pk, []).append((off, off + cs, i))
            if i not in used:
                warn(f"frame {i} holds no file")
        elif cs and i != len(frames) - 1:
            warn(f"frame {i}: empty record with {cs} compressed bytes")
    for pk, lst in spans.items():
        lst.sort()
        for (a0, a1, ai), (b0, b1, bi) in zip(lst, lst[1:]):
            if b0 < a1:
                warn(f"frames {ai} and {bi} overlap in {s['parts'][pk][0]}")
    for pk, (p, size) in enumerate(s["parts"]):
        if [pk, size, 0, 0] not in frames:
            warn(f"no end-of-part record [{pk}, {size}, 0, 0] for {p}")
    if not frames or frames[-1][3] != 0:
        warn("the frame table does not end with an empty record")
    if sorted((r[0], r[1]) for r in s["mds"]) != sorted((r[0], r[1]) for r in s["fcs"]):
        warn(f"the {len(s['mds'])} Metadata entries do not name the same files as the {len(s['fcs'])} FrameContents")
    problems, mine = [], len(WARNINGS)
    if against:
        original = load(against)
        del WARNINGS[mine:]            # the original's own warnings do not fail --strict
        problems = compare(original, s)
    for p in problems:
        print(f"error: {p}", file=sys.stderr)
    n_data = sum(1 for r in frames if r[3])
    if problems or (strict and WARNINGS):
        sys.exit(1)
    print(f"ok: {s['path']}: {len(s['fcs'])} files, {n_data} data frames, {len(frames)} frame records, "
          f"{s['pcount']} part(s), {len(WARNINGS)} warning(s)")


def compare(o, n):
    """Repack rules (spec 12) that a repacked set n must keep relative to its original o."""
    bad = []
    for key in ("hu1", "hu2", "sec_unknown", "pads"):
        if o[key] != n[key]:
            bad.append(f"unknown header field(s) {key} changed: {o[key]} -> {n[key]}")
    if len(n["fcs"]) < len(o["fcs"]):
        bad.append(f"{len(o['fcs'])} files before, {len(n['fcs'])} after")
    for j, (a, b) in enumerate(zip(o["fcs"], n["fcs"])):
        if (a[0], a[1], a[5]) != (b[0], b[1], b[5]):
            bad.append(f"file {j}: was {a[0]:016x}/{a[1]:016x} align {a[5]}, now {b[0]:016x}/{b[1]:016x} align {b[5]}")
    if n["mds"][:len(o["mds"])] != o["mds"]:
        bad.append("Metadata entries of the original files changed")
    osum, nsum = contents(o), contents(n)
    changed = {j for j in range(min(len(osum), len(nsum))) if osum[j] != nsum[j]}
    new_frames = {sha(compressed(n, i)) for i, r in enumerate(n["frames"]) if r[3]}
    for i, r in enumerate(o["frames"]):
        members = [j for j, row in enumerate(o["fcs"]) if row[2] == i]
        if r[3] and members and not changed & set(members) and sha(compressed(o, i)) not in new_frames:
            bad.append(f"original frame {i} holds no changed file but its compressed bytes were not kept")
    print("changed files: " + (", ".join(f"{o['fcs'][j][0]:016x}/{o['fcs'][j][1]:016x}" for j in sorted(changed))
                               or "none"))
    if len(n["fcs"]) > len(o["fcs"]):
        print("added files: " + ", ".join(f"{r[0]:016x}/{r[1]:016x}" for r in n["fcs"][len(o["fcs"]):]))
    return bad


def listing(s, as_json):
    if as_json:
        sums = contents(s)
        doc = dict(name=s["name"], package_count=s["pcount"], header_unknown=[s["hu1"], s["hu2"]],
                   section_unknown=s["sec_unknown"], archive_header_length=s["hlen"],
                   parts=[dict(path=p, size=n) for p, n in s["parts"]],
                   frames=[dict(index=i, package=r[0], offset=r[1], csize=r[2], length=r[3],
                                sha256=sha(compressed(s, i)) if r[3] else None) for i, r in enumerate(s["frames"])],
                   files=[dict(index=j, type=f"{r[0]:016x}", file=f"{r[1]:016x}", frame=r[2], offset=r[3],
                               size=r[4], alignment=r[5], sha256=sums[j]) for j, r in enumerate(s["fcs"])],
                   metadata=[dict(type=f"{r[0]:016x}", file=f"{r[1]:016x}", unknown=r[2:]) for r in s["mds"]])
        print(json.dumps(doc, indent=1))
        return
    n_data = sum(1 for r in s["frames"] if r[3])
    print(f"{s['name']}: {len(s['fcs'])} files, {n_data} data frames ({len(s['frames'])} records), "
          f"{s['pcount']} part(s)")
    for j, (t, f, fi, do, sz, al) in enumerate(s["fcs"]):
        print(f"{j:6d} {t:016x} {f:016x} frame {fi:5d} offset {do:8d} size {sz:8d} align {al}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["list", "extract", "verify"])
    ap.add_argument("manifest")
    ap.add_argument("--packages", help="directory of the package parts (default: ../packages)")
    ap.add_argument("--out", help="output directory (extract)")
    ap.add_argument("--groups", action="store_true", help="extract into <out>/<frame>/<type>/<file>")
    ap.add_argument("--json", action="store_true", help="list everything as JSON, with sha256s")
    ap.add_argument("--strict", action="store_true", help="verify: warnings are errors")
    ap.add_argument("--against", help="verify: the manifest this set was repacked from")
    a = ap.parse_args()
    try:
        s = load(a.manifest, a.packages)
        if a.command == "list":
            listing(s, a.json)
        elif a.command == "extract":
            if not a.out:
                ap.error("extract needs --out DIR")
            extract(s, a.out, a.groups)
        else:
            verify(s, a.strict, a.against)
    except Bad as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(1)
    except OSError as e:
        print(f"error: {e.filename}: {e.strerror}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
