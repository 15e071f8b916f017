#!/usr/bin/env python3
"""Compile cost of a build folder, from its .ninja_log: the CPU-seconds of every
compile and link step of the last build, summed per folder, and the heaviest objects.

    scripts/compile_cost.py build              # totals and the top 25 objects
    scripts/compile_cost.py build --top 60
    scripts/compile_cost.py build --max 300    # exit 1 when the build's CPU time is above 300 s

A step's wall time in the log is its CPU time on a machine that runs one compiler per core
(as CI's -j2 on 2 cores does); the sum is what `-j1` would take. Only steps of outputs the build graph still
has count, each at its most recent run.

That holds only on an idle machine: another job on the same cores stretches every step. So --max checks the CPU
time scripts/setup.sh measured around its build (build/.compile_cpu_seconds: user + system of every compiler and
linker), which no other load changes, and falls back to the log's sum where that file is missing.
"""
import argparse
import collections
import os
import subprocess
import sys


def last_build(log):
    """The steps of the newest build in the log (ninja appends; a new build restarts at time 0)."""
    steps = {}
    with open(log) as f:
        lines = f.read().splitlines()
    if not lines or not lines[0].startswith("# ninja log"):
        sys.exit(f"{log}: not a ninja log")
    for line in lines[1:]:
        parts = line.split("\t")
        if len(parts) < 5:
            continue
        start, end, _mtime, out = int(parts[0]), int(parts[1]), parts[2], parts[3]
        steps[out] = (start, end)
    return steps


def group(out):
    """The source folder of an object ("pipeline/steps", "plugins/bc", "tests") or what the output is."""
    if out.endswith((".o", ".gch")):
        path = out.split("CMakeFiles/")[0].rstrip("/")
        return path or "(top)"
    if out.endswith((".so", ".a")) or "/bin/" in out or out.startswith("bin/"):
        return "(links)"
    return "(other)"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--max", type=float, help="fail when the total CPU-seconds exceed this")
    ap.add_argument("--exclude", default="tests|fuzz|bench",
                    help="regex of output paths left out of the total (default: tests, fuzz, bench)")
    a = ap.parse_args()
    import re
    skip = re.compile(a.exclude) if a.exclude else None
    steps = last_build(os.path.join(a.build, ".ninja_log"))
    # Only what the build graph still makes (the log keeps objects of files since merged, renamed or unified).
    graph = subprocess.run(["ninja", "-C", a.build, "-t", "targets", "all"], capture_output=True, text=True,
                           check=True).stdout
    current = {line.split(": ")[0] for line in graph.splitlines()}
    steps = {out: t for out, t in steps.items() if out in current}
    total = 0.0
    by_group = collections.Counter()
    objs = []
    left_out = 0.0
    for out, (s, e) in steps.items():
        secs = (e - s) / 1000.0
        if skip and skip.search(out):
            left_out += secs
            continue
        total += secs
        by_group[group(out)] += secs
        if out.endswith(".o"):
            objs.append((secs, out))
    wall = (max(e for _, e in steps.values()) - min(s for s, _ in steps.values())) / 1000.0 if steps else 0
    print(f"total {total:.1f} CPU-s in {len(steps)} steps (left out: {left_out:.1f} s of {a.exclude}); "
          f"wall {wall:.1f} s")
    for g, secs in by_group.most_common():
        print(f"  {secs:8.1f}  {g}")
    print(f"heaviest {a.top} objects:")
    for secs, out in sorted(objs, reverse=True)[: a.top]:
        print(f"  {secs:8.1f}  {out}")
    measured = os.path.join(a.build, ".compile_cpu_seconds")
    checked, source = total, "the ninja log's step times"
    if os.path.exists(measured):
        with open(measured) as f:
            checked, source = float(f.read().strip()), "user + system CPU time of scripts/setup.sh's build"
        print(f"measured {checked:.1f} CPU-s ({source})")
    if a.max is not None and checked > a.max:
        print(f"compile cost {checked:.1f} CPU-s ({source}) is above the limit of {a.max:.0f}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
