#!/usr/bin/env python3
"""Peak RSS of `assetforge build` against the engine's memory estimate.

    python3 bench/memory_peaks.py build/bin/assetforge [--size 2048] [--budgets]

For each step chain below: one input of SIZE x SIZE (random texels, random
alpha) is built with `-j1`; its peak RSS (wait4) minus that of a 4x4 build is
what the action held. The estimate is read from the error a 1 MiB budget
gives ("needs an estimated N MiB"). Every row must say OK (estimate >= actual).
--budgets runs whole builds at -j2 with --memory-budget 512 and prints how far
each peak stays from the budget. Figures quoted in docs/memory.md.
"""
import argparse
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

CHAINS = """
png8 png []
png8 png [read]
png8 dds [read]
png8 png [decode]
png8 dds [mips]
png8 dds [mips, {encode: {format: bc1}}]
png8 dds [{encode: {format: bc1}}]
png8 dds [{encode: {format: auto}}]
png8 dds [{encode: {format: bc6h, quality: fast}}]
png8 dds [{encode: {format: rgba8}}]
png8 png [{resize: {scale: 2}}]
png8 png [{resize: {scale: 0.5}}]
png8 dds [{resize: {width: 3000, height: 3000}}, mips]
png8 png [{channels: {map: bgra}}]
png8 png [mips, {extract: {what: mips}}]
png8 png [{extract: {what: mips}}]
png8 dds [{decode: {to: rgba32f}}]
png8 dds [{decode: {to: rgba32f}}, mips]
png8 png [{decode: {to: rgba32f}}, mips]
png8 dds [{decode: {to: rgba32f}}, mips, {encode: {format: bc6h, quality: fast}}]
png8 dds [mips, {decode: {to: rgba32f}}]
png8 xtf [xtf.write]
png16 png [read]
png16 dds [read]
png16 png [decode]
png16 dds [mips]
png16 png [mips]
png16 dds [{encode: {format: bc1}}]
png16 dds [{encode: {format: bc6h, quality: fast}}]
png16 dds [{encode: {format: rgba8}}]
png16 dds [mips, {encode: {format: bc7, quality: fast}}]
png16 png [{resize: {scale: 2}}]
png16 png [{resize: {scale: 0.5}}]
png16 png [{channels: {map: bgra}}]
png16 dds [{decode: {to: rgba32f}}]
png16 dds [{decode: {to: rgba32f}}, mips]
png16 png [mips, {extract: {what: mips}}]
dds_bc1 dds [mips, {encode: {format: bc1}}]
dds_bc1 png [decode]
dds_bc1 dds [{encode: {format: bc7, quality: fast}}]
dds_bc1 dds [{encode: {format: bc6h, quality: fast}}]
dds_rgba8 dds [mips, {encode: {format: bc1}}]
dds_rgba8 dds [{encode: {format: bc1}}]
dds_rgba8 dds [{encode: {format: auto}}]
dds_rgba8 dds [{encode: {format: bc6h, quality: fast}}]
dds_rgba8 png [{extract: {what: mips}}]
dds_f dds [mips]
dds_f png [decode]
dds_f dds [{encode: {format: bc6h, quality: fast}}]
dds_f dds [{encode: {format: bc1}}]
dds_f1 dds [read]
dds_f1 png [read]
dds_f1 png [decode]
dds_f1 dds [mips]
dds_f1 dds [{encode: {format: bc6h, quality: fast}}]
dds_f1 dds [{encode: {format: bc1}}]
dds_f1 png [{resize: {scale: 2}}]
dds_f1 png [{channels: {map: bgra}}]
dds_f1 png [mips, {extract: {what: mips}}]
dds_h1 dds [mips]
dds_h1 png [read]
dds_h1 dds [{encode: {format: bc6h, quality: fast}}]
dds_bc6 dds [mips, {encode: {format: bc6h, quality: fast}}]
dds_bc6 png [decode]
dds_bc6 png [{extract: {what: mips}}]
"""

# DDS inputs: made by `assetforge convert` from a random PNG. "1": top level only.
DDS_FORMATS = {"dds_bc1": "bc1", "dds_rgba8": "rgba8", "dds_f": "R32G32B32A32_FLOAT", "dds_f1": "R32G32B32A32_FLOAT",
               "dds_h1": "R16G16B16A16_FLOAT", "dds_bc6": "bc6h"}


def write_png(path, w, h, depth):
    """Random RGBA rows (8 distinct ones repeated for small rows), zlib level 1."""
    bpr = w * 4 * depth // 8
    pool = [os.urandom(bpr) for _ in range(8)]
    comp = zlib.compressobj(1)
    idat = b"".join(comp.compress(b"\0" + pool[y % 8]) for y in range(h)) + comp.flush()

    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, 6, 0, 0, 0)) +
                chunk(b"IDAT", idat) + chunk(b"IEND", b""))


class Project:
    def __init__(self, exe):
        self.exe = exe
        self.dir = tempfile.mkdtemp(prefix="af-memory-peaks-")

    def reset(self):
        shutil.rmtree(self.dir)
        os.makedirs(self.dir + "/src")

    def make_input(self, kind, size, copies=1):
        if kind.startswith("png"):
            write_png(self.dir + "/src/a0.png", size, size, 8 if kind == "png8" else 16)
            ext = "png"
        else:
            seed = self.dir + "/seed.png"
            write_png(seed, size, size, 16 if kind in ("dds_f", "dds_f1", "dds_h1", "dds_bc6") else 8)
            subprocess.run([self.exe, "convert", "-y", seed, self.dir + "/src/a0.dds", "--format", DDS_FORMATS[kind],
                            "--no-mips" if kind.endswith("1") else "--mips", "--quality", "fast"],
                           check=True, capture_output=True)
            os.remove(seed)
            ext = "dds"
        for i in range(1, copies):
            os.link(self.dir + "/src/a0." + ext, self.dir + "/src/a%d.%s" % (i, ext))
        return "src/*." + ext

    def build(self, pattern, steps, out_ext, jobs, budget):
        out = "out/{stem}_{mip}.%s" % out_ext if "extract" in steps else "out/{stem}.%s" % out_ext
        with open(self.dir + "/pipeline.yaml", "w") as f:
            f.write('assetforge: 1\njobs:\n  t:\n    inputs: "%s"\n    steps: %s\n    output: "%s"\n' %
                    (pattern, steps, out))
        shutil.rmtree(self.dir + "/out", ignore_errors=True)
        shutil.rmtree(self.dir + "/.assetforge", ignore_errors=True)
        log = self.dir + "/log.txt"
        pid = os.fork()
        if pid == 0:
            os.chdir(self.dir)
            fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            os.execv(self.exe, [self.exe, "build", "-j%d" % jobs, "--memory-budget", str(budget)])
        _, status, ru = os.wait4(pid, 0)
        return os.waitstatus_to_exitcode(status), ru.ru_maxrss / 1024, open(log).read()


def estimate_mib(text):
    m = re.search(r"needs an estimated ([\d.]+) (MiB|GiB)", text)
    return float(m.group(1)) * (1024 if m.group(2) == "GiB" else 1) if m else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exe")
    ap.add_argument("--size", type=int, default=2048)
    ap.add_argument("--budgets", action="store_true")
    a = ap.parse_args()
    p = Project(os.path.abspath(a.exe))
    try:
        p.reset()
        _, base, _ = p.build(p.make_input("png8", 4), "[read]", "png", 1, 100000)
        print("baseline (4x4 build, -j1): %.1f MiB" % base)
        low = 0
        if not a.budgets:
            for line in CHAINS.strip().splitlines():
                kind, ext, steps = line.split(" ", 2)
                p.reset()
                pattern = p.make_input(kind, a.size)
                code, peak, log = p.build(pattern, steps, ext, 1, 100000)
                est = estimate_mib(p.build(pattern, steps, ext, 1, 1)[2])
                ok = code == 0 and est is not None and est >= peak - base
                low += not ok
                print("%s %-9s %-4s %-60s held %7.1f MiB  estimate %7.1f MiB  ratio %.2f" %
                      ("OK " if ok else "LOW", kind, ext, steps, peak - base, est or -1,
                       (est or 0) / max(1.0, peak - base)), flush=True)
        else:
            for name, n, size, steps, ext, jobs in [
                    ("1900^2 x4 mips", 4, 1900, "[mips]", "dds", 2),
                    ("1900^2 x4 decode rgba32f", 4, 1900, "[{decode: {to: rgba32f}}]", "png", 2),
                    ("1300^2 x6 resize 1.5", 6, 1300, "[{resize: {scale: 1.5}}]", "png", 2),
                    ("2600^2 x3 mips", 3, 2600, "[mips]", "dds", 2),
                    ("950^2 x12 mips bc1 -j8", 12, 950, "[mips, {encode: {format: bc1}}]", "dds", 8)]:
                p.reset()
                code, peak, log = p.build(p.make_input("png8", size, n), steps, ext, jobs, 512)
                print("%-28s -j%d --memory-budget 512: peak %6.1f MiB (%+.1f MiB from the budget)  %s" %
                      (name, jobs, peak, peak - 512, log.strip().splitlines()[-1]), flush=True)
        return 1 if low else 0
    finally:
        shutil.rmtree(p.dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
