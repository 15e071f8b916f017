#!/usr/bin/env python3
"""Property test of the Echo VR write side: many generated sets, random replacements.

Each case generates a set with the independent generator (tests/tools/make_evr.py) at a random point of its
parameter space (seed, --files 0..100, --frame-size 1..1e6, --part-size, --quirks), extracts it with
`assetforge evr extract` (checked against the generator's own listing), picks a replacement subset
(none, one, some, all; each file unchanged or edited; every file kind), runs `assetforge evr replace`,
and checks the result with the independent reader (tests/tools/evr_read.py verify --against the original,
--strict when the original has no quirks), with `assetforge evr verify --against --strict`, and by
re-extracting it with the independent reader: every file must be the original's or its edit, and the
reader's list of changed files must be exactly the edited ones.

  evr_property.py --assetforge BIN [--cases N] [--master-seed S] [--time-limit SEC]
                  [--regressions FILE] [--record FILE] [--keep DIR]

Cases listed in --regressions (one `key=value ...` line each, as printed for a failure) run first.
A failing case is printed as such a line (and appended to --record). Exit 1 when any case failed.
"""
import argparse, hashlib, json, os, random, shutil, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
PY = sys.executable
TOOLS = os.path.join(HERE, "..", "..", "..", "tests", "tools")  # the repository's independent tools
MAKE = os.path.join(TOOLS, "make_evr.py")
READ = os.path.join(TOOLS, "evr_read.py")


def sha(b):
    return hashlib.sha256(b).hexdigest()


def draw_case(rng):
    """A point of the generator's parameter space, small sets more often (they are the fast ones)."""
    files = rng.choice([0, 1, 2, rng.randint(3, 24), rng.randint(3, 24), rng.randint(3, 24), rng.randint(25, 100)])
    frame = rng.choice([1, rng.randint(2, 64), int(10 ** rng.uniform(2, 6)), 8192, 512000, 1000000])
    part = rng.choice([2 ** 31 - 1, 2 ** 31 - 1, int(10 ** rng.uniform(2, 5))])
    return dict(seed=rng.randint(0, 2 ** 31), files=files, frame=frame, part=part,
                quirks=int(rng.random() < 0.35), pick=rng.randint(0, 2 ** 31))


def line_of(c):
    return " ".join(f"{k}={c[k]}" for k in ("seed", "files", "frame", "part", "quirks", "pick"))


def parse_line(s):
    c = dict(kv.split("=", 1) for kv in s.split())
    return {k: int(v) for k, v in c.items()}


def run(cmd, what):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        errors = [l for l in p.stderr.splitlines() if l.startswith("error:") or l.startswith("Traceback")]
        raise AssertionError(f"{what} failed (exit {p.returncode}): " + ("; ".join(errors) or p.stderr.strip())[-600:])
    return p


def tree(root):
    out = {}
    for d, _, fs in os.walk(root):
        for f in fs:
            p = os.path.join(d, f)
            out[os.path.relpath(p, root)] = open(p, "rb").read()
    return out


def edit(b, kind):
    """A legal edit that changes the stored bytes: data bytes flipped, or bytes appended."""
    b = bytearray(b)
    if kind == "tmeta":
        b[0x80] ^= 0x21                          # reserved bytes: the texture it describes is unchanged
    elif kind in ("opaque", "rawbc-bc") and (not b or len(b) % 2):
        b += b"\x07\x06\x05"
    elif b:
        b[-1] ^= 0x5A                            # DDS and raw BC: a byte of the last mip's last block
    else:
        b += b"\x01"
    return bytes(b)


def check_case(c, af, work):
    gen = os.path.join(work, "orig")
    args = [PY, MAKE, "--out", gen, "--seed", str(c["seed"]), "--files", str(c["files"]),
            "--frame-size", str(c["frame"]), "--part-size", str(c["part"])] + (["--quirks"] if c["quirks"] else [])
    run(args, "make_evr.py")
    j = json.load(open(os.path.join(gen, "manifest.json")))
    name = j["name"]
    man = os.path.join(gen, "manifests", name)
    # Extraction agrees with the generator.
    x = os.path.join(work, "x")
    run([af, "evr", "extract", gen, name, "--out", x], "evr extract")
    got = tree(x)
    want = {f["extract_path"]: f["extract_sha256"] for f in j["files"]}
    if {k: sha(v) for k, v in got.items()} != want:
        raise AssertionError("extraction differs from the generator's listing")
    # The replacement subset.
    rng = random.Random(c["pick"])
    files = j["files"]
    mode = rng.choice(["none", "one", "one", "some", "some", "some", "all", "all"]) if files else "none"
    chosen = {"none": [], "one": rng.sample(files, 1) if files else [],
              "some": [f for f in files if rng.random() < 0.3], "all": list(files)}[mode]
    frm = os.path.join(work, "from")
    os.makedirs(frm)
    expect, edited = dict(got), set()
    for f in chosen:
        rel = f["extract_path"]
        b = got[rel]
        if rng.random() < 0.5:
            b = edit(b, f["kind"])
            edited.add(f"{f['type']}/{f['file']}")
            expect[rel] = b
        os.makedirs(os.path.dirname(os.path.join(frm, rel)), exist_ok=True)
        open(os.path.join(frm, rel), "wb").write(b)
    out = os.path.join(work, "out")
    run([af, "evr", "replace", gen, name, "--from", frm, "--out", out], f"evr replace ({mode}, {len(chosen)} files)")
    new = os.path.join(out, "manifests", name)
    # The independent reader: every check, the repack rules, the changed files.
    p = run([PY, READ, "verify", new, "--against", man] + ([] if c["quirks"] else ["--strict"]),
            "evr_read.py verify --against")
    line = [l for l in p.stdout.splitlines() if l.startswith("changed files: ")][0][len("changed files: "):]
    said = set() if line == "none" else set(line.split(", "))
    if said != edited:
        raise AssertionError(f"changed files {sorted(said)}, edited {sorted(edited)}")
    run([af, "evr", "verify", out, name, "--strict", "--against", man], "evr verify --strict --against")
    # Re-extraction by the independent reader: the original's files, edits in place.
    back = os.path.join(work, "back")
    run([PY, READ, "extract", new, "--out", back], "evr_read.py extract")
    if tree(back) != expect:
        bad = sorted(k for k in set(expect) | set(tree(back)) if tree(back).get(k) != expect.get(k))
        raise AssertionError(f"re-extraction differs at {bad[:5]}")
    return mode


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--assetforge", required=True)
    ap.add_argument("--cases", type=int, default=30)
    ap.add_argument("--master-seed", type=int, default=None, help="default: random (printed)")
    ap.add_argument("--time-limit", type=float, default=0, help="stop drawing new cases after this many seconds")
    ap.add_argument("--regressions", help="file of case lines replayed first")
    ap.add_argument("--record", help="append failing case lines here")
    ap.add_argument("--keep", help="keep each failing case's files under this folder")
    a = ap.parse_args()
    af = os.path.abspath(a.assetforge)
    master = a.master_seed if a.master_seed is not None else random.SystemRandom().randint(0, 2 ** 31)
    cases = []
    if a.regressions:
        for s in open(a.regressions):
            s = s.split("#", 1)[0].strip()
            if s:
                cases.append(("regression", parse_line(s)))
    rng = random.Random(master)
    cases += [("drawn", draw_case(rng)) for _ in range(a.cases)]
    start, ran, failed, modes = time.time(), 0, [], {}
    for origin, c in cases:
        if origin == "drawn" and a.time_limit and time.time() - start > a.time_limit:
            break
        work = tempfile.mkdtemp(prefix="evr-prop-")
        try:
            m = check_case(c, af, work)
            modes[m] = modes.get(m, 0) + 1
        except (AssertionError, subprocess.SubprocessError, OSError, KeyError, IndexError) as e:
            failed.append(c)
            print(f"FAIL {line_of(c)}  # {e}", file=sys.stderr)
            if a.record and origin == "drawn":  # a replayed case is on the list already
                with open(a.record, "a") as fh:
                    fh.write(f"{line_of(c)}  # {str(e).splitlines()[0][:200]}\n")
            if a.keep:
                shutil.copytree(work, os.path.join(a.keep, line_of(c).replace(" ", "_")), dirs_exist_ok=True)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        ran += 1
    print(f"evr property: master seed {master}: {ran} case(s) in {time.time() - start:.1f} s, "
          f"{len(failed)} failed; subsets: " + ", ".join(f"{n} {m}" for m, n in sorted(modes.items())))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
