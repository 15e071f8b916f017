#!/usr/bin/env python3
"""Property test of `assetforge pages repack`: files from the independent
generator make_pages.py across its parameter space (levels, seed, occupancy,
slack, scale, order, compression), each repacked with a random replacement
directory (nothing; replaced pages smaller and larger than their
reservation; removed subtrees; added pages; explicit compressions), every
result read back by the independent reader pages_read.py and compared with
the model of what the edits must give. A failing case prints its parameters
and keeps its files.

usage: repack_property.py ASSETFORGE [--cases N] [--seed S] [--keep DIR]
"""
import os, struct, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "..", "tests", "tools"))
from pages_read import read_pages  # noqa: E402
from property_driver import drive  # noqa: E402

PREFIX = bytes.fromhex("7100a3c60a3c60a3c600ff00000100")


def payload(rnd, small):
    """A payload a page may hold: a sub-header, four blocks, maybe a cover mask."""
    flags = rnd.choice([5, 6, 13, 14])
    top = 200 if small else 9000
    sizes = [rnd.randint(len(PREFIX), max(len(PREFIX), top)) for _ in range(3)] + [rnd.randint(0, top // 10), 0]
    body = bytes([30, 13, 25, 40, flags, 0]) + struct.pack(">5H", *sizes)
    for s in sizes[:4]:
        body += (PREFIX + rnd.randbytes(s))[:s]
    if flags & 8:
        body += b"\xff" * 2048
    if len(body) % 2:
        body += b"\x00"
    return body


def subtree(page, pages):
    l, x, y = page
    return {p for p in pages if p[0] <= l and (p[1] >> (l - p[0]), p[2] >> (l - p[0])) == (x, y)}


def one_case(af, rnd, work):
    params = dict(levels=rnd.randint(2, 7), seed=rnd.randint(0, 10**6),
                  occupancy=rnd.choice([0.001, 0.01, 0.1, 0.3, 0.6, 1.0]),
                  slack_every=rnd.choice([0, 0, 1, 2, 5]), scale=rnd.choice([1, 2, 4, 8]),
                  order=rnd.choice(["bfs", "dfs"]), compression=rnd.choice([5, 6]))
    src = os.path.join(work, "in.pages")
    cmd = [sys.executable, os.path.join(HERE, "..", "..", "..", "..", "tests", "tools", "make_pages.py"), src, "--levels", str(params["levels"]),
           "--seed", str(params["seed"]), "--occupancy", str(params["occupancy"]),
           "--slack-every", str(params["slack_every"]), "--scale", str(params["scale"]),
           "--order", params["order"], "--compression", str(params["compression"])]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    before, _ = read_pages(open(src, "rb").read())
    model = dict(before)
    rep = os.path.join(work, "rep")
    os.makedirs(rep)
    kind = rnd.choice(["none", "replace", "remove", "add", "mixed"])
    top = max(before)
    edits = []
    # The directory's order: removals first, then replacements, then additions (parents first); the
    # edits are drawn in that order so that each one applies to the file the earlier ones leave.
    if kind in ("remove", "mixed"):
        for _ in range(rnd.randint(1, 3)):
            cands = sorted(p for p in model if p != top)
            if not cands:
                break
            p = rnd.choice(cands)
            open(os.path.join(rep, "%d_%d_%d.remove" % p), "wb").close()
            for q in subtree(p, model):
                model.pop(q)
            edits.append("remove %s" % (p,))
    if kind in ("replace", "mixed"):
        keys = sorted(model)
        for p in rnd.sample(keys, rnd.randint(1, min(len(keys), 6))):
            body = payload(rnd, small=rnd.random() < 0.5)
            comp = rnd.choice([None, 5, 6])
            name = "%d_%d_%d%s.bin" % (p[0], p[1], p[2], "" if comp is None else ".c%d" % comp)
            open(os.path.join(rep, name), "wb").write(body)
            model[p] = (model[p][0] if comp is None else comp, body)
            edits.append(name)
    if kind in ("add", "mixed"):
        removed = {tuple(int(v) for v in n[:-len(".remove")].split("_")) for n in os.listdir(rep) if n.endswith(".remove")}
        for _ in range(rnd.randint(1, 4)):
            parents = sorted(p for p in model if p[0] > 0)
            if not parents:
                break
            l, x, y = rnd.choice(parents)
            c = (l - 1, 2 * x + rnd.randint(0, 1), 2 * y + rnd.randint(0, 1))
            if c in model or c in removed:
                continue
            body = payload(rnd, small=True)
            open(os.path.join(rep, "%d_%d_%d.bin" % c), "wb").write(body)
            model[c] = (DEFAULT_COMP, body)
            edits.append("add %s" % (c,))
    out = os.path.join(work, "out.pages")
    args = [af, "pages", "repack", src, "--out", out, "--reserve", str(rnd.choice([0, 0, 512, 4096]))]
    if kind != "none":
        args += ["--replace", rep]
    r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    if r.returncode != 0:
        return params, kind, edits, "repack failed (%d): %s" % (r.returncode, r.stdout.strip())
    try:
        after, _ = read_pages(open(out, "rb").read())
    except ValueError as e:
        return params, kind, edits, "the repacked file breaks a rule: %s" % e
    if set(after) != set(model):
        return params, kind, edits, "pages differ: missing %s, extra %s" % (
            sorted(set(model) - set(after))[:5], sorted(set(after) - set(model))[:5])
    for p in model:
        if after[p] != model[p]:
            return params, kind, edits, "page %s: compression %d/%d or payload differs" % (
                p, after[p][0], model[p][0])
    if kind == "none" and open(out, "rb").read() != open(src, "rb").read():
        return params, kind, edits, "a repack without edits is not byte-identical"
    return None


DEFAULT_COMP = 5  # repack's --compression default, for added pages


def main():
    return drive(one_case, "pages-prop-",
                 # the generator or the reader on the input: a broken case, not a pass
                 lambda i, e: (None, None, None, "case %d crashed: %r" % (i, e)),
                 lambda bad: "%s\n  params %s\n  edits (%s) %s" % (bad[3], bad[0], bad[1], bad[2]))


if __name__ == "__main__":
    sys.exit(main())
