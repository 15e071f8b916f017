#!/usr/bin/python3
"""Extracting an Echo VR package set: AssetForge vs `zstd -d` on the same frames vs evr_read.py.

usage: bench/evr_extract_bench.py TOOLS ASSETFORGE SCRATCH [--mb 1024] [--synthetic --files K --frame-size B]
                                  [--part-size B] [--seed N] [--rounds N] [--keep] [--other ASSETFORGE2]

TOOLS is the folder holding the reference tools make_evr.py and evr_read.py (they need /usr/bin/python3
with python3-zstandard); ASSETFORGE the built binary; SCRATCH a folder for the set and the
outputs (put it outside the repository: it holds about (2 + 4 x rounds) x --mb while running; removed at the end
unless --keep: set/, tree/, zst/, out/, frames.zst).

The set: by default a tree of --mb MB of files (textures of 64-1024 px as DDS and as raw BC with their
256-byte metadata, opaque files of 1 KB-700 KB; contents with both literal runs and repeats, so zstd
does real work, about 2.8:1) packed by `make_evr.py --from-dir` into frames of at most 512000 bytes
(the cap of spec 7.3). make_evr.py's own synthetic files average about 450 bytes, so 1 GB of them is
about 2.3 million files; --synthetic uses them instead (`--files K --frame-size B`).

Then, in each round, warm cache (the parts and frame files are read once before the first round), each
run into a new folder after an untimed `sync`, nothing deleted before the end but every output evicted
from the page cache after its run (see the notes in main() and evict()):
  AF extract     `assetforge evr extract DATA NAME --out DIR` (the host's default threads: all cores),
                 ending with its one syncfs and the renames (plugins/evr/README.md)
  AF verify      `assetforge evr verify DATA NAME`: every data frame decoded, nothing written
  AF extract (other)   with --other: the same extraction by another build, for A/B in the same rounds
  zstd -> null   `zstd -d -c frames.zst > /dev/null`: every referenced data frame, cut out of the parts
                 with the frame table of `assetforge evr list --json`, as one concatenated stream
  zstd -> files  the same frames as one .zst file each, `zstd -d -q --output-dir-flat DIR`, split over
                 as many processes as cores (xargs -P), one output file per frame
  zstd -> files+sync   the same followed by `sync -f DIR` (syncfs), the flush AF extract pays for
  evr_read.py    `evr_read.py extract MANIFEST --out DIR` (one process, no flush)
Wall time, CPU time (user+sys of the children) and decompressed MB/s; ratios at the end. The outputs of
AF and evr_read.py are checked to hold the same number of files and bytes.
"""
import argparse
import json
import os
import random
import resource
import shutil
import struct
import subprocess
import sys
import time

PY = "/usr/bin/python3"
T_DDS, T_RAW, T_META = 0xBEAC1969CB7B8861, 0x7F5BC1CF8CE51FFD, 0x2F6E61706A2C8F35
OPAQUE = [0x38EE951A26FB816A, 0xCA6CD085401CBC87]
# 24 symbols, skewed: random text over it is about 4 bits a byte, so literals cost zstd real entropy decoding.
SKEW = bytes((b % 24) * 7 + (b >> 6) for b in range(256))


def content(rng, n):
    """n bytes of runs of skewed random literals and copies of earlier bytes (matches)."""
    out = bytearray()
    while len(out) < n:
        k = min(n - len(out), rng.randint(16, 2048))
        if len(out) > 4096 and rng.random() < 0.6:
            s = rng.randrange(len(out) - k) if len(out) > k else 0
            out += out[s:s + k]
        else:
            out += rng.randbytes(k).translate(SKEW)
    return bytes(out)


def chain(w, h, mips, bb):
    total = 0
    for _ in range(mips):
        total += max(1, (w + 3) // 4) * max(1, (h + 3) // 4) * bb
        w, h = max(1, w // 2), max(1, h // 2)
    return total


def dds_header(w, h, mips, fmt, bb):
    top = max(1, (w + 3) // 4) * max(1, (h + 3) // 4) * bb
    hdr = struct.pack("<4s7I44x", b"DDS ", 124, 0xA1007, h, w, top, 1, mips)
    hdr += struct.pack("<II4s5I", 32, 4, b"DX10", 0, 0, 0, 0, 0)
    hdr += struct.pack("<5I", 0x1000 | (0x400008 if mips > 1 else 0), 0, 0, 0, 0)
    return hdr + struct.pack("<5I", fmt, 3, 0, 1, 0)


def write_tree(root, mb, seed):
    """--mb MB of files under root/<type hex>/<file hex><ext>, make_evr.py --from-dir's layout."""
    rng, total, n = random.Random(seed), 0, 0

    def put(t, f, ext, data):
        d = os.path.join(root, f"{t:016x}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, f"{f:016x}{ext}"), "wb") as fh:
            fh.write(data)
        return len(data)

    while total < mb * 1000 * 1000:
        kind, sym = rng.random(), rng.getrandbits(64)
        if kind < 0.6:  # a texture: BC1 or BC3, full mip chain
            w, h = rng.choice([64, 128, 256, 512, 1024]), rng.choice([64, 128, 256, 512, 1024])
            fmt, bb = rng.choice([(71, 8), (77, 16)])
            mips = max(w, h).bit_length()
            data = content(rng, chain(w, h, mips, bb))
            if kind < 0.3:
                total += put(T_DDS, sym, ".dds", dds_header(w, h, mips, fmt, bb) + data)
            else:  # raw BC + metadata: extraction rebuilds the DDS header from it
                raw = len(data)
                meta = struct.pack("<8I", w, h, mips, fmt, raw + 148, raw, 0, 1) + bytes(224)
                total += put(T_RAW, sym, ".bc", data) + put(T_META, sym, ".tmeta", meta)
                n += 1
        else:
            total += put(rng.choice(OPAQUE), sym, ".bin", content(rng, int(1000 * 700 ** rng.random())))
        n += 1
    return n, total


def run(cmd, shell=False, quiet=True):
    subprocess.run(cmd, shell=shell, check=True, stdout=subprocess.DEVNULL if quiet else None,
                   stderr=subprocess.PIPE if quiet else None)


def timed(cmd, shell=False):
    before, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    run(cmd, shell)
    wall, after = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def evict(d):
    """Drops the (flushed) pages of every file under d from the page cache: kept outputs would
    otherwise fill it, and later runs pay for reclaiming memory (seen: 0.5 -> 3.5 s of sys time)."""
    run(["sync"])
    for dp, _, fs in os.walk(d):
        for f in fs:
            fd = os.open(os.path.join(dp, f), os.O_RDONLY)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            os.close(fd)


def tree_stats(d):
    n = b = 0
    for dp, _, fs in os.walk(d):
        for f in fs:
            n += 1
            b += os.path.getsize(os.path.join(dp, f))
    return n, b


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tools")
    ap.add_argument("assetforge")
    ap.add_argument("scratch")
    ap.add_argument("--mb", type=int, default=1024, help="MB of file data in the generated tree")
    ap.add_argument("--synthetic", action="store_true", help="make_evr.py's own small files instead of a tree")
    ap.add_argument("--files", type=int, default=100000)
    ap.add_argument("--frame-size", type=int, default=512000)
    ap.add_argument("--part-size", type=int, default=1 << 28)
    ap.add_argument("--seed", type=int, default=18)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--other", help="a second assetforge binary (another build), timed as 'AF extract (other)'")
    a = ap.parse_args()
    make, reader = os.path.join(a.tools, "make_evr.py"), os.path.join(a.tools, "evr_read.py")
    af, sc = os.path.abspath(a.assetforge), os.path.abspath(a.scratch)
    os.makedirs(sc, exist_ok=True)
    data = os.path.join(sc, "set")
    try:
        t0 = time.perf_counter()
        if a.synthetic:
            gen = [PY, make, "--out", data, "--seed", str(a.seed), "--files", str(a.files), "--frame-size",
                   str(a.frame_size), "--part-size", str(a.part_size)]
            tree_note = ""
        else:
            tree = os.path.join(sc, "tree")
            n, b = write_tree(tree, a.mb, a.seed)
            tree_note = f"tree: {n} files, {b / 1e6:.0f} MB written in {time.perf_counter() - t0:.0f} s; "
            t0 = time.perf_counter()
            gen = [PY, make, "--out", data, "--seed", str(a.seed), "--from-dir", tree, "--frame-size",
                   str(a.frame_size), "--part-size", str(a.part_size)]
        run(gen, quiet=False)
        print(f"{tree_note}make_evr.py: {time.perf_counter() - t0:.0f} s ({' '.join(gen[1:])})")

        name = json.load(open(os.path.join(data, "manifest.json")))["name"]
        listing = json.loads(subprocess.run([af, "evr", "list", data, name, "--json"], check=True,
                                            capture_output=True).stdout)
        frames = listing["frames"]
        used = sorted({f["frame"] for f in listing["files"] if frames[f["frame"]]["length"] > 0})
        file_bytes = sum(f["size"] for f in listing["files"])
        frame_bytes = sum(frames[i]["length"] for i in used)
        parts = [open(os.path.join(data, "packages", f"{name}_{i}"), "rb").read() for i in range(len(listing["parts"]))]
        zdir = os.path.join(sc, "zst")
        os.makedirs(zdir)
        with open(os.path.join(sc, "frames.zst"), "wb") as cat:
            for i in used:
                r = frames[i]
                z = parts[r["package"]][r["offset"]:r["offset"] + r["csize"]]
                cat.write(z)
                with open(os.path.join(zdir, f"{i:07d}.zst"), "wb") as fh:
                    fh.write(z)
        packed = sum(len(p) for p in parts)
        del parts
        print(f"set {name}: {len(listing['files'])} files, {file_bytes / 1e6:.1f} MB of file data; "
              f"{len(used)} data frames, {frame_bytes / 1e6:.1f} MB decompressed, {packed / 1e6:.1f} MB in "
              f"{len(listing['parts'])} part(s)")
        # Warm cache for every contender: the parts and the frame files read once before timing.
        run(f"cat {data}/packages/* {sc}/frames.zst > /dev/null && find {zdir} -type f -exec cat {{}} + > /dev/null",
            shell=True)

        manifest = os.path.join(data, "manifests", name)
        cores = os.cpu_count() or 1

        def zfiles(out):
            return (f"cd {zdir} && ls | xargs -P{cores} -n{max(1, len(used) // (4 * cores))} "
                    f"zstd -d -q --output-dir-flat {out}")
        contenders = [  # label, command for an output folder, through the shell
            ("AF extract", lambda out: [af, "evr", "extract", data, name, "--out", out], False),
            ("AF verify (no writes)", lambda out: [af, "evr", "verify", data, name], False),
            ("AF extract (other)", lambda out: [a.other, "evr", "extract", data, name, "--out", out], False),
            ("zstd -d -> /dev/null", lambda out: f"zstd -d -c {sc}/frames.zst > /dev/null", True),
            (f"zstd -d -> files (-P{cores})", zfiles, True),
            (f"zstd -d -> files+sync (-P{cores})", lambda out: f"{zfiles(out)} && sync -f {out}", True),
            ("evr_read.py extract", lambda out: [PY, reader, "extract", manifest, "--out", out], False),
        ]
        # Every run gets a new folder and nothing is deleted until the end: on this machine's ext4,
        # creating files soon after thousands were deleted spent 40% of an extraction in the
        # kernel's recently_deleted() inode scan (perf), a cost of the bench, not of the tools.
        # The untimed sync before each run keeps one run's writeback out of the next one's time, and
        # evict() keeps the outputs from filling the page cache.
        if not a.other:
            contenders = [c for c in contenders if c[0] != "AF extract (other)"]
        results, trees = {c[0]: [] for c in contenders}, {}
        for rnd in range(a.rounds):
            for k, (label, cmd, shell) in enumerate(contenders):
                out = os.path.join(sc, "out", f"{rnd}-{k}")
                os.makedirs(out)
                run(["sync"])
                results[label].append(timed(cmd(out), shell))
                trees[label] = tree_stats(out)
                evict(out)
        af_tree, py_tree = trees["AF extract"], trees["evr_read.py extract"]
        for label, t in trees.items():
            if label.startswith("zstd -d -> files"):
                assert t == (len(used), frame_bytes), f"{label} wrote {t}, not the {len(used)} frames"
        if af_tree != py_tree:
            sys.exit(f"AF wrote {af_tree} (files, bytes), evr_read.py {py_tree}")
        print(f"outputs: AF and evr_read.py each wrote {af_tree[0]} files, {af_tree[1] / 1e6:.1f} MB")

        best = {k: min(v) for k, v in results.items()}  # the fastest round by wall time
        print(f"\n{a.rounds} round(s), fastest shown; {cores} cores; MB/s = decompressed frame MB / wall\n")
        print(f"| {'run':<30} | wall s | CPU s |   MB/s | every round's wall s")
        print(f"|{'-' * 32}|-------:|------:|-------:|---")
        for k, (w, c) in best.items():
            every = " ".join(f"{x[0]:.2f}" for x in results[k])
            print(f"| {k:<30} | {w:6.2f} | {c:5.2f} | {frame_bytes / 1e6 / w:6.0f} | {every}")
        ex, ver, py = best["AF extract"][0], best["AF verify (no writes)"][0], best["evr_read.py extract"][0]
        znull, zfile = best["zstd -d -> /dev/null"][0], best[f"zstd -d -> files (-P{cores})"][0]
        zsync = best[f"zstd -d -> files+sync (-P{cores})"][0]
        print(f"\nevr_read.py / AF extract (wall): {py / ex:.2f}x (target >= 5)")
        print(f"AF extract / zstd -d -> files+sync (wall): {ex / zsync:.2f}x")
        print(f"AF extract / zstd -d -> files (wall): {ex / zfile:.2f}x")
        print(f"AF verify / zstd -d -> /dev/null (wall): {ver / znull:.2f}x "
              f"(CPU: {best['AF verify (no writes)'][1] / best['zstd -d -> /dev/null'][1]:.2f}x)")
    finally:
        if not a.keep:  # only what this script made, then the folder itself if that left it empty
            for p in ("set", "tree", "zst", "out"):
                shutil.rmtree(os.path.join(sc, p), ignore_errors=True)
            if os.path.exists(os.path.join(sc, "frames.zst")):
                os.remove(os.path.join(sc, "frames.zst"))
            if not os.listdir(sc):
                os.rmdir(sc)


if __name__ == "__main__":
    main()
