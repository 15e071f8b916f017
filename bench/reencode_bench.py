#!/usr/bin/python3
"""Re-encode direction: a DDS tree's PNG exports back to DDS, AssetForge vs nvcompress -fast.

usage: bench/reencode_bench.py [--assetforge BUILD/bin/assetforge] [--quality fast|normal|high] [--rounds 3] DIR

DIR's *.dds are exported to PNG once (`decode`), then re-encoded, in interleaved rounds:
AssetForge `build -j2` with `encode: {format: match, like: original}` (the original's format,
mip count and header) and nvcompress (Debian libnvtt-bin) `-fast` per file with the original's
format (DXT1 → -bc1, DXT5 → -bc3, ATI2 → -bc5; mips by default). Printed: the median wall and
CPU time, and the mean PSNR (RGB, top mip, decoded by Pillow) against the PNG, over the files
Pillow can read (their count is printed), and over the files whose original is BC-compressed
(an uncompressed original stays uncompressed with AssetForge's `match`, nvcompress makes it BC3).
"""
import argparse
import glob
import os
import resource
import shutil
import subprocess
import tempfile
import time

import numpy as np
from PIL import Image

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NV_FORMAT = {b"DXT1": "-bc1", b"DXT5": "-bc3", b"ATI2": "-bc5"}


def timed(fn):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    fn()
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def psnr(dds, ref):
    try:
        a = np.asarray(Image.open(dds).convert("RGB"), dtype=np.float64)
    except (OSError, NotImplementedError):  # a format Pillow cannot read (e.g. uncompressed luminance): not compared
        return None
    b = np.asarray(Image.open(ref).convert("RGB"), dtype=np.float64)
    if a.shape != b.shape:
        return None
    mse = ((a - b) ** 2).mean()
    return 99.0 if mse == 0 else 10 * np.log10(255.0 ** 2 / mse)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--assetforge", default=os.path.join(ROOT, "build/bin/assetforge"))
    ap.add_argument("--quality", default="fast")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("dir")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="af-reencode-bench-")
    try:
        orig = os.path.join(work, "orig")
        shutil.copytree(a.dir, orig)
        with open(os.path.join(work, "export.yaml"), "w") as f:
            f.write('assetforge: 1\njobs:\n  png:\n    inputs: "orig/**/*.dds"\n    steps: [ decode ]\n'
                    '    output: "png/{dir}/{stem}.png"\n')
        subprocess.run([a.assetforge, "build", "-q", "-j2", "export.yaml"], cwd=work, check=True)
        with open(os.path.join(work, "back.yaml"), "w") as f:
            f.write('assetforge: 1\njobs:\n  dds:\n    inputs: "png/**/*.png"\n'
                    '    steps: [ { encode: { format: match, like: "orig/{dir}/{stem}.dds", quality: %s, '
                    'metrics: false } } ]\n    output: "af/{dir}/{stem}.dds"\n' % a.quality)
        pngs = sorted(glob.glob(os.path.join(work, "png", "**", "*.png"), recursive=True))

        def assetforge():
            for d in ("af", ".assetforge"):
                shutil.rmtree(os.path.join(work, d), ignore_errors=True)
            subprocess.run([a.assetforge, "build", "-q", "-j2", "back.yaml"], cwd=work, check=True)

        def fourcc_of(png):  # the original's FourCC (b"\0\0\0\0" when uncompressed)
            rel = os.path.relpath(png, os.path.join(work, "png"))[:-4] + ".dds"
            with open(os.path.join(orig, rel), "rb") as f:
                return f.read(88)[84:88]

        def nvcompress():
            for p in pngs:
                rel = os.path.relpath(p, os.path.join(work, "png"))[:-4] + ".dds"
                fourcc = fourcc_of(p)
                out = os.path.join(work, "nv", rel)
                os.makedirs(os.path.dirname(out), exist_ok=True)
                subprocess.run(["nvcompress", "-fast", "-silent", NV_FORMAT.get(fourcc, "-bc3"), p, out],
                               capture_output=True)

        tools = {"assetforge (quality %s)" % a.quality: (assetforge, "af"), "nvcompress -fast": (nvcompress, "nv")}
        times = {t: [] for t in tools}
        for _ in range(a.rounds):
            for t, (fn, _) in tools.items():
                times[t].append(timed(fn))
        print("%d PNGs from %s" % (len(pngs), a.dir))
        for t, (_, out) in tools.items():
            wall, cpu = sorted(times[t])[len(times[t]) // 2]
            ps = [psnr(os.path.join(work, out, os.path.relpath(p, os.path.join(work, "png"))[:-4] + ".dds"), p)
                  for p in pngs]
            ok = [p for p in ps if p is not None]
            bc = [p for p, png in zip(ps, pngs) if p is not None and fourcc_of(png) in NV_FORMAT]
            print("%-26s wall %6.2f s  CPU %6.2f s  mean PSNR %6.2f dB (%d files), BC originals only %6.2f dB (%d)"
                  % (t, wall, cpu, sum(ok) / len(ok), len(ok), sum(bc) / max(len(bc), 1), len(bc)))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
