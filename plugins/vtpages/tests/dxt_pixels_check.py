#!/usr/bin/env python3
"""End-to-end check of DXT page pixels (compression 2) against Pillow's BC decoder.

Builds a one-page .pages file whose payload is three random BC surfaces (BC1 8192 B, BC3 16384 B,
BC3 16384 B = 40960 B), runs `assetforge pages build` and `assetforge pages pixels` (which decodes
through the host's convert service and the bc codec plugin), wraps each surface in a DDS header,
decodes it with Pillow and compares the RGBA texels. Exit 77 (skipped) without Pillow.
Usage: dxt_pixels_check.py ASSETFORGE
"""
import json, os, random, struct, subprocess, sys, tempfile

try:
    from PIL import Image
except ImportError:
    print("skipped: Pillow is not installed")
    sys.exit(77)

def dds(fourcc, data):
    # Minimal DDS: 128x128, one mip, compressed with a FourCC.
    hdr = struct.pack("<4sIIIIIII44xII4sIIIIIIIII4x",
                      b"DDS ", 124, 0x1 | 0x2 | 0x4 | 0x1000 | 0x80000, 128, 128, len(data), 0, 1,
                      32, 0x4, fourcc, 0, 0, 0, 0, 0, 0x1000, 0, 0, 0)
    return hdr + data

def main():
    af = sys.argv[1]
    rnd = random.Random(7)
    surfaces = [("surface0-dxt1", b"DXT1", 8192), ("surface1-ycocg-dxt5", b"DXT5", 16384), ("surface2-dxt5", b"DXT5", 16384)]
    blobs = [rnd.randbytes(n) for _, _, n in surfaces]
    with tempfile.TemporaryDirectory() as t:
        open(os.path.join(t, "p.bin"), "wb").write(b"".join(blobs))
        json.dump({"levels": 1, "scale": 2, "pages": [{"level": 0, "x": 0, "y": 0, "compression": 2, "payload": "p.bin"}]},
                  open(os.path.join(t, "m.json"), "w"))
        f = os.path.join(t, "dxt.pages")
        subprocess.run([af, "pages", "build", os.path.join(t, "m.json"), "--out", f], check=True)
        r = subprocess.run([af, "pages", "pixels", f, "0", "0", "0", "--out", os.path.join(t, "px")], capture_output=True, text=True)
        if r.returncode != 0:
            print(r.stdout, r.stderr)
            if "unsupported" in r.stderr and "convert" in r.stderr:
                print("skipped: no BC codec available to the host")
                return 77
            return 1
        worst = 0
        for (role, fourcc, _), blob in zip(surfaces, blobs):
            ours = Image.open(os.path.join(t, "px", f"0_0_0.{role}.png")).convert("RGBA")
            ddsp = os.path.join(t, role + ".dds")
            open(ddsp, "wb").write(dds(fourcc, blob))
            ref = Image.open(ddsp).convert("RGBA")
            a, b = ours.tobytes(), ref.tobytes()
            assert len(a) == len(b) == 128 * 128 * 4, (len(a), len(b))
            d = max(abs(x - y) for x, y in zip(a, b))
            print(f"{role}: max channel difference vs Pillow {d}")
            worst = max(worst, d)
        # BC1/BC3 palette interpolation rounds differently between decoders by a step or two (1 observed).
        return 0 if worst <= 2 else 1

if __name__ == "__main__":
    sys.exit(main())
