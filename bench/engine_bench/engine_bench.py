#!/usr/bin/python3
"""AssetForge engine vs ninja on a generated tree of small PNGs.

Generates N small PNG inputs, a pipeline.yaml with one 1 -> 1 job (the `copy`
step) and the equivalent build.ninja with one edge per file (`cp`), then times
for both tools: a full build, a no-op build and a build after one input
changed. Each figure is the best of --repeat runs (no-op, one-changed).

  bench/engine_bench/engine_bench.py --assetforge build/bin/assetforge [--files 10000]

The build command is `<assetforge> build -q <dir>/pipeline.yaml`; pass
--driver build/bin/engine_build_driver to time the engine through the test
driver (same engine, no plugin host) instead.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zlib
import struct


def png_bytes(w, h, seed):
    def chunk(kind, data):
        c = struct.pack(">I", len(data)) + kind + data
        return c + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + bytes(((x * 7 + y * 13 + seed) & 0xFF) for x in range(w * 4)) for y in range(h))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def generate(root, n):
    src = os.path.join(root, "src")
    for i in range(n):
        d = os.path.join(src, "d%03d" % (i // 100))
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "f%05d.png" % i), "wb") as f:
            f.write(png_bytes(8, 8, i))
    with open(os.path.join(root, "pipeline.yaml"), "w") as f:
        f.write('assetforge: 1\njobs:\n  copy:\n    inputs: "src/**/*.png"\n    steps: [ copy ]\n'
                '    output: "out/af/{dir}/{name}"\n')
    with open(os.path.join(root, "build.ninja"), "w") as f:
        f.write("rule cp\n  command = mkdir -p $$(dirname $out) && cp $in $out\n\n")
        for i in range(n):
            rel = "d%03d/f%05d.png" % (i // 100, i)
            f.write("build out/ninja/%s: cp src/%s\n" % (rel, rel))


def timed(cmd, cwd):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit("command failed (%d): %s\n%s" % (r.returncode, " ".join(cmd), r.stderr.decode()[-2000:]))
    return dt, r.stdout.decode()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--assetforge", default="build/bin/assetforge")
    ap.add_argument("--driver", help="engine_build_driver instead of the assetforge binary")
    ap.add_argument("--files", type=int, default=10000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--before", help="another assetforge binary (an earlier engine): its no-op is timed "
                    "interleaved with --assetforge's on a copy of the same tree")
    a = ap.parse_args()
    ninja = shutil.which("ninja")
    if not ninja:
        sys.exit("ninja not found")
    root = tempfile.mkdtemp(prefix="af-engine-bench-")
    try:
        generate(root, a.files)
        yaml = os.path.join(root, "pipeline.yaml")
        if a.driver:
            af_cmd = [os.path.abspath(a.driver), yaml]
        else:
            af_cmd = [os.path.abspath(a.assetforge), "build", "-q", "-j", str(a.jobs), yaml]
        nj_cmd = [ninja, "-j", str(a.jobs)]
        changed = os.path.join(root, "src", "d000", "f00042.png")
        results = {}
        for name, cmd in (("assetforge", af_cmd), ("ninja", nj_cmd)):
            full, _ = timed(cmd, root)
            noop = min(timed(cmd, root)[0] for _ in range(a.repeat))
            one = []
            for r in range(a.repeat):
                with open(changed, "wb") as f:
                    f.write(png_bytes(8, 8, 1000 + r + (0 if name == "assetforge" else 100)))
                one.append(timed(cmd, root)[0])
            results[name] = (full, noop, min(one))
        if a.before:
            # Same tree, own copy (own state), no-op runs interleaved so both see the same machine load.
            other = root + "-before"
            shutil.copytree(root, other, symlinks=True, ignore=shutil.ignore_patterns("out", ".assetforge", ".ninja*"))
            b_cmd = [os.path.abspath(a.before), "build", "-q", "-j", str(a.jobs), os.path.join(other, "pipeline.yaml")]
            timed(b_cmd, other)
            timed(af_cmd, root)
            now, before = [], []
            for _ in range(max(a.repeat, 5)):
                before.append(timed(b_cmd, other)[0])
                now.append(timed(af_cmd, root)[0])
            shutil.rmtree(other, ignore_errors=True)
            print("no-op, interleaved x%d: before %.3f s best / %.3f s median; now %.3f s best / %.3f s median"
                  % (len(now), min(before), sorted(before)[len(before) // 2], min(now), sorted(now)[len(now) // 2]))
        print("engine_bench: %d PNG inputs (8x8), 1 -> 1 copy job, -j%d, best of %d" % (a.files, a.jobs, a.repeat))
        print("%-12s %12s %12s %14s" % ("tool", "full (s)", "no-op (s)", "one-file (s)"))
        for name, (full, noop, one) in results.items():
            print("%-12s %12.3f %12.3f %14.3f" % (name, full, noop, one))
        af, nj = results["assetforge"], results["ninja"]
        print("no-op ratio assetforge/ninja: %.2fx (target <= 1.5x and < 0.5 s); no-op %.3f s, one-file-changed %.3f s (target < 1 s)"
              % (af[1] / nj[1], af[1], af[2]) if nj[1] > 0 else "")
    finally:
        if a.keep:
            print("tree kept in", root)
        else:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
