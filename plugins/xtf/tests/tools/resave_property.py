#!/usr/bin/env python3
"""Property test of XTF writing and re-saving: pictures made with Pillow
across sizes, alpha content and every format name a user may type (XTF's
own and the host's short names), written by `assetforge convert`, each file
read by the independent reader xtf_read.py (every layout rule of the format
notes), its top mip compared with the picture (exactly for 8-bit formats,
decoded by Pillow for DXT), and re-saved (`convert a.xtf b.xtf`), which must
give the same bytes. A failing case prints its parameters and keeps its files.

usage: resave_property.py ASSETFORGE [--cases N] [--seed S] [--keep DIR]
"""
import io, os, struct, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "..", "tests", "tools"))
from xtf_read import read_xtf  # noqa: E402
from property_driver import drive  # noqa: E402
from PIL import Image  # noqa: E402

# typed name → (VTF id stored, bytes of a texel as (R, G, B, A) indices into the picture, or None)
FORMATS = {
    "BGRA8888": (12, (2, 1, 0, 3)), "bgra8": (12, (2, 1, 0, 3)), "B8G8R8A8_UNORM": (12, (2, 1, 0, 3)),
    "RGBA8888": (0, (0, 1, 2, 3)), "rgba8": (0, (0, 1, 2, 3)),
    "BGRX8888": (16, (2, 1, 0, None)), "bgrx8": (16, (2, 1, 0, None)),
    "RGB888": (2, (0, 1, 2)), "BGR888": (3, (2, 1, 0)),
    "ABGR8888": (1, (3, 2, 1, 0)), "ARGB8888": (11, (3, 0, 1, 2)),
    "DXT1": (13, "DXT1"), "bc1": (13, "DXT1"), "dxt1": (13, "DXT1"),
    "DXT3": (14, "DXT3"), "bc2": (14, "DXT3"),
    "DXT5": (15, "DXT5"), "bc3": (15, "DXT5"), "dxt5": (15, "DXT5"),
}


def picture(rnd, w, h, alpha, smooth):
    img = Image.new("RGBA", (w, h))
    px = img.load()
    a0, a1 = rnd.randint(0, 255), rnd.randint(0, 255)
    for y in range(h):
        for x in range(w):
            if smooth:
                # Colours on one line of RGB space, as a DXT block stores them.
                t = (x + y) / max(1, w + h - 2)
                r, g, b = int(t * 255), int(64 + t * 128), int(255 - t * 255)
            else:
                r, g, b = rnd.randrange(256), rnd.randrange(256), rnd.randrange(256)
            a = 255 if alpha == "opaque" else (0 if (x ^ y) & 4 else 255) if alpha == "cutout" else \
                (a0 + (a1 - a0) * x // max(1, w - 1)) if smooth else rnd.randrange(256)
            px[x, y] = (r, g, b, a)
    return img


def dxt_decode(fourcc, w, h, blocks):
    """Pillow decodes DXT from a DDS: wrap the top mip's blocks in a minimal header."""
    hdr = struct.pack("<4sIIIIIII44xII4sIIIII5I", b"DDS ", 124, 0x1007 | 0x80000, h, w, len(blocks), 0, 1,
                      32, 4, fourcc.encode(), 0, 0, 0, 0, 0, 0x1000, 0, 0, 0, 0)
    return Image.open(io.BytesIO(hdr + blocks)).convert("RGBA")


def run(args):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")


def one_case(af, rnd, work):
    name = rnd.choice(sorted(FORMATS) + ["auto", "auto"])
    dxt = name == "auto" or isinstance(FORMATS[name][1], str)
    side = [4, 8, 16, 32, 64, 128] if dxt else [1, 2, 4, 8, 16, 32, 64, 128]
    w, h = rnd.choice(side), rnd.choice(side)
    alpha = rnd.choice(["opaque", "cutout", "smooth"])
    smooth = dxt or rnd.random() < 0.5
    nomip = rnd.random() < 0.3
    params = dict(format=name, w=w, h=h, alpha=alpha, smooth=smooth, nomip=nomip)
    img = picture(rnd, w, h, alpha, smooth)
    src = os.path.join(work, "in.png")
    img.save(src)
    a = os.path.join(work, "a.xtf")
    args = [af, "convert", src, a] + ([] if name == "auto" else ["--format", name]) + (["--no-mips"] if nomip else [])
    r = run(args)
    if r.returncode != 0:
        return params, "convert failed: " + r.stdout.strip()
    data = open(a, "rb").read()
    try:
        hdr, images, _ = read_xtf(data)
    except ValueError as e:
        return params, "the written file breaks a rule: %s" % e
    if (hdr["width"], hdr["height"], hdr["frames"], hdr["faces"]) != (w, h, 1, 1):
        return params, "header %s" % hdr
    want_mips = 1 if nomip else max(w, h).bit_length()
    if hdr["mips"] != want_mips:
        return params, "%d mips, expected %d" % (hdr["mips"], want_mips)
    if name == "auto":
        want = {"opaque": (13, "DXT1"), "cutout": (13, "DXT1"), "smooth": (15, "DXT5")}[alpha]
    else:
        want = FORMATS[name]
    if hdr["format"] != want[0]:
        return params, "stored format %d, expected %d" % (hdr["format"], want[0])
    top = images[(0, 0, 0)]
    pix = list(img.getdata())
    if isinstance(want[1], str):
        got = list(dxt_decode(want[1], w, h, top).getdata())
        chans = 4 if want[1] != "DXT1" or alpha != "smooth" else 3
        # A texel with alpha 0 has no colour to keep (DXT1's punch-through stores it as transparent black).
        # Forced DXT1 on smooth alpha keeps 1 bit of it: texels it made transparent have no colour either.
        diffs = [abs(p[c] - q[c]) for p, q in zip(pix, got) for c in range(chans)
                 if c == 3 or (p[3] != 0 and not (chans == 3 and q[3] == 0))]
        err = sum(diffs) / max(1, len(diffs))
        if err > 12:
            return params, "DXT top mip decodes %.1f levels away on average" % err
    else:
        order = want[1]
        unit = len(order)
        for i, p in enumerate(pix):
            texel = top[i * unit:(i + 1) * unit]
            for k, c in enumerate(order):
                if c is not None and texel[k] != p[c]:
                    return params, "texel %d byte %d is %d, the picture has %d" % (i, k, texel[k], p[c])
    b = os.path.join(work, "b.xtf")
    r = run([af, "convert", a, b])
    if r.returncode != 0:
        return params, "re-save failed: " + r.stdout.strip()
    if open(b, "rb").read() != data:
        return params, "a re-save with no options changed the file"
    return None


def main():
    return drive(one_case, "xtf-prop-",
                 # a crash of the reader or of Pillow on the output is a failure too
                 lambda i, e: ({}, "case crashed: %r" % e),
                 lambda bad: "%s\n  params %s" % (bad[1], bad[0]))


if __name__ == "__main__":
    sys.exit(main())
