#!/usr/bin/env bash
# `--report build.html` as a browser shows it: headless Chromium renders the
# report of a small build (one broken input, textures with alpha and a normal
# map) and the test reads the rendered DOM, with JavaScript and without; the
# screenshot is of the page without JavaScript.
#   html_report_browser_test.sh ASSETFORGE SOURCE_DIR [SCREENSHOT.png]
# Chromium comes from Debian's `chromium` package: installed here when missing
# if we are root and apt works; otherwise the test is skipped (exit 77).
set -euo pipefail
af=$1
src=$2
shot=${3:-}
py=/usr/bin/python3
images=$src/plugins/bc/tests/data

skip() {
    echo "SKIPPED: $*" >&2
    exit 77
}
fail() {
    echo "FAILED: $*" >&2
    exit 1
}

browser=$(command -v chromium || true)
if [ -z "$browser" ]; then
    [ "$(id -u)" -eq 0 ] || skip "chromium is not installed and we are not root to install it (apt-get install -y chromium)"
    command -v apt-get > /dev/null || skip "chromium is not installed and there is no apt-get"
    echo "installing Debian's chromium (once)…" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium > /dev/null 2>&1 ||
        skip "chromium is not installed and 'apt-get install -y chromium' failed (no network or no package lists?)"
    browser=$(command -v chromium) || skip "chromium did not install"
fi

t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
export HOME=$t/home # Chromium writes its profile and crash database under HOME
mkdir -p "$HOME"

# A throwaway profile, no GPU, no first-run work, bounded in time.
chrome() {
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --no-default-browser-check \
        --disable-extensions --user-data-dir="$t/profile" --hide-scrollbars "$@" 2> "$t/chromium.log"
}

# The same small tree twice: one build writes the JSON record (what the page
# must show), the other the HTML page.
for d in json html; do
    mkdir -p "$t/$d/src"
    cp "$images/a_palm_128.png" "$t/$d/src/palm.png"       # alpha
    cp "$images/d_rock_128.png" "$t/$d/src/rock.png"       # opaque colour
    cp "$images/n_rock_128.png" "$t/$d/src/rock_normal.png" # a normal map by its name
    cp "$images/g_caustics_128.png" "$t/$d/src/caustics.png"
    printf '\x89PNG\r\n\x1a\nnot really' > "$t/$d/src/broken.png"
    cat > "$t/$d/pipeline.yaml" << 'YAML'
assetforge: 1
jobs:
  textures:
    inputs: "src/*.png"
    steps: [ mips, { encode: { format: auto, quality: fast } } ]
    output: "out/{stem}.dds"
YAML
done
(cd "$t/json" && "$af" build -q --report build.json) && fail "the build with a broken input succeeded"
(cd "$t/html" && "$af" build -q --report build.html) && fail "the build with a broken input succeeded"
[ -s "$t/html/build.html" ] || fail "no build.html"
[ -d "$t/html/build.html.d" ] || fail "no build.html.d/ beside the report"

# Without JavaScript: --blink-settings=scriptEnabled=false makes Chromium
# 156's headless mode print nothing at all (--dump-dom, --screenshot and
# --print-to-pdf evaluate script themselves), so the page's scripts are
# switched off the way a page can be told to: a Content-Security-Policy of
# script-src 'none', in a copy. A page that rewrites itself shows it works.
no_script() { # IN OUT
    sed 's|<head>|<head><meta http-equiv="Content-Security-Policy" content="script-src '"'none'"'">|' "$1" > "$2"
}
printf '<!DOCTYPE html><html><head></head><body><p id="p">script did not run</p><script>document.getElementById("p").textContent="script ran"</script></body></html>\n' > "$t/probe.html"
no_script "$t/probe.html" "$t/probe-nojs.html"
chrome --dump-dom "file://$t/probe.html" | grep -q "script ran" || fail "the probe's script did not run: $(cat "$t/chromium.log")"
chrome --dump-dom "file://$t/probe-nojs.html" | grep -q "script did not run" || fail "the CSP left JavaScript on"

start=$(date +%s.%N)
chrome --dump-dom "file://$t/html/build.html" > "$t/dom-js.html"
no_script "$t/html/build.html" "$t/html/nojs.html"
grep -q "script-src 'none'" "$t/html/nojs.html" || fail "no <head> in build.html to put the policy in"
chrome --dump-dom "file://$t/html/nojs.html" > "$t/dom-nojs.html"
# The page's own sorting, run in the browser: a click on the "input" header.
sed 's|</body>|<script>srt(1)</script></body>|' "$t/html/build.html" > "$t/html/sorted.html"
chrome --dump-dom "file://$t/html/sorted.html" > "$t/dom-sorted.html"
chrome --window-size=1280,1000 --screenshot="$t/shot.png" "file://$t/html/nojs.html" > /dev/null
echo "chromium: three DOM dumps and a screenshot in $("$py" -c "import time,sys; print(f'{time.time()-float(sys.argv[1]):.1f}')" "$start") s" >&2
[ -s "$t/shot.png" ] || fail "no screenshot: $(cat "$t/chromium.log")"
[ -n "$shot" ] && cp "$t/shot.png" "$shot"

"$py" - "$t" << 'PY'
import json, os, re, sys
from html.parser import HTMLParser
from PIL import Image

t = sys.argv[1]
record = json.load(open(os.path.join(t, "json", "build.json")))


class Rows(HTMLParser):
    """The rows of the actions table as the browser rendered them: text per cell, img src per row."""

    def __init__(self):
        super().__init__()
        self.rows, self.row, self.cell, self.in_acts = [], None, None, False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and a.get("id") == "acts":
            self.in_acts = True
        if not self.in_acts:
            return
        if tag == "tr" and self.row is None and a.get("class"):
            self.row = {"class": a["class"], "cells": [], "imgs": []}
        elif tag == "td" and self.row is not None:
            self.cell = ""
        elif tag == "img" and self.row is not None:
            self.row["imgs"].append(a)

    def handle_endtag(self, tag):
        if tag == "table":
            self.in_acts = False
        if tag == "td" and self.row is not None and self.cell is not None:
            self.row["cells"].append(self.cell.strip())
            self.cell = None
        if tag == "tr" and self.row is not None:
            self.rows.append(self.row)
            self.row = None

    def handle_data(self, d):
        if self.cell is not None:
            self.cell += d


def rows_of(name):
    p = Rows()
    p.feed(open(os.path.join(t, name), encoding="utf-8").read())
    return p.rows


def check(name):
    rows = rows_of(name)
    acts = record["actions"]
    assert len(rows) == len(acts), f"{name}: {len(rows)} rows for {len(acts)} actions"
    first = rows[0]
    assert first["class"] == "failed" and first["cells"][1] == "src/broken.png", f"{name}: first row {first}"
    assert first["cells"][2] == "failed" and first["cells"][3].startswith("step '"), f"{name}: first row {first}"
    by_input = {r["cells"][1]: r for r in rows}
    pictured = 0
    for a in acts:
        r = by_input.get(a["input"])
        assert r, f"{name}: no row for {a['input']}"
        cells = r["cells"]
        assert cells[0] == a["job"] and cells[2] == a["status"], f"{name}: {a['input']}: {cells[:3]}"
        m = a.get("metrics", {})
        if "format" in m:
            assert cells[5].startswith(m["format"]), f"{name}: {a['input']}: format {cells[5]!r}, want {m['format']}"
        if "psnr_rgb" in m:
            # The report's own figure, with the encode step's beside it when they differ (normal maps in BC5).
            assert f"{m['psnr_rgb']:.2f}" in cells[7], f"{name}: {a['input']}: PSNR {cells[7]!r}, want {m['psnr_rgb']:.2f}"
        if a["status"] == "built":
            # Per channel: "R 37.51", … (dB, or ∞ for an exact channel), and the max error of each.
            ch = re.findall(r"([RGBA]) (∞|[0-9.]+)", cells[8])
            assert [c for c, _ in ch] == list("RGBA"), f"{name}: {a['input']}: {cells[8]!r}"
            assert all(v == "∞" or float(v) > 25 for _, v in ch), f"{name}: {a['input']}: {cells[8]!r}"
            err = re.findall(r"([RGBA]) ([0-9.]+)", cells[9])
            assert [c for c, _ in err] == list("RGBA"), f"{name}: {a['input']}: {cells[9]!r}"
            srcs = [i["src"] for i in r["imgs"]]
            assert len(srcs) == 2 and all(s.startswith("build.html.d/") for s in srcs), srcs
            for s in srcs:
                w, h = Image.open(os.path.join(t, "html", s)).size
                assert max(w, h) == 96, (s, w, h)  # a thumbnail, 128² scaled to 96²
            pictured += 1
    assert pictured == 4, f"{name}: {pictured} texture rows with pictures"
    return rows


for name in ("dom-js.html", "dom-nojs.html"):
    check(name)
    print(f"{name}: every action's row, status, format and PSNR; the failure first")

# Full size, behind each thumbnail's link: source and result at mip 0's size, and the two again blended as
# the difference.
dom = open(os.path.join(t, "dom-nojs.html"), encoding="utf-8").read()
for a in record["actions"]:
    if a["status"] != "built":
        continue
    stem = [r for r in rows_of("dom-nojs.html") if r["cells"][1] == a["input"]][0]["imgs"][0]["src"][:-len(".src.t.png")]
    for kind in ("src", "res"):
        assert f'src="{stem}.{kind}.png"' in dom, (a["input"], kind)
        w, h = Image.open(os.path.join(t, "html", f"{stem}.{kind}.png")).size
        assert (w, h) == (128, 128), (a["input"], kind, w, h)
    assert dom.count(f'src="{stem}.src.png"') == 2 and dom.count(f'src="{stem}.res.png"') == 2, a["input"]  # + the difference
assert "blue rebuilt as Z" in dom and "(normal map)" in dom, "the normal map is not marked"
assert dom.count('class="diff"') == 4, "a difference view per texture"

# Sorted by the page's script (input column, ascending).
# (localeCompare: punctuation weighs less than letters, so rock_normal.png comes before rock.png)
inputs = [r["cells"][1] for r in rows_of("dom-sorted.html")]
assert inputs == sorted(inputs, key=lambda s: re.sub("[^a-z0-9]", "", s.lower())), inputs
print("sorting by the input column (JavaScript) works")
PY
echo "ok"
