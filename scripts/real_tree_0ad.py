#!/usr/bin/python3
"""Opt-in: the shipped configs over a real game tree the project does not own, timed.

  scripts/real_tree_0ad.py [--tree DIR] [--work DIR] [--assetforge build/bin/assetforge] [--edits 5]

Without --tree, the DDS textures of 0 A.D. (Debian's 0ad-data, a 1.4 GB download: 8,130 DDS files, 2.1 GB) are
fetched once with `apt-get download` (nothing installed) into $AF_REAL_TREE_CACHE (default
~/.cache/assetforge/0ad) and unpacked from the game's public.zip. CI does not run this.

What a modder does, in order, each with the default memory budget:
  1. export     configs/dds-tree-to-png.yaml: every texture to PNG (EXR for HDR) for editing
  2. game       configs/png-to-game-dds.yaml over the untouched export: the game-ready tree (every DDS the
                original's bytes) and the mod's zip (no member but its manifest)
  3. rebuild    the same after --edits PNGs are edited: those DDS re-encoded, the zip holding exactly them
  4. report     the rebuild's HTML report measured by Chromium in a 1366 px window (skipped without chromium)
  5. watch      `assetforge watch` of step 3's pipeline: a save's time to its DDS and to the updated zip
Each step's wall time and peak memory (the process and its children, by wait4) are printed, and every check
that fails ends the run with a non-zero status.
"""
import argparse
import glob
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from watch_latency import Output, stamp  # noqa: E402  the watch's output drained, a file's identity


def fetch_tree(cache):
    tree = os.path.join(cache, "tree")
    if os.path.isdir(tree):
        return tree
    os.makedirs(cache, exist_ok=True)
    if not glob.glob(os.path.join(cache, "0ad-data_*.deb")):
        subprocess.run(["apt-get", "download", "0ad-data"], cwd=cache, check=True)
    deb = sorted(glob.glob(os.path.join(cache, "0ad-data_*.deb")))[-1]
    part = tree + ".part"
    shutil.rmtree(part, ignore_errors=True)
    os.makedirs(part)
    member = "./usr/share/games/0ad/mods/public/public.zip"
    tar = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", deb], stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", part, member], stdin=tar.stdout, check=True)
    tar.wait()
    public = os.path.join(part, member)
    with zipfile.ZipFile(public) as z:
        for name in z.namelist():
            if name.lower().endswith(".dds"):
                z.extract(name, part)
    shutil.rmtree(os.path.join(part, "usr"))
    os.rename(part, tree)
    return tree


def run(label, args, figures, cwd=ROOT, ok=(0,)):
    """Runs the tool, times it and takes its peak memory (wait4 of the process: its largest child included)."""
    t0 = time.monotonic()
    proc = subprocess.Popen(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = proc.stdout.read().decode("utf-8", "replace")
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    secs = time.monotonic() - t0
    figures.append((label, secs, usage.ru_maxrss / 1024))
    print("%-10s %7.1f s  peak %6.0f MiB  exit %d" % (label, secs, usage.ru_maxrss / 1024, proc.returncode))
    if proc.returncode not in ok:
        sys.exit("%s failed (exit %d):\n%s" % (label, proc.returncode, out[-6000:]))
    return out


def check(cond, what):
    if not cond:
        sys.exit("check failed: " + what)
    print("  ok: " + what)


def edit_png(path, seed):
    """An edit a modder might make: the picture's colours turned (alpha kept), written as editors save."""
    from PIL import Image
    im = Image.open(path)
    im.load()
    bands = list(im.split())
    for i in range(min(3, len(bands))):
        bands[i] = bands[i].point(lambda v, s=seed + i: (v * 3 + 37 * s) & 255)
    tmp = path + ".tmp~.png"
    Image.merge(im.mode, bands).save(tmp)
    saved = time.monotonic()
    os.replace(tmp, path)
    return saved


def zip_members(path):
    with zipfile.ZipFile(path) as z:
        assert z.testzip() is None
        return sorted(z.namelist())


def report_width(html, work):
    browser = shutil.which("chromium")
    if not browser:
        print("report: chromium not installed, width not measured (apt-get install chromium)")
        return None
    probe = os.path.join(work, "probe.html")
    js = ("document.body.insertAdjacentHTML('beforeend', '<pre id=\"probe\">' + JSON.stringify({window: innerWidth, "
          "page: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight, "
          "rows: document.querySelectorAll('#acts tbody tr').length}) + '</pre>');")
    with open(html, encoding="utf-8") as f:
        text = f.read()
    with open(probe, "w", encoding="utf-8") as f:
        f.write(text.replace("</body>", "<script>" + js + "</script></body>"))
    dom = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                          "--user-data-dir=" + os.path.join(work, "chromium"), "--window-size=1366,900",
                          "--virtual-time-budget=5000", "--dump-dom", "file://" + probe],
                         capture_output=True, text=True, timeout=120).stdout
    found = re.findall(r'<pre id="probe">(\{.*?\})</pre>', dom)  # the last: the first is the script's own text
    m = found[-1] if found else None
    if not m:
        print("report: the probe did not run in chromium")
        return None
    return json.loads(m.replace("&quot;", '"'))


def watch_saves(exe, game_args, edits, mod, zip_path, saves):
    proc = subprocess.Popen([exe, "watch"] + game_args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = Output(proc)
    out.wait_for(r"Ctrl-C stops", 0, 600)
    to_dds, to_zip = [], []
    for k in range(saves):
        time.sleep(1.0)
        png, dds = edits[k % len(edits)]
        before_dds, before_zip = stamp(dds), stamp(zip_path)
        edit_png_at = edit_png(png, 100 + k)  # the moment the editor's save lands
        t_dds = t_zip = None
        while (t_dds is None or t_zip is None) and time.monotonic() - edit_png_at < 120:
            now = time.monotonic()
            if t_dds is None and stamp(dds) != before_dds:
                t_dds = now - edit_png_at
            if t_zip is None and stamp(zip_path) != before_zip:
                t_zip = now - edit_png_at
            time.sleep(0.002)
        if t_dds is None or t_zip is None:
            proc.send_signal(signal.SIGINT)
            sys.exit("watch: a save did not reach its DDS and the zip within 120 s:\n" + out.text[-4000:])
        to_dds.append(t_dds)
        to_zip.append(t_zip)
        from PIL import Image
        with Image.open(png) as im:
            size = "%dx%d" % im.size
        print("  save %d: %s (%s): DDS in %.0f ms, zip in %.0f ms" % (k + 1, os.path.relpath(png, mod), size,
                                                                     t_dds * 1000, t_zip * 1000))
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)
    return statistics.median(to_dds), statistics.median(to_zip)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", help="a folder of DDS textures (default: 0 A.D.'s, fetched once)")
    ap.add_argument("--work", help="where the export, the game tree and the mod go (default: a temporary folder)")
    ap.add_argument("--assetforge", default=os.path.join(ROOT, "build", "bin", "assetforge"))
    ap.add_argument("--edits", type=int, default=5)
    ap.add_argument("--saves", type=int, default=3)
    ap.add_argument("--keep", action="store_true", help="leave the work folder")
    ap.add_argument("--steps", default="export,game,rebuild,report,watch",
                    help="which steps to run (the later ones need the earlier ones' --work folder)")
    args = ap.parse_args()
    exe = os.path.abspath(args.assetforge)
    cache = os.environ.get("AF_REAL_TREE_CACHE", os.path.expanduser("~/.cache/assetforge/0ad"))
    tree = os.path.abspath(args.tree or fetch_tree(cache))
    work = os.path.abspath(args.work or tempfile.mkdtemp(prefix="af-real-tree-"))
    edit, mod = os.path.join(work, "edit"), os.path.join(work, "mod")
    originals = sorted(glob.glob(os.path.join(tree, "**", "*.dds"), recursive=True))
    print("tree: %d DDS, %.1f MiB, in %s" % (len(originals), sum(map(os.path.getsize, originals)) / 2**20, tree))
    figures = []
    try:
        steps = set(args.steps.split(","))
        if "export" in steps:
            run("export", [exe, "build", "configs/dds-tree-to-png.yaml", "-D", "src=" + tree, "-D", "out=" + edit],
                figures)
        exported = sorted(glob.glob(os.path.join(edit, "**", "*.png"), recursive=True))
        exrs = glob.glob(os.path.join(edit, "**", "*.exr"), recursive=True)
        print("  %d PNG and %d EXR" % (len(exported), len(exrs)))
        game = ["configs/png-to-game-dds.yaml", "-D", "src=" + edit, "-D", "original=" + tree, "-D", "out=" + mod]
        zip_path = os.path.join(mod, "mod.zip")
        if "game" in steps:
            run("game", [exe, "build"] + game, figures)
            check(zip_members(zip_path) == ["manifest.json"], "an unedited export gives a zip of no texture")
            sample = originals[:: max(1, len(originals) // 400)]
            same = sum(open(o, "rb").read() == open(os.path.join(mod, os.path.relpath(o, tree)), "rb").read()
                       for o in sample)
            check(same == len(sample), "every sampled DDS (%d) is the original's bytes" % len(sample))
        # Middle-sized PNGs that are not normal maps: the ones a modder re-colours.
        # (By the originals' sizes: a later run with --steps picks the same files.)
        pick = sorted((p for p in exported if "/normal" not in p and "_norm" not in p),
                      key=lambda p: (os.path.getsize(os.path.join(tree, os.path.relpath(p, edit))[:-4] + ".dds"), p))
        pick = pick[len(pick) // 2:][: args.edits]
        edits = [(p, os.path.join(mod, os.path.relpath(p, edit))[:-4] + ".dds") for p in pick]
        report = os.path.join(work, "rebuild.html")
        if "rebuild" in steps:
            for i, (p, _) in enumerate(edits):
                edit_png(p, i)
            run("rebuild", [exe, "build"] + game + ["--report", report], figures)
            want = sorted(os.path.relpath(d, mod) for _, d in edits) + ["manifest.json"]
            if "game" in steps:
                check(zip_members(zip_path) == sorted(want), "the zip holds exactly the %d edited textures" % len(edits))
            else:  # edits of earlier runs are in it too
                check(set(want) <= set(zip_members(zip_path)), "the zip holds the %d edited textures" % len(edits))
            run("no-op", [exe, "build"] + game, figures)
        if "report" in steps:
            probe = report_width(report, work)
            if probe:
                print("report at 1366 px: page %(page)d px wide in a %(window)d px window, %(height)d px tall, "
                      "%(rows)d rows" % probe)
                check(probe["page"] <= probe["window"], "the report fits the window's width")
        dds_ms = zip_ms = None
        if "watch" in steps:
            dds_ms, zip_ms = watch_saves(exe, game, edits, mod, zip_path, args.saves)
            print("watch: median save -> DDS %.0f ms, -> zip %.0f ms" % (dds_ms * 1000, zip_ms * 1000))
        print("\n| step | wall | peak memory |\n|---|---|---|")
        for label, secs, mib in figures:
            print("| %s | %.1f s | %.0f MiB |" % (label, secs, mib))
        if dds_ms is not None:
            print("| watch save | %.0f ms to the DDS, %.0f ms to the zip | |" % (dds_ms * 1000, zip_ms * 1000))
    finally:
        if args.keep or args.work:
            print("work folder: " + work)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
