"""Checks assetforge against a whole real texture tree it did not make.

usage: real_tree_check.py DIR --exe ASSETFORGE [--json OUT] [--no-reexport] [--max-files N] [--expect-agree]

For every DDS under DIR:
  decode   assetforge's top level (convert F x.png) against Pillow's decode of F:
           agree when no channel differs by more than 1 level (BC interpolation rounding);
  normal   `info --normal-map`: what the name token and the texel rule say, each;
           disagreements are listed (neither is ground truth: a reviewer reads them);
  match    the decoded PNG re-exported with `convert x.png y.dds --like F`: same
           format, size and mip count as F, and mip 3's per-channel means within
           0.02 of F's own mip 3 (a normal map filtered as sRGB colour drifts ~0.05).
For every PNG: only the normal-map check.
Prints a summary; exits 1 when a decode or match check fails (not for
name/texel disagreements, which are findings, not failures).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def info(exe, path, normal=False):
    r = run([exe, "info", "--json"] + (["--normal-map"] if normal else []) + [path])
    try:
        return json.loads(r.stdout)[0]
    except (ValueError, IndexError):
        return {"error": (r.stdout + r.stderr).strip()}


def layout(meta):
    """What `match` must keep: format, size, mip count, and the DDS header kind."""
    fmt = meta.get("format")
    mips = meta.get("mip_count", meta.get("mips"))
    header = meta.get("header") or {}
    pf = header.get("pixel_format") or {}
    return {"format": fmt.get("name") if isinstance(fmt, dict) else fmt,
            "width": meta.get("width"), "height": meta.get("height"),
            "mips": len(mips) if isinstance(mips, list) else mips,
            "header": "dx10" if header.get("dx10") else (pf.get("fourcc") or "masks") if header else None}


def rgba(path):
    im = Image.open(path)
    im.load()
    return im.mode, np.asarray(im.convert("RGBA")).astype(int)


def means(path):
    return np.asarray(Image.open(path).convert("RGBA")).astype(float).reshape(-1, 4).mean(0) / 255.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--exe", required=True)
    ap.add_argument("--json")
    ap.add_argument("--max-files", type=int, default=0)
    ap.add_argument("--no-reexport", action="store_true")
    ap.add_argument("--expect-agree", action="store_true",
                    help="fail when name and texels disagree (for a tree whose names are known to be right)")
    a = ap.parse_args()
    files = []
    for root, _, names in os.walk(a.dir):
        for n in names:
            if n.lower().endswith((".dds", ".png")):
                files.append(os.path.join(root, n))
    files.sort()
    if a.max_files:
        files = files[: a.max_files]
    res = {"dds": 0, "png": 0, "decode_agree": 0, "decode_differ": [], "pillow_cannot": [], "read_failed": [],
           "normal_both": [], "name_says_not": [], "normal_name_only": [], "normal_texels_only": [], "match_ok": 0, "match_bad": [], "colour_mip3_drift": [],
           "max_mip3_drift": 0.0}
    tmp = tempfile.mkdtemp(prefix="af-real-tree-")
    for i, f in enumerate(files):
        rel = os.path.relpath(f, a.dir)
        is_dds = f.lower().endswith(".dds")
        res["dds" if is_dds else "png"] += 1
        meta = info(a.exe, f, normal=True)
        if "error" in meta:
            res["read_failed"].append({"file": rel, "error": meta["error"]})
            continue
        nm = meta.get("normal_map", {})
        by_name, by_texels = bool(nm.get("name_token")), bool(nm.get("texels"))
        entry = {"file": rel, "token": nm.get("name_token", ""), "texels": nm.get("texels_detail", "")}
        if by_name and by_texels:
            res["normal_both"].append(rel)
        elif by_name:
            res["normal_name_only"].append(entry)
        elif by_texels and nm.get("verdict", "").startswith("no: file name token"):
            res["name_says_not"].append(entry)  # e.g. a DuDv map: centred vectors, not normals
        elif by_texels:
            res["normal_texels_only"].append(entry)
        if not is_dds:
            continue
        png = os.path.join(tmp, "top.png")
        r = run([a.exe, "convert", "-y", f, png])
        if r.returncode != 0:
            res["read_failed"].append({"file": rel, "error": (r.stdout + r.stderr).strip()})
            continue
        try:
            mode, ref = rgba(f)
            _, mine = rgba(png)
            ch = 3 if mode == "RGB" else 4
            if ref.shape != mine.shape:
                res["decode_differ"].append({"file": rel, "why": "size %s vs %s" % (ref.shape, mine.shape)})
            else:
                d = np.abs(ref[:, :, :ch] - mine[:, :, :ch])
                if d.max() <= 1:
                    res["decode_agree"] += 1
                else:
                    res["decode_differ"].append({"file": rel, "max": int(d.max()), "mean": float(d.mean())})
        except Exception as e:  # Pillow does not read every DDS format
            res["pillow_cannot"].append({"file": rel, "why": str(e)[:120]})
        if a.no_reexport:
            continue
        out = os.path.join(tmp, "re.dds")
        r = run([a.exe, "convert", "-y", png, out, "--like", f])
        if r.returncode != 0:
            res["match_bad"].append({"file": rel, "why": (r.stdout + r.stderr).strip()[:300]})
            continue
        want, got = layout(meta), layout(info(a.exe, out))
        bad = [k for k in want if want[k] != got[k]]
        drift = 0.0
        if not bad and (want["mips"] or 1) > 3:
            m_orig, m_new = os.path.join(tmp, "o3.png"), os.path.join(tmp, "n3.png")
            if run([a.exe, "convert", "-y", f, m_orig, "--mip", "3"]).returncode == 0 and \
               run([a.exe, "convert", "-y", out, m_new, "--mip", "3"]).returncode == 0:
                drift = float(np.abs(means(m_orig) - means(m_new))[:3].max())
                # Vectors must not drift (filtered as sRGB colour they move ~0.05);
                # colour may: the original's tool may have filtered in gamma space.
                if nm.get("verdict", "").startswith("yes"):
                    res["max_mip3_drift"] = max(res["max_mip3_drift"], drift)
                    if drift > 0.02:
                        bad.append("normal map: mip 3 mean drift %.3f" % drift)
                else:
                    res["colour_mip3_drift"].append((drift, rel))
        if bad:
            res["match_bad"].append({"file": rel, "why": ", ".join(str(b) for b in bad), "original": want,
                                     "re-export": got})
        else:
            res["match_ok"] += 1
        if (i + 1) % 25 == 0:
            print("... %d/%d" % (i + 1, len(files)), file=sys.stderr)
    print("files: %d DDS, %d PNG" % (res["dds"], res["png"]))
    print("read failures: %d" % len(res["read_failed"]))
    print("decode vs Pillow: %d agree, %d differ, %d Pillow cannot read" %
          (res["decode_agree"], len(res["decode_differ"]), len(res["pillow_cannot"])))
    print("normal maps: %d by name and texels, %d by name only, %d by texels only" %
          (len(res["normal_both"]), len(res["normal_name_only"]), len(res["normal_texels_only"])))
    for e in res["normal_name_only"]:
        print("  name only:   %s (token '%s'; texels: %s)" % (e["file"], e["token"], e["texels"]))
    for e in res["normal_texels_only"]:
        print("  texels only: %s (%s)" % (e["file"], e["texels"]))
    for e in res["name_says_not"]:
        print("  texels yes, name says not: %s (%s)" % (e["file"], e["texels"]))
    if not a.no_reexport:
        print("match re-export: %d keep layout, %d do not; normal maps' largest mip-3 mean drift %.4f" %
              (res["match_ok"], len(res["match_bad"]), res["max_mip3_drift"]))
        top = sorted(res["colour_mip3_drift"], reverse=True)[:5]
        if top:
            print("  colour textures' largest mip-3 mean differences (filter choice, not a failure): " +
                  ", ".join("%s %.3f" % (r, d) for d, r in top))
    for e in res["decode_differ"] + res["match_bad"] + res["read_failed"]:
        print("  problem: %s" % json.dumps(e))
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(res, fh, indent=1)
    failed = res["decode_differ"] or res["match_bad"] or res["read_failed"]
    if a.expect_agree and (res["normal_name_only"] or res["normal_texels_only"]):
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
