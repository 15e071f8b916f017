#!/usr/bin/python3
"""What `--report build.html` (thumbnails, full-size pictures, per-channel PSNR) costs a build.

usage: bench/report_overhead.py [--assetforge build/bin/assetforge] [--rounds 3] [--quick-rounds 21] [--files 500]
                               [--size 256] [-j 2]

Two trees, each built from clean (outputs and state removed) with and without the report,
the two kinds interleaved round by round so a noisy machine slows both alike:
- the quickstart (examples/quickstart, copied to a temp folder);
- a generated tree of N PNG textures (smooth colour with some noise; every 5th with an alpha
  channel, every 7th a normal map named *_n.png) through [mips, encode: auto], as the
  quickstart's texture job.
Printed per tree: median wall time and CPU time without and with the report, the ratios, and
the size of the report's folder.
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


def build(af, cwd, jobs, report):
    for d in ("build", ".assetforge", "build.html.d"):
        shutil.rmtree(os.path.join(cwd, d), ignore_errors=True)
    cmd = [af, "build", "-q", "-j", str(jobs)] + (["--report", "build.html"] if report else [])
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
            times = {False: [], True: []}
            cpu = {False: [], True: []}
            for r in range(rounds):
                order = (False, True) if r % 2 == 0 else (True, False)
                for report in order:
                    wall, c = build(af, cwd, args.jobs, report)
                    times[report].append(wall)
                    cpu[report].append(c)
                    if report:
                        pictures = folder_bytes(os.path.join(cwd, "build.html.d"))
            off, on = statistics.median(times[False]), statistics.median(times[True])
            coff, con = statistics.median(cpu[False]), statistics.median(cpu[True])
            print(f"{name}: without {off:.2f} s, with --report build.html {on:.2f} s, ratio {on / off:.3f} "
                  f"(+{100 * (on / off - 1):.1f}%); CPU (user+sys) {coff:.2f} s → {con:.2f} s, ratio {con / coff:.3f}; pictures {pictures / 1e6:.1f} MB; "
                  f"rounds without {['%.2f' % t for t in times[False]]}, with {['%.2f' % t for t in times[True]]}")
        print(f"load average after: {os.getloadavg()[0]:.1f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
