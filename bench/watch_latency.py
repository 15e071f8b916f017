#!/usr/bin/python3
"""Save-to-output latency of `assetforge watch` in a large tree (issue 31).

Generates N small PNGs (8x8, 100 per folder) and a pipeline with one texture
job over all of them (`encode: bc1`, one .dds per PNG), runs the first build
through `assetforge watch`, then saves one texture --saves times the way
editors do (the whole file to a temporary beside it, renamed over it) and
times each save until its .dds is replaced on disk. Prints every figure, the
median, and the watch's own figure (first event to outputs in place).

  bench/watch_latency.py --assetforge build/bin/assetforge [--files 20000] [--saves 5]

The tree is made in a temporary folder (--keep to leave it). The first build
encodes every file, so it takes a while on a small machine; only the saves
are timed. Another save waits until the watch has printed its line for the
previous one, so each figure is one rebuild.
"""
import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "engine_bench"))
from engine_bench import png_bytes  # noqa: E402  the same small PNGs as the engine bench


def rel_of(i):
    return "d%03d/f%05d" % (i // 100, i)


def generate(root, n):
    for i in range(n):
        path = os.path.join(root, "src", rel_of(i) + ".png")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(png_bytes(8, 8, i))
    with open(os.path.join(root, "pipeline.yaml"), "w") as f:
        f.write('assetforge: 1\njobs:\n  dds:\n    inputs: "src/**/*.png"\n'
                '    steps: [ { encode: { format: bc1, quality: fast } } ]\n    output: "out/{dir}/{stem}.dds"\n')


class Output:
    """The watch's stdout and stderr, drained by a thread of their own (a full pipe would stop the watch)."""

    def __init__(self, proc):
        self.proc, self.text, self.lock = proc, "", threading.Lock()
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        for line in iter(self.proc.stdout.readline, b""):
            with self.lock:
                self.text += line.decode("utf-8", "replace")

    def size(self):
        with self.lock:
            return len(self.text)

    def wait_for(self, pattern, start, secs):
        until = time.monotonic() + secs
        while True:
            with self.lock:
                m = re.compile(pattern).search(self.text, start)
            if m:
                return m
            if time.monotonic() > until or self.proc.poll() is not None:
                sys.exit("watch: no %r within %.0f s; it printed:\n%s" % (pattern, secs, self.text[-4000:]))
            time.sleep(0.01)


def stamp(path):
    try:
        st = os.stat(path)
        return (st.st_ino, st.st_mtime_ns, st.st_size)
    except FileNotFoundError:
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--assetforge", required=True)
    ap.add_argument("--files", type=int, default=20000)
    ap.add_argument("--saves", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    exe = os.path.abspath(args.assetforge)
    root = tempfile.mkdtemp(prefix="af-watch-bench-")
    try:
        t = time.monotonic()
        generate(root, args.files)
        print("tree: %d PNGs (8x8) in %d folders, made in %.1f s" % (args.files, (args.files + 99) // 100,
                                                                      time.monotonic() - t))
        load = os.getloadavg()
        print("load average before: %.2f %.2f %.2f on %d cores" % (load + (os.cpu_count(),)))
        proc = subprocess.Popen([exe, "watch", "-q", "-j", str(args.jobs)], cwd=root, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
        out = Output(proc)
        t = time.monotonic()
        out.wait_for(r"Ctrl-C stops", 0, 3600)
        print("first build (every file encoded) and watches set: %.1f s" % (time.monotonic() - t))
        print(out.wait_for(r"assetforge watch: watching[^\n]*", 0, 1).group(0))
        target = rel_of(args.files // 2)
        src = os.path.join(root, "src", target + ".png")
        dds = os.path.join(root, "out", target + ".dds")
        latencies, own = [], []
        for k in range(args.saves):
            time.sleep(0.5)  # the previous rebuild's events are in, so this save is a rebuild of its own
            before = stamp(dds)
            mark = out.size()
            tmp = src + ".tmp~"
            with open(tmp, "wb") as f:
                f.write(png_bytes(8, 8, 100000 + k))
            t0 = time.monotonic()
            os.rename(tmp, src)
            while stamp(dds) == before:
                if time.monotonic() - t0 > 60:
                    sys.exit("the output did not change within 60 s; the watch printed:\n" + out.text[-4000:])
                time.sleep(0.001)
            latencies.append(time.monotonic() - t0)
            m = out.wait_for(r"in ([0-9.]+) s from the change", mark, 60)
            own.append(float(m.group(1)))
            print("save %d: %.0f ms to the .dds in place (the watch says %.0f ms)" %
                  (k + 1, latencies[-1] * 1000, own[-1] * 1000))
        print("median of %d: %.0f ms save to output (watch's own figure: %.0f ms)" %
              (args.saves, statistics.median(latencies) * 1000, statistics.median(own) * 1000))
        load = os.getloadavg()
        print("load average after: %.2f %.2f %.2f" % load)
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
    finally:
        if args.keep:
            print("tree kept in " + root)
        else:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
