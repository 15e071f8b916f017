#!/usr/bin/python3
"""What plugin isolation costs: a tree of small textures through a third-party container, and a
tree of small raw files through a third-party stage, in process (`--isolate none`) and in
sandboxed workers (`--isolate third-party`, the default).

usage: bench/isolation_bench.py [--assetforge BUILD/bin/assetforge] [--files 1000] [--size 64] [--rounds 5] [-j 2]
                                [--only container|stage] [--dir /dev/shm]

The third-party container is the bundled DDS plugin, copied into a folder of its own and
loaded from $ASSETFORGE_PLUGIN_PATH, so that the same code runs both ways. The tree: FILES
random RGBA PNGs of SIZE² made into DDS files (full mip chains) by assetforge itself; the
timed build decodes every DDS to a PNG (`steps: [ decode ]`), a clean build each time.

The third-party stage is the bundled XTF plugin's `swizzle` (raw row-major texels to the
original Xbox's swizzled order), copied the same way: FILES raw files of SIZE² 32-bit
texels, one action each, the stage's one emitted item written as it is. Each isolated call
crosses to a worker and back: the inputs in one memfd, the emitted bytes in another.

Both copies are loaded with `--plugin-override` (a third-party plugin with a bundled one's
name is otherwise refused). Rounds alternate the two modes so a noisy machine slows both
alike. Printed: the median wall time of each mode, its CPU time (user+sys of the child
processes), and the overhead.
"""
import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

MAKE = """assetforge: 1
jobs:
  dds:
    inputs: "src/*.png"
    steps: [ mips ]
    output: "out/{stem}.dds"
"""

DECODE = """assetforge: 1
jobs:
  png:
    inputs: "src/*.dds"
    steps: [ decode ]
    output: "out/{stem}.png"
"""

SWIZZLE = """assetforge: 1
jobs:
  swizzled:
    inputs: "src/*.raw"
    steps: [ { swizzle: { width: %d, height: %d, bpp: 32 } } ]
    output: "out/{name}"
"""


def run(cmd, cwd, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stdout}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), p.stdout


def timed_modes(exe, proj, env, override, a):
    """Median wall and CPU time of a clean build in each mode, rounds interleaved."""
    times = {"none": [], "third-party": []}
    for r in range(a.rounds):
        for mode in (["none", "third-party"] if r % 2 == 0 else ["third-party", "none"]):
            for d in ("out", "out/.assetforge"):
                shutil.rmtree(os.path.join(proj, d), ignore_errors=True)
            wall, cpu, _ = run([exe, "--plugin-override", override, "build", "-q", f"-j{a.j}", "--isolate", mode],
                               proj, env)
            times[mode].append((wall, cpu))
    return times


def report(title, times):
    print(title)
    med = {}
    for mode, t in times.items():
        wall = statistics.median(x[0] for x in t)
        cpu = statistics.median(x[1] for x in t)
        med[mode] = wall
        print(f"  --isolate {mode:<12} wall {wall:7.3f} s  cpu {cpu:7.3f} s  "
              f"({', '.join(f'{x[0]:.3f}' for x in t)})")
    print(f"  isolation overhead: {100 * (med['third-party'] / med['none'] - 1):+.1f} % wall")


def third_party_copy(exe, tmp, library):
    bundled = os.path.join(os.path.dirname(os.path.dirname(exe)), "lib", "assetforge", "plugins", library)
    if not os.path.exists(bundled):
        sys.exit(f"no {bundled}: build its plugin first")
    plugins = os.path.join(tmp, "plugins-" + library)
    os.makedirs(plugins)
    shutil.copy(bundled, plugins)
    return dict(os.environ, ASSETFORGE_PLUGIN_PATH=plugins)


def container_bench(exe, tmp, a):
    from PIL import Image  # only this part makes pictures

    gen = os.path.join(tmp, "gen")
    os.makedirs(os.path.join(gen, "src"))
    rng = random.Random(29)
    for i in range(a.files):
        Image.frombytes("RGBA", (a.size, a.size), rng.randbytes(a.size * a.size * 4)).save(
            os.path.join(gen, "src", f"t{i:05}.png"))
    with open(os.path.join(gen, "pipeline.yaml"), "w") as f:
        f.write(MAKE)
    run([exe, "build", "-q"], gen, dict(os.environ))
    proj = os.path.join(tmp, "proj")
    shutil.copytree(os.path.join(gen, "out"), os.path.join(proj, "src"))
    with open(os.path.join(proj, "pipeline.yaml"), "w") as f:
        f.write(DECODE)
    env = third_party_copy(exe, tmp, "af_dds.so")
    load = os.getloadavg()[0]
    times = timed_modes(exe, proj, env, "dds", a)
    report(f"{a.files} DDS files of {a.size}x{a.size} (full mip chains) decoded to PNG by a third-party container, "
           f"-j{a.j}, {a.rounds} rounds, load average before: {load:.2f}", times)


def stage_bench(exe, tmp, a):
    proj = os.path.join(tmp, "stage")
    os.makedirs(os.path.join(proj, "src"))
    rng = random.Random(42)
    for i in range(a.files):
        with open(os.path.join(proj, "src", f"r{i:05}.raw"), "wb") as f:
            f.write(rng.randbytes(a.size * a.size * 4))
    with open(os.path.join(proj, "pipeline.yaml"), "w") as f:
        f.write(SWIZZLE % (a.size, a.size))
    env = third_party_copy(exe, tmp, "af_xtf.so")
    load = os.getloadavg()[0]
    times = timed_modes(exe, proj, env, "xtf", a)
    report(f"{a.files} raw files of {a.size}x{a.size} 32-bit texels through a third-party stage (swizzle), "
           f"-j{a.j}, {a.rounds} rounds, load average before: {load:.2f}", times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--assetforge", default=os.path.join(ROOT, "build", "bin", "assetforge"))
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--size", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--only", choices=["container", "stage"])
    # /dev/shm takes the disk out: each output's fsync and rename otherwise varies the in-process rounds alone by 4x.
    ap.add_argument("--dir", help="make the trees in this folder (default: the system's temporary folder)")
    a = ap.parse_args()
    exe = os.path.abspath(a.assetforge)
    with tempfile.TemporaryDirectory(prefix="af-isolation-bench-", dir=a.dir) as tmp:
        if a.only != "stage":
            container_bench(exe, tmp, a)
        if a.only != "container":
            stage_bench(exe, tmp, a)


if __name__ == "__main__":
    main()
