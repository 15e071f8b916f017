#!/usr/bin/python3
"""What `--report build.html` (thumbnails, full-size pictures, per-channel PSNR) costs a build.

usage: bench/report_overhead.py [--assetforge build/bin/assetforge] [--rounds 3] [--quick-rounds 21] [--files 500]
                               [--size 256] [-j 2]

Two trees, each built from clean (outputs and state removed) three ways — no report, the HTML
page alone (--report-pictures=false), the page with its pictures — interleaved round by round
(order reversed every other round) so a noisy machine slows all alike:
- the quickstart (examples/quickstart, copied to a temp folder);
- a generated tree of N PNG textures (smooth colour with some noise; every 5th with an alpha
  channel, every 7th a normal map named *_n.png) through [mips, encode: auto], as the
  quickstart's texture job.
Printed per tree: median wall and CPU time of each, the ratios, and the size of the pictures.
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

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def texture(i, size):
    rng = np.random.default_rng(i)
    y, x = np.mgrid[0:size, 0:size] / size
    if i % 7 == 0:  # a tangent-space normal map: unit vectors, 0..1 encoded
        nx = 0.4 * np.sin(2 * np.pi * (x * (1 + i % 3) + rng.random()))
        ny = 0.4 * np.cos(2 * np.pi * (y * (1 + i % 4) + rng.random()))
        nz = np.sqrt(np.clip(1 - nx * nx - ny * ny, 0, 1))
        rgb = np.stack([nx, ny, nz], -1) * 0.5 + 0.5
        return Image.fromarray((rgb * 255 + 0.5).astype(np.uint8), "RGB"), "_n"
    chans = []
    for c in range(3):
        f = rng.uniform(1, 6, 2)
        chans.append(0.5 + 0.35 * np.sin(2 * np.pi * (f[0] * x + f[1] * y + rng.random())))
    rgb = np.stack(chans, -1) + rng.normal(0, 0.03, (size, size, 3))
    img = np.clip(rgb * 255 + 0.5, 0, 255).astype(np.uint8)
    if i % 5 == 0:
        a = ((np.sin(2 * np.pi * 3 * x) * np.cos(2 * np.pi * 2 * y)) > 0) * 255
        return Image.fromarray(np.dstack([img, a.astype(np.uint8)]), "RGBA"), ""
    return Image.fromarray(img, "RGB"), ""


def generate(root, n, size):
    for i in range(n):
        img, suffix = texture(i, size)
        d = os.path.join(root, "textures", "d%02d" % (i // 50))
        os.makedirs(d, exist_ok=True)
        img.save(os.path.join(d, "t%04d%s.png" % (i, suffix)))
    with open(os.path.join(root, "pipeline.yaml"), "w") as f:
        f.write('assetforge: 1\njobs:\n  textures:\n    inputs: "textures/**/*.png"\n'
                "    steps:\n      - mips: { filter: kaiser }\n      - encode: { format: auto }\n"
                '    output: "build/dds/{dir}/{stem}.dds"\n')


# What each variant adds to `assetforge build -q -j N`.
VARIANTS = {
    "none": [],
    "page": ["--report", "build.html", "--report-pictures=false"],  # the page alone (it existed before)
    "pictures": ["--report", "build.html"],  # the page, the pictures and per-channel PSNR
}


def build(af, cwd, jobs, variant):
    for d in ("build", ".assetforge", "build.html.d"):
        shutil.rmtree(os.path.join(cwd, d), ignore_errors=True)
    cmd = [af, "build", "-q", "-j", str(jobs)] + VARIANTS[variant]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} in {cwd} failed:\n{r.stdout}{r.stderr}")
    return dt, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def folder_bytes(d):
    return sum(os.path.getsize(os.path.join(p, f)) for p, _, fs in os.walk(d) for f in fs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--assetforge", default=os.path.join(ROOT, "build", "bin", "assetforge"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--quick-rounds", type=int, default=21, help="the quickstart takes ~0.1 s: more rounds")
    ap.add_argument("--files", type=int, default=500)
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    args = ap.parse_args()
    af = os.path.abspath(args.assetforge)
    tmp = tempfile.mkdtemp(prefix="af-report-bench-")
    try:
        quick = os.path.join(tmp, "quickstart")
        shutil.copytree(os.path.join(ROOT, "examples", "quickstart"), quick,
                        ignore=shutil.ignore_patterns("build", ".assetforge", "*.html", "*.html.d"))
        tree = os.path.join(tmp, "tree")
        generate(tree, args.files, args.size)
        print(f"load average before: {os.getloadavg()[0]:.1f}; -j {args.jobs}; {args.rounds} rounds")
        for name, cwd, rounds in (("quickstart", quick, args.quick_rounds),
                                  (f"{args.files} textures of {args.size}²", tree, args.rounds)):
            times = {v: [] for v in VARIANTS}
            cpu = {v: [] for v in VARIANTS}
            pictures = 0
            for r in range(rounds):
                order = list(VARIANTS) if r % 2 == 0 else list(reversed(VARIANTS))
                for v in order:
                    wall, c = build(af, cwd, args.jobs, v)
                    times[v].append(wall)
                    cpu[v].append(c)
                    if v == "pictures":
                        pictures = folder_bytes(os.path.join(cwd, "build.html.d"))
            w = {v: statistics.median(times[v]) for v in VARIANTS}
            c = {v: statistics.median(cpu[v]) for v in VARIANTS}
            print(f"{name} ({rounds} rounds): median wall / CPU (user+sys) — "
                  + ", ".join(f"{v} {w[v]:.3f} s / {c[v]:.3f} s" for v in VARIANTS)
                  + f"; with pictures vs none: wall ×{w['pictures'] / w['none']:.3f}, CPU ×{c['pictures'] / c['none']:.3f}"
                  + f"; vs the page alone: wall ×{w['pictures'] / w['page']:.3f}, CPU ×{c['pictures'] / c['page']:.3f}"
                  + f"; pictures {pictures / 1e6:.1f} MB")
            print(f"  rounds (wall): " + "; ".join(f"{v} {['%.2f' % t for t in times[v]]}" for v in VARIANTS))
        print(f"load average after: {os.getloadavg()[0]:.1f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
