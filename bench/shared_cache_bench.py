#!/usr/bin/python3
"""A shared remote cache and sharding on a generated texture tree.

Generates N RGBA PNGs (default 2,000 of 512x512) and a pipeline that makes
mips and encodes each to BC7 (quality normal), then packs the DDS into a zip,
and times, each in its own fresh copy of the project (empty local state):

  cold, no cache         one process, -j2, no remote cache
  cold + upload          one process, -j2, uploading to an empty cache
  warm from cache        a fresh clone against the filled cache (target: >= 20x faster than cold)
  2 shards + gather      two processes (-j1 each, --shard 0/2 and 1/2) against an empty cache, at
                         the same time, then the gather build in a fresh clone
  no-op                  the warm clone built again

The cache is a real nginx with WebDAV PUT (tests/support/nginx-cache.sh) on
loopback. Outputs of every variant are checked byte-identical to the cold
build's. Usage:

  bench/shared_cache_bench.py --assetforge build/bin/assetforge [--files 2000] [--size 512]
"""
import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
NGINX = os.path.join(HERE, "..", "tests", "support", "nginx-cache.sh")

PIPELINE = """assetforge: 1
jobs:
  textures:
    inputs: "src/**/*.png"
    steps:
      - mips
      - encode: { format: bc7, quality: normal }
    output: "out/{dir}/{stem}.dds"
  pack:
    from: textures
    gather: { zip: { compression: store } }
    output: "out/mod.zip"
"""


def generate(root, n, size):
    import numpy as np
    from PIL import Image
    rng = np.random.default_rng(7)
    y, x = np.mgrid[0:size, 0:size].astype(np.float32) / size
    bases = []
    for k in range(16):
        f = 2 + k
        r = 127 + 120 * np.sin(x * f * 3.1 + k)
        g = 127 + 120 * np.cos(y * f * 2.3 - k)
        b = 127 + 120 * np.sin((x + y) * f)
        noise = rng.integers(0, 24, (size, size, 3))
        rgb = np.clip(np.stack([r, g, b], -1) + noise, 0, 255).astype(np.uint8)
        a = np.full((size, size, 1), 255, np.uint8)
        bases.append(np.concatenate([rgb, a], -1))
    for i in range(n):
        img = bases[i % 16].copy()
        # Every file unique: its number in a row of pixels, and a shifted block.
        img[0, :32, 0] = [(i >> (b % 16)) & 1 and 255 or 0 for b in range(32)]
        img = np.roll(img, i // 16, axis=1)
        d = os.path.join(root, "src", "d%02d" % (i // 100))
        os.makedirs(d, exist_ok=True)
        Image.fromarray(img, "RGBA").save(os.path.join(d, "t%05d.png" % i), compress_level=1)
    with open(os.path.join(root, "pipeline.yaml"), "w") as f:
        f.write(PIPELINE)


def clone(src, dst):
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("out", ".assetforge"))


def run(cmd, cwd, env=None):
    t0 = time.perf_counter()
    c0 = os.times()
    r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    c1 = os.times()
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit("failed (%d): %s\n%s\n%s" % (r.returncode, " ".join(cmd), r.stdout.decode()[-2000:],
                                              r.stderr.decode()[-2000:]))
    cpu = (c1.children_user - c0.children_user) + (c1.children_system - c0.children_system)
    return dt, cpu, r.stdout.decode().strip().splitlines()[-1] if r.stdout.strip() else ""


def digest_tree(root):
    h = {}
    out = os.path.join(root, "out")
    for d, _, files in os.walk(out):
        for f in files:
            p = os.path.join(d, f)
            with open(p, "rb") as fh:
                h[os.path.relpath(p, out)] = hashlib.sha256(fh.read()).hexdigest()
    return h


class Cache:
    def __init__(self, work):
        self.dir = tempfile.mkdtemp(prefix="cache-", dir=work)
        self.url = subprocess.check_output(["bash", NGINX, "start", self.dir], text=True).strip()

    def stop(self):
        subprocess.run(["bash", NGINX, "stop", self.dir], check=False)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--assetforge", default="build/bin/assetforge")
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    af = os.path.abspath(a.assetforge)
    work = tempfile.mkdtemp(prefix="af-cache-bench-")
    caches = []
    try:
        seed = os.path.join(work, "seed")
        os.makedirs(seed)
        t0 = time.perf_counter()
        generate(seed, a.files, a.size)
        print("generated %d %dx%d PNGs in %.1f s" % (a.files, a.size, a.size, time.perf_counter() - t0), flush=True)
        rows = []

        def build(name, extra, jobs=2, cwd=None):
            d = cwd or os.path.join(work, name)
            if not cwd:
                clone(seed, d)
            t, cpu, last = run([af, "build", "-j", str(jobs), "--memory-budget", "4096"] + extra + ["pipeline.yaml"], d)
            return d, t, cpu, last

        d_local, t_local, c_local, l_local = build("cold-local", [])
        rows.append(("cold, no cache", t_local, c_local, l_local))
        ref = digest_tree(d_local)
        print("cold, no cache: %.1f s" % t_local, flush=True)

        c1 = Cache(work)
        caches.append(c1)
        d_up, t_up, c_up, l_up = build("cold-upload", ["--remote-cache", c1.url])
        rows.append(("cold + upload", t_up, c_up, l_up))
        d_warm, t_warm, c_warm, l_warm = build("warm", ["--remote-cache", c1.url])
        rows.append(("warm from cache (fresh clone)", t_warm, c_warm, l_warm))
        _, t_noop, c_noop, l_noop = build("warm", ["--remote-cache", c1.url], cwd=d_warm)
        rows.append(("no-op (the warm clone again)", t_noop, c_noop, l_noop))
        for d in (d_up, d_warm):
            if digest_tree(d) != ref:
                sys.exit("outputs differ from the cold build in " + d)

        c2 = Cache(work)
        caches.append(c2)
        shards = []
        procs = []
        t0 = time.perf_counter()
        for i in range(2):
            d = os.path.join(work, "shard%d" % i)
            clone(seed, d)
            shards.append(d)
            procs.append(subprocess.Popen([af, "build", "-j", "1", "--memory-budget", "4096", "--shard", "%d/2" % i, "--remote-cache", c2.url,
                                           "pipeline.yaml"], cwd=d, stdout=subprocess.PIPE, stderr=subprocess.PIPE))
        shard_lines = []
        for p in procs:
            out, err = p.communicate()
            if p.returncode != 0:
                sys.exit("shard failed: " + err.decode()[-2000:])
            shard_lines.append(out.decode().strip().splitlines()[-1])
        t_shards = time.perf_counter() - t0
        d_gather, t_gather, c_gather, l_gather = build("gather", ["--remote-cache", c2.url])
        if digest_tree(d_gather) != ref:
            sys.exit("gathered outputs differ from the one-machine build")
        rows.append(("2 shards (2 processes, -j1 each, one cache)", t_shards, float("nan"), " | ".join(shard_lines)))
        rows.append(("  then the gather (fresh clone)", t_gather, c_gather, l_gather))
        rows.append(("  shards + gather", t_shards + t_gather, float("nan"), ""))

        print("\nshared_cache_bench: %d PNG %dx%d -> mips + BC7 normal -> DDS, + zip; nginx WebDAV cache on loopback"
              % (a.files, a.size, a.size))
        print("| run | wall (s) | CPU (s) | summary |")
        print("|---|---|---|---|")
        for name, t, cpu, last in rows:
            print("| %s | %.2f | %s | %s |" % (name, t, "-" if cpu != cpu else "%.2f" % cpu, last))
        print("\nwarm from cache vs cold (no cache): %.1fx faster (target >= 20x); shards+gather vs one process: %.2fx"
              % (t_local / t_warm, t_local / (t_shards + t_gather)))
        print("every variant's outputs are byte-identical to the cold build's (%d files)" % len(ref))
    finally:
        for c in caches:
            c.stop()
        if a.keep:
            print("kept", work)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
