#!/usr/bin/python3
"""DDS → PNG decode of the FlightGear set (top mips): AssetForge vs ImageMagick vs Pillow.

usage: bench/dds_decode_bench.py [--assetforge BUILD/bin/assetforge] [--reps N] [DIR_OR_FILES...]

Default input: plugins/dds/tests/data (real FlightGear DDS: DXT1/DXT5/ATI2); pass a
whole FlightGear texture tree (Debian's flightgear-data-base) for the full figures. Every tool decodes the top mip of every file to an 8-bit PNG.

Rows:
  single thread  one file at a time, one thread per tool (AssetForge --threads 1,
                 ImageMagick -limit thread 1, Pillow is single-threaded)
  all threads    nproc files at once (a process pool), each tool on its default threads
AssetForge and ImageMagick run one process per file (`assetforge convert IN OUT.png`,
`convert-im6.q16 IN[0] OUT.png`): their times include process start-up and, for
AssetForge, loading its plugins. Pillow decodes in one Python process (no start-up per file).
files/s counts the files a tool decoded; MB/s is decoded RGBA8 output (w·h·4) per second.
The quality column is the largest per-channel difference from Pillow's decode (the
reference), and the files a tool cannot read (ImageMagick 6 has no ATI2) are listed.
Times are the best of --reps runs (default 3); CPU s is the user+sys time of that run
(child processes included), which is steadier than wall time on a loaded machine.
"""
import argparse
import concurrent.futures as cf
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MAGICK = "/usr/bin/convert-im6.q16"


def find_inputs(args):
    paths = args or [os.path.join(ROOT, "plugins", "dds", "tests", "data")]
    for p in paths:
        if os.path.isdir(p):
            files = sorted(os.path.join(p, f) for f in os.listdir(p) if f.lower().endswith(".dds"))
            if files:
                return files
        elif os.path.isfile(p):
            return [x for x in paths if os.path.isfile(x)]
    sys.exit("no DDS files found")


def run_af(exe, src, dst, threads):
    cmd = [exe, "convert", "-y", src, dst]
    if threads:
        cmd += ["--threads", str(threads)]
    return subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0


def run_magick(src, dst, threads):
    cmd = [MAGICK]
    if threads:
        cmd += ["-limit", "thread", str(threads)]
    cmd += [src + "[0]", "PNG32:" + dst]
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return r.returncode == 0 and os.path.exists(dst)


def run_pillow(src, dst, threads):
    with Image.open(src) as im:
        im.load()
        im.save(dst, compress_level=6)
    return True


def timed(tool, files, outdir, threads, workers, exe):
    outs = [os.path.join(outdir, os.path.basename(f) + ".png") for f in files]
    for o in outs:
        if os.path.exists(o):
            os.remove(o)

    def one(i):
        if tool == "assetforge":
            return run_af(exe, files[i], outs[i], threads)
        if tool == "magick":
            return run_magick(files[i], outs[i], threads)
        return run_pillow(files[i], outs[i], threads)

    def cpu():
        s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime

    c0 = cpu()
    t0 = time.perf_counter()
    if workers == 1:
        ok = [one(i) for i in range(len(files))]
    elif tool == "pillow":
        with cf.ProcessPoolExecutor(workers) as pool:
            ok = list(pool.map(_pillow_job, files, outs))
    else:
        with cf.ThreadPoolExecutor(workers) as pool:  # threads only wait on child processes
            ok = list(pool.map(one, range(len(files))))
    return time.perf_counter() - t0, cpu() - c0, ok, outs


def _pillow_job(src, dst):
    return run_pillow(src, dst, 1)


def max_diff(ref_png, png):
    a = np.asarray(Image.open(ref_png).convert("RGBA")).astype(int)
    b = np.asarray(Image.open(png).convert("RGBA")).astype(int)
    if a.shape != b.shape:
        return None
    return int(np.abs(a - b).max())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--assetforge", default=os.path.join(ROOT, "build", "bin", "assetforge"))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("inputs", nargs="*")
    a = ap.parse_args()
    files = find_inputs(a.inputs)
    if not os.access(a.assetforge, os.X_OK):
        sys.exit(f"{a.assetforge} not found: build it first (ninja -C build assetforge af_dds af_bc)")
    sizes = []
    for f in files:
        with Image.open(f) as im:
            sizes.append(im.size[0] * im.size[1] * 4)
    nproc = os.cpu_count() or 1
    in_mb = sum(os.path.getsize(f) for f in files) / 1e6
    print(f"{len(files)} files ({in_mb:.1f} MB of DDS, {sum(sizes) / 1e6:.1f} MB decoded RGBA8 top mips), "
          f"{nproc} hardware threads, best of {a.reps}")
    tools = [("assetforge", "AssetForge"), ("magick", "ImageMagick 6"), ("pillow", "Pillow " + Image.__version__)]
    if not os.access(MAGICK, os.X_OK):
        tools = [t for t in tools if t[0] != "magick"]
        print(f"(ImageMagick not found at {MAGICK}: skipped)")
    with tempfile.TemporaryDirectory() as tmp:
        ref_dir = os.path.join(tmp, "pillow_ref")
        os.makedirs(ref_dir)
        _, _, _, refs = timed("pillow", files, ref_dir, 1, 1, a.assetforge)
        print(f"\n{'tool':15s} {'mode':14s} {'files/s':>9s} {'MB/s':>8s} {'decoded':>8s} {'CPU s':>7s} {'max |Δ| vs Pillow':>18s}")
        for key, name in tools:
            for mode, threads, workers in (("single thread", 1, 1), ("all threads", 0, nproc)):
                d = os.path.join(tmp, key + str(workers))
                os.makedirs(d, exist_ok=True)
                best = None
                for _ in range(a.reps):
                    t, c, ok, outs = timed(key, files, d, threads, workers, a.assetforge)
                    if best is None or t < best:
                        best, best_cpu = t, c
                done = [i for i, k in enumerate(ok) if k]
                diffs = [max_diff(refs[i], outs[i]) for i in done]
                worst = max((x for x in diffs if x is not None), default=None)
                mb = sum(sizes[i] for i in done) / 1e6
                print(f"{name:15s} {mode:14s} {len(done) / best:9.1f} {mb / best:8.1f} {len(done):>4d}/{len(files):<3d} {best_cpu:7.2f} "
                      f"{'-' if worst is None else worst:>18}")
                failed = [os.path.basename(files[i]) for i, k in enumerate(ok) if not k]
                if failed and mode == "single thread":
                    print(f"{'':15s} cannot read: {', '.join(failed)}")


if __name__ == "__main__":
    main()
