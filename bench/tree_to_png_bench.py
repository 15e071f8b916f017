#!/usr/bin/python3
"""Re-export a DDS tree to PNG: AssetForge builds vs Pillow vs ImageMagick, side by side.

usage: bench/tree_to_png_bench.py [--assetforge BUILD/bin/assetforge] [--rounds 3] DIR...

Every DDS under DIR (any depth) becomes a PNG of its top mip, keeping the folders. In each
round, in turn: AssetForge `build -j2` at its default PNG level, at level 0 (stored, the
fastest) and at level 6; Pillow in one process (`Image.open(f).save(png)`); ImageMagick one
process per file (`convert-im6.q16 f[0] png`). Rounds interleave the tools so a noisy
machine slows all alike. Printed per tool: the median wall time, its CPU time (user+sys of
the child processes), the PNG bytes, and speed and size relative to Pillow.
Files a tool cannot read count as failures (ImageMagick 6 has no ATI2/BC5).
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MAGICK = "/usr/bin/convert-im6.q16"

PILLOW = r"""
import os, sys
from PIL import Image
src, out = sys.argv[1], sys.argv[2]
bad = 0
for d, _, files in os.walk(src):
    for f in files:
        if not f.lower().endswith('.dds'):
            continue
        rel = os.path.relpath(os.path.join(d, f), src)
        dst = os.path.join(out, rel[:-4] + '.png')
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        try:
            Image.open(os.path.join(d, f)).save(dst)
        except Exception:
            bad += 1
print(bad)
"""


def dds_files(src):
    for d, _, files in os.walk(src):
        for f in sorted(files):
            if f.lower().endswith(".dds"):
                yield os.path.relpath(os.path.join(d, f), src)


def tree_bytes(out):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(out) for f in fs if f.endswith(".png"))


def timed(fn):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    failed = fn()
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, failed


def assetforge(exe, src, out, level):
    def run():
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "pipeline.yaml"), "w") as f:
            f.write("assetforge: 1\njobs:\n  png:\n    inputs: \"%s/**/*.{dds,DDS}\"\n"
                    "    steps: [ decode%s ]\n    output: \"png/{dir}/{stem}.png\"\n"
                    % (os.path.abspath(src), "" if level is None else ", { write: { level: %d } }" % level))
        r = subprocess.run([exe, "build", "-j2", "-q"], cwd=out, capture_output=True, text=True)
        return sum(1 for line in r.stdout.splitlines() + r.stderr.splitlines() if "FAILED" in line)
    return run, os.path.join(out, "png")


def pillow(src, out):
    def run():
        r = subprocess.run([sys.executable, "-c", PILLOW, src, out], capture_output=True, text=True)
        return int(r.stdout.strip() or 0)
    return run, out


def magick(src, out):
    def run():
        bad = 0
        for rel in dds_files(src):
            dst = os.path.join(out, rel[:-4] + ".png")
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            if subprocess.run([MAGICK, os.path.join(src, rel) + "[0]", dst], capture_output=True).returncode:
                bad += 1
        return bad
    return run, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--assetforge", default=os.path.join(ROOT, "build/bin/assetforge"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("dirs", nargs="*", default=[os.path.join(ROOT, "plugins/dds/tests/data")])
    a = ap.parse_args()
    for src in a.dirs:
        files = list(dds_files(src))
        size = sum(os.path.getsize(os.path.join(src, f)) for f in files)
        print("%s: %d DDS files, %.1f MB" % (src, len(files), size / 1e6))
        tools = ["assetforge (default level)", "assetforge level 0", "assetforge level 6", "Pillow", "ImageMagick"]
        if not os.path.exists(MAGICK):
            tools.remove("ImageMagick")
        results = {t: [] for t in tools}
        for _ in range(a.rounds):
            for t in tools:
                work = tempfile.mkdtemp(prefix="af-tree-bench-")
                try:
                    if t.startswith("assetforge"):
                        level = None if "default" in t else int(t.split()[-1])
                        run, out = assetforge(a.assetforge, src, work, level)
                    elif t == "Pillow":
                        run, out = pillow(src, work)
                    else:
                        run, out = magick(src, work)
                    wall, cpu, failed = timed(run)
                    results[t].append((wall, cpu, tree_bytes(out), failed))
                finally:
                    shutil.rmtree(work, ignore_errors=True)
        base = statistics.median(r[0] for r in results["Pillow"])
        base_bytes = statistics.median(r[2] for r in results["Pillow"])
        print("%-28s %9s %9s %14s %10s %9s %7s" % ("tool", "wall s", "CPU s", "PNG bytes", "vs Pillow", "bytes", "failed"))
        for t in tools:
            rs = sorted(results[t])
            wall, cpu, nbytes, failed = rs[len(rs) // 2]
            print("%-28s %9.2f %9.2f %14d %9.2fx %8.3fx %7d" % (t, wall, cpu, nbytes, base / wall, nbytes / base_bytes, failed))


if __name__ == "__main__":
    main()
