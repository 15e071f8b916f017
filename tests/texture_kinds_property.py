#!/usr/bin/python3
"""Property test: every texture kind comes back right across formats x sizes x surfaces.

  texture_kinds_property.py ASSETFORGE [--cases N] [--seed S] [--keep DIR]

Each case draws a kind (half and float HDR, 8-bit SNORM with one or two channels, 8-bit UNORM, and the block
formats BC6H unsigned and signed, BC4/BC5 SNORM, BC7 made from them), a size (1..70, mostly not a multiple of 4),
a mip count (1 or the full chain), and surfaces (a cubemap when square, or 1..3 array layers). The source DDS is
written here, from the DDS layout alone (DX10 header; layers, then faces, then mips), so every texel's value is
known without the tool. Then:
  - extract: `convert --layer L --face F --mip M` of an uncompressed kind to DDS holds exactly that surface's
    bytes as written here;
  - re-save: `convert SRC OUT.dds --like SRC` keeps format, size, mip count, faces and layers (read back from
    the header here), the bytes of every uncompressed surface, and the blocks of every block surface, which the
    codec decodes and encodes again; checked by Pillow's decoder where it reads the format;
  - edit round trip: the export for editing (`.exr` for HDR kinds, `.png` for the rest) and back with --like,
    top level of the first surface: HDR bit-exact through EXR; SNORM and UNORM exact in value
    (-128 and -127 are both -1.0); a PNG export of HDR content warns of the clip exactly when a value is above 1;
  - compare: `compare --json` of the source with a copy where one texel moved gives the PSNR computed here
    from the format's own mapping (SNORM: x/127 clamped at -1, mapped to 0..1 as (x+1)/2).
A failure prints the case and its seed; the driver keeps its files with --keep.
"""
import json
import os
import struct
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "tools"))
from property_driver import drive  # noqa: E402

# kind: (DXGI format, bytes per texel or per block, block formats' block edge, channels, numpy type)
KINDS = {
    "R16G16B16A16_FLOAT": (10, 8, 1, 4, np.float16),
    "R32G32B32A32_FLOAT": (2, 16, 1, 4, np.float32),
    "R8G8B8A8_SNORM": (31, 4, 1, 4, np.int8),
    "R8G8_SNORM": (51, 2, 1, 2, np.int8),
    "R8G8B8A8_UNORM": (28, 4, 1, 4, np.uint8),
    "BC6H_UF16": (95, 16, 4, 3, None),
    "BC6H_SF16": (96, 16, 4, 3, None),
    "BC5_SNORM": (84, 16, 4, 2, None),
    "BC4_SNORM": (81, 8, 4, 1, None),
    "BC7_UNORM": (98, 16, 4, 4, None),
}
# What a block kind is made from (written here, then encoded by the tool).
SOURCE_OF = {"BC6H_UF16": "R16G16B16A16_FLOAT", "BC6H_SF16": "R16G16B16A16_FLOAT", "BC5_SNORM": "R8G8_SNORM",
             "BC4_SNORM": "R8G8_SNORM", "BC7_UNORM": "R8G8B8A8_UNORM"}
HDR = {"R16G16B16A16_FLOAT", "R32G32B32A32_FLOAT", "BC6H_UF16", "BC6H_SF16"}


def extent(n, mip):
    return max(1, n >> mip)


def surface_bytes(kind, w, h):
    _, size, block, _, _ = KINDS[kind]
    return ((w + block - 1) // block) * ((h + block - 1) // block) * size


def write_dds(path, kind, w, h, mips, faces, layers, surfaces):
    """surfaces: bytes per (layer, face, mip), in that order."""
    fmt = KINDS[kind][0]
    flags = 0x1 | 0x2 | 0x4 | 0x1000 | (0x20000 if mips > 1 else 0) | 0x80000
    caps = 0x1000 | (0x8 | 0x400000 if mips > 1 else 0) | (0x8 if faces == 6 or layers > 1 else 0)
    caps2 = 0xFE00 if faces == 6 else 0
    pf = struct.pack("<II4s5I", 32, 0x4, b"DX10", 0, 0, 0, 0, 0)
    head = struct.pack("<7I", 124, flags, h, w, len(surfaces[0]), 0, mips) + b"\0" * 44 + pf
    head += struct.pack("<5I", caps, caps2, 0, 0, 0)
    dx10 = struct.pack("<5I", fmt, 3, 0x4 if faces == 6 else 0, layers, 0)
    with open(path, "wb") as f:
        f.write(b"DDS " + head + dx10 + b"".join(surfaces))


def read_dds(path):
    """The header's facts and every surface's bytes, by the layout alone."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:4] == b"DDS ", path
    h, w = struct.unpack_from("<II", data, 12)
    mips = max(1, struct.unpack_from("<I", data, 28)[0])
    fourcc = data[84:88]
    caps2 = struct.unpack_from("<I", data, 112)[0]
    assert fourcc == b"DX10", "%s: a legacy header (%r), not the DX10 one the source had" % (path, fourcc)
    fmt, _, misc, layers, _ = struct.unpack_from("<5I", data, 128)
    kind = next(k for k, v in KINDS.items() if v[0] == fmt)
    faces = 6 if (misc & 0x4 or caps2 & 0xFE00) else 1
    at, surfaces = 148, []
    for _ in range(max(1, layers) * faces):
        for m in range(mips):
            n = surface_bytes(kind, extent(w, m), extent(h, m))
            surfaces.append(data[at:at + n])
            at += n
    return {"kind": kind, "w": w, "h": h, "mips": mips, "faces": faces, "layers": max(1, layers),
            "surfaces": surfaces}


def values(kind, raw):
    """A surface's texels as floats in the format's own range (SNORM -1..1, UNORM 0..1)."""
    _, _, _, ch, t = KINDS[kind]
    a = np.frombuffer(raw, dtype=t).astype(np.float64).reshape(-1, ch)
    if t == np.int8:
        return np.maximum(a / 127.0, -1.0)
    if t == np.uint8:
        return a / 255.0
    return a


def random_surface(rnd, kind, w, h):
    _, _, _, ch, t = KINDS[kind]
    n = w * h * ch
    if t in (np.int8, np.uint8):
        return bytes(rnd.getrandbits(8) for _ in range(n))
    # HDR: negatives, values above 1 and near zero; exactly representable in half.
    span = rnd.choice([(0.0, 1.0), (-2.0, 6.0), (0.0, 60.0)])
    vals = [round(rnd.uniform(*span) * 256) / 256 for _ in range(n)]
    return np.array(vals, dtype=t).tobytes()


def tool(exe, *args):
    return subprocess.run([exe] + list(args), capture_output=True, text=True, timeout=120)


def make_source(exe, rnd, work, case):
    kind, w, h, mips, faces, layers = (case[k] for k in ("kind", "w", "h", "mips", "faces", "layers"))
    src_kind = SOURCE_OF.get(kind, kind)
    surfaces = [random_surface(rnd, src_kind, extent(w, m), extent(h, m))
                for _ in range(layers * faces) for m in range(mips)]
    raw = os.path.join(work, "raw.dds")
    write_dds(raw, src_kind, w, h, mips, faces, layers, surfaces)
    if src_kind == kind:
        return raw
    src = os.path.join(work, "src.dds")
    r = tool(exe, "convert", raw, src, "--format", kind, "--quality", "fast", "--dx10", "always")
    if r.returncode != 0:
        raise RuntimeError("making the %s source failed: %s" % (kind, r.stderr.strip()))
    return src


def pillow_top(path):
    try:
        from PIL import Image
        with Image.open(path) as im:
            im.load()
            return np.asarray(im.convert("RGBA"), dtype=np.int16)
    except Exception:  # a format this Pillow does not decode
        return None


def check_extract(exe, work, src, info):
    _, _, block, _, _ = KINDS[info["kind"]]
    if block != 1:
        return None
    for layer in sorted({0, info["layers"] - 1}):
        for face in sorted({0, info["faces"] - 1}):
            for mip in sorted({0, info["mips"] - 1}):
                out = os.path.join(work, "x_%d_%d_%d.dds" % (layer, face, mip))
                r = tool(exe, "convert", src, out, "--layer", str(layer), "--face", str(face), "--mip", str(mip),
                         "--dx10", "always")
                if r.returncode != 0:
                    return "extract l%d f%d m%d: %s" % (layer, face, mip, r.stderr.strip())
                want = info["surfaces"][(layer * info["faces"] + face) * info["mips"] + mip]
                got = read_dds(out)["surfaces"][0]
                if got != want:
                    return "extract l%d f%d m%d: not the surface's bytes" % (layer, face, mip)
    return None


def check_resave(exe, work, src, info):
    out = os.path.join(work, "resaved.dds")
    r = tool(exe, "convert", src, out, "--like", src, "--quality", "fast")
    if r.returncode != 0:
        return "re-save: " + r.stderr.strip()
    got = read_dds(out)
    for k in ("kind", "w", "h", "mips", "faces", "layers"):
        if got[k] != info[k]:
            return "re-save changed %s: %r -> %r" % (k, info[k], got[k])
    if KINDS[info["kind"]][2] == 1:
        bad = [i for i, (a, b) in enumerate(zip(info["surfaces"], got["surfaces"])) if a != b]
        return "re-save changed surfaces %s" % bad[:5] if bad else None
    a, b = pillow_top(src), pillow_top(out)
    if a is not None and b is not None and np.abs(a - b).max() > 24:
        return "re-save: Pillow reads the top level %d levels away" % np.abs(a - b).max()
    return None


def check_edit_round_trip(exe, work, src, info):
    kind = info["kind"]
    ext = "exr" if kind in HDR else "png"
    top = os.path.join(work, "top.dds")
    r = tool(exe, "convert", src, top, "--layer", "0", "--face", "0", "--mip", "0", "--format", "keep")
    if r.returncode != 0:
        return "top level: " + r.stderr.strip()
    edit, back = os.path.join(work, "edit." + ext), os.path.join(work, "back.dds")
    r = tool(exe, "convert", top, edit)
    if r.returncode != 0:
        return "export to %s: %s" % (ext, r.stderr.strip())
    r = tool(exe, "convert", edit, back, "--like", top, "--quality", "fast")
    if r.returncode != 0:
        return "back from %s: %s" % (ext, r.stderr.strip())
    a, b = read_dds(top)["surfaces"][0], read_dds(back)["surfaces"][0]
    if KINDS[kind][2] == 1 and not np.array_equal(values(kind, a), values(kind, b)):
        diff = np.abs(values(kind, a) - values(kind, b)).max()
        return "edit round trip through %s changed values (largest %.6g)" % (ext, diff)
    if kind in ("R16G16B16A16_FLOAT", "R32G32B32A32_FLOAT"):
        above = float(values(kind, a)[:, :3].max()) > 1.0
        png = os.path.join(work, "hdr.png")
        r = tool(exe, "convert", top, png)
        warned = "clipped" in r.stderr
        if r.returncode != 0 or warned != above:
            return "PNG export of HDR (max %.3g): warned %s, exit %d: %s" % (
                float(values(kind, a).max()), warned, r.returncode, (r.stdout + r.stderr).strip()[-300:])
    return None


def expected_psnr(kind, a, b, alpha):
    """RGB PSNR in 0..1 units (SNORM mapped as (x+1)/2; a two-channel one with Z rebuilt), alpha-weighted when
    asked."""
    va, vb = values(kind, a), values(kind, b)
    if va.shape[1] == 2:  # two SNORM channels: a normal map's X and Y, its Z rebuilt as a shader does
        va, vb = (np.column_stack([v, np.sqrt(np.maximum(0, 1 - (v ** 2).sum(axis=1)))]) for v in (va, vb))
    if kind.endswith("SNORM"):
        va, vb = (va + 1) / 2, (vb + 1) / 2
    ch = min(3, va.shape[1])
    err = (va[:, :ch] - vb[:, :ch]) ** 2
    if alpha and va.shape[1] == 4:
        w = va[:, 3:4]
        mse = float((err * w).sum() / max(w.sum() * ch, 1e-12))
    else:
        mse = float(err.mean())
    return None if mse == 0 else 10 * np.log10(1.0 / mse)


def check_compare(exe, work, src, info, rnd):
    kind = info["kind"]
    if kind not in ("R8G8B8A8_SNORM", "R8G8_SNORM", "R8G8B8A8_UNORM"):
        return None
    top = info["surfaces"][0]
    moved = bytearray(top)
    at = rnd.randrange(info["w"] * info["h"]) * KINDS[kind][3]
    moved[at] = (moved[at] + 40) & 255
    a, b = os.path.join(work, "ca.dds"), os.path.join(work, "cb.dds")
    write_dds(a, kind, info["w"], info["h"], 1, 1, 1, [top])
    write_dds(b, kind, info["w"], info["h"], 1, 1, 1, [bytes(moved)])
    r = tool(exe, "compare", a, b, "--json")
    if r.returncode != 0:
        return "compare: " + r.stderr.strip()
    report = json.loads(r.stdout)
    got = report.get("psnr_rgb", report.get("surfaces", [{}])[0].get("psnr_rgb"))
    want = expected_psnr(kind, top, bytes(moved), False)
    if want is None:
        return None if got in (None, "inf") or (isinstance(got, float) and got > 1e9) else "compare: %r, want ∞" % got
    if got is None or abs(float(got) - want) > 0.05:
        return "compare: PSNR %r, computed here %.3f dB" % (got, want)
    return None


def one_case(exe, rnd, work):
    kind = rnd.choice(sorted(KINDS))
    w = rnd.choice([1, 2, 3, 5, 7, 13, 16, 31, 64, rnd.randint(1, 70)])
    h = w if rnd.random() < 0.4 else rnd.choice([1, 3, 4, 9, 17, 33, rnd.randint(1, 70)])
    faces = 6 if w == h and rnd.random() < 0.3 else 1
    layers = 1 if faces == 6 else rnd.choice([1, 1, 2, 3])
    full = max(w, h).bit_length()
    case = {"kind": kind, "w": w, "h": h, "mips": rnd.choice([1, full]), "faces": faces, "layers": layers}
    src = make_source(exe, rnd, work, case)
    info = read_dds(src)
    for check in (check_extract, check_resave, check_edit_round_trip):
        bad = check(exe, work, src, info)
        if bad:
            return (case, bad)
    bad = check_compare(exe, work, src, info, rnd)
    return (case, bad) if bad else None


if __name__ == "__main__":
    sys.exit(drive(one_case, "af-kinds-", lambda i, e: ({"case": i}, "%s: %s" % (type(e).__name__, e)),
                   lambda bad: "%s: %s" % bad))
