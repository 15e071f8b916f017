#!/usr/bin/python3
"""AssetForge engine vs ninja on a generated tree of small PNGs.

Generates N small PNG inputs, a pipeline.yaml with one 1 -> 1 job (the `copy`
step) and the equivalent build.ninja with one edge per file (`cp`), then times
for both tools: a full build, a no-op build and a build after one input
changed. Each figure is the best of --repeat runs (no-op, one-changed); the
no-ops start after a sync and one untimed no-op of each tool.

  bench/engine_bench/engine_bench.py --assetforge build/bin/assetforge [--files 2000,10000,100000]

Several sizes (comma-separated) run one after the other in one run, each on a
tree of its own, and a table of all of them ends the output. For each size one
more no-op build runs with --trace, and its phases (load state, glob and stat
inputs, plan, checks and actions, save state) say where the time goes.

The build command is `<assetforge> build -q <dir>/pipeline.yaml`. Its no-op is
timed twice, interleaved with ninja's: as a user runs it (answered from the
no-op record the previous clean build left, see docs/cli.md) and with
ASSETFORGE_NOOP_RECORDS=off (the engine's full check: state, plan, every
action). Pass
--driver build/bin/engine_build_driver to time the engine through the test
driver (same engine, no plugin host) instead.
"""
import argparse
import json
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
    for d in range((n + 99) // 100):
        os.makedirs(os.path.join(root, "out", "ninja", "d%03d" % d), exist_ok=True)
    with open(os.path.join(root, "build.ninja"), "w") as f:
        # The output folders exist: one process per edge, as cheap as ninja's full build can be.
        f.write("rule cp\n  command = cp $in $out\n\n")
        for i in range(n):
            rel = "d%03d/f%05d.png" % (i // 100, i)
            f.write("build out/ninja/%s: cp src/%s\n" % (rel, rel))


def timed(cmd, cwd, env=None):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit("command failed (%d): %s\n%s" % (r.returncode, " ".join(cmd), r.stderr.decode()[-2000:]))
    return dt, r.stdout.decode()


def phases(af_cmd, root):
    """One more no-op with --trace: the build's phase slices (ms)."""
    trace = os.path.join(root, "noop-trace.json")
    timed(af_cmd + ["--trace", trace], root)
    with open(trace) as f:
        events = json.load(f)["traceEvents"]
    out = {}
    for e in events:
        if e.get("ph") == "X" and e.get("cat") == "build":
            out[e["name"]] = e["dur"] / 1000.0
    return out


def run_size(a, n, ninja):
    root = tempfile.mkdtemp(prefix="af-engine-bench-")
    try:
        generate(root, n)
        yaml = os.path.join(root, "pipeline.yaml")
        if a.driver:
            af_cmd = [os.path.abspath(a.driver), yaml]
        else:
            af_cmd = [os.path.abspath(a.assetforge), "build", "-q", "-j", str(a.jobs), yaml]
        nj_cmd = [ninja, "-j", str(a.jobs)]
        changed = os.path.join(root, "src", "d000", "f00042.png")
        results = {}
        rec_env = dict(os.environ, XDG_CACHE_HOME=root + "-cache")
        full_env = dict(os.environ, ASSETFORGE_NOOP_RECORDS="off")
        for name, cmd in (("assetforge", af_cmd), ("ninja", nj_cmd)):
            full, _ = timed(cmd, root, rec_env if name == "assetforge" else None)
            results[name] = [full, None, None]
        # The full builds' writes reach the disk first (the kernel's writeback
        # otherwise lands on whichever no-op runs meanwhile), and each tool has
        # one untimed no-op (its files and state in the page cache).
        os.sync()
        timed(af_cmd, root, full_env)
        timed(af_cmd, root, rec_env)  # writes the record (the full build's outputs were too new to vouch for)
        timed(nj_cmd, root)
        # No-op runs interleaved, so both tools see the same machine.
        af_noop, nj_noop, af_full = [], [], []
        for _ in range(a.repeat):
            af_noop.append(timed(af_cmd, root, rec_env)[0])
            nj_noop.append(timed(nj_cmd, root)[0])
            af_full.append(timed(af_cmd, root, full_env)[0])
        results["assetforge"][1], results["ninja"][1] = min(af_noop), min(nj_noop)
        results["assetforge (no record)"] = [results["assetforge"][0], min(af_full), None]
        for name, cmd in (("assetforge", af_cmd), ("ninja", nj_cmd)):
            one = []  # with records on: the changed file sends the build the ordinary way
            for r in range(a.repeat):
                with open(changed, "wb") as f:
                    f.write(png_bytes(8, 8, 1000 + r + (0 if name == "assetforge" else 100)))
                one.append(timed(cmd, root, rec_env if name == "assetforge" else None)[0])
            results[name][2] = min(one)
        ph = {} if a.driver else phases(af_cmd, root)
        med = lambda v: sorted(v)[len(v) // 2]
        return results, ph, med(af_noop), med(nj_noop), med(af_full)
    finally:
        if a.keep:
            print("tree kept in", root)
        else:
            shutil.rmtree(root, ignore_errors=True)
            shutil.rmtree(root + "-cache", ignore_errors=True)
            os.sync()  # the next size starts on a quiet disk


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--assetforge", default="build/bin/assetforge")
    ap.add_argument("--driver", help="engine_build_driver instead of the assetforge binary")
    ap.add_argument("--files", default="10000", help="one size or several, comma-separated")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--before", help="another assetforge binary (an earlier engine): its no-op is timed "
                    "interleaved with --assetforge's on a copy of the same tree")
    a = ap.parse_args()
    ninja = shutil.which("ninja")
    if not ninja:
        sys.exit("ninja not found")
    sizes = [int(x) for x in a.files.split(",")]
    if a.before:
        if len(sizes) != 1:
            sys.exit("--before takes one size")
        return before_run(a, sizes[0], ninja)
    print("load average before: %.2f %.2f %.2f on %d cores" % (os.getloadavg() + (os.cpu_count(),)))
    rows = []
    for n in sizes:
        results, ph, af_med, nj_med, full_med = run_size(a, n, ninja)
        print("engine_bench: %d PNG inputs (8x8), 1 -> 1 copy job, -j%d, best of %d" % (n, a.jobs, a.repeat))
        print("%-12s %12s %12s %14s" % ("tool", "full (s)", "no-op (s)", "one-file (s)"))
        for name, (full, noop, one) in results.items():
            print("%-22s %12.3f %12.3f %14s" % (name, full, noop, "-" if one is None else "%.3f" % one))
        af, nj = results["assetforge"], results["ninja"]
        full = results["assetforge (no record)"]
        print("no-op ratio assetforge/ninja: %.2fx best, %.2fx median (target <= 1.5x); without the record "
              "%.2fx best, %.2fx median" % (af[1] / nj[1], af_med / nj_med, full[1] / nj[1], full_med / nj_med))
        if ph:
            print("where a no-op's time goes (ms, from --trace): " +
                  ", ".join("%s %.1f" % (k, v) for k, v in ph.items()))
        rows.append((n, af[1], nj[1], af_med, nj_med, af[2], nj[2], full[1], full_med))
        sys.stdout.flush()
    print("load average after: %.2f %.2f %.2f" % os.getloadavg())
    print()
    print("| files | assetforge no-op (s) | ninja no-op (s) | ratio (best) | ratio (median) | "
          "without the record (s) | its ratio (best / median) | one file changed: assetforge / ninja (s) |")
    print("|---|---|---|---|---|---|---|---|")
    for n, af_b, nj_b, af_m, nj_m, af_1, nj_1, fu_b, fu_m in rows:
        print("| %d | %.3f | %.3f | %.2fx | %.2fx | %.3f | %.2fx / %.2fx | %.3f / %.3f |"
              % (n, af_b, nj_b, af_b / nj_b, af_m / nj_m, fu_b, fu_b / nj_b, fu_m / nj_m, af_1, nj_1))


def before_run(a, n, ninja):
    root = tempfile.mkdtemp(prefix="af-engine-bench-")
    try:
        generate(root, n)
        yaml = os.path.join(root, "pipeline.yaml")
        af_cmd = [os.path.abspath(a.assetforge), "build", "-q", "-j", str(a.jobs), yaml]
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
        print("no-op of %d files, interleaved x%d: before %.3f s best / %.3f s median; now %.3f s best / %.3f s median"
              % (n, len(now), min(before), sorted(before)[len(before) // 2], min(now), sorted(now)[len(now) // 2]))
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
