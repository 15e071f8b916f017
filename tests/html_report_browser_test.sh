#!/usr/bin/env bash
# `--report build.html` as a browser shows it: headless Chromium renders the
# report of a small build (one broken input, textures with alpha, a normal
# map and a 2048² texture) and the test reads the rendered DOM, with
# JavaScript and without, and measures the page in a laptop's window (1366 px
# wide): no wider than the window, the first thumbnail and the figures in
# view, no absolute path, the 2048² picture at the page's width. The
# screenshot (docs/html-report.png) is of the page without JavaScript at 1366 px.
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
    "$py" -c "from PIL import Image; Image.radial_gradient('L').resize((2048, 2048)).convert('RGB').save('$t/$d/src/large.png')"
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
chrome --window-size=1366,900 --screenshot="$t/shot.png" "file://$t/html/nojs.html" > /dev/null
# The page in a laptop's window, measured by the browser: a probe appended to a copy writes what it finds
# into the DOM that --dump-dom prints.
cat > "$t/probe.js" << 'JS'
const px = e => e ? e.getBoundingClientRect() : null;
const thumb = px(document.querySelector('#acts td.pic img'));
const head = [...document.querySelectorAll('#acts th')].map(h => h.textContent);
const right = name => { const i = head.indexOf(name), c = document.querySelector('#acts tbody tr.built');
                        return i < 0 || !c ? -1 : px(c.cells[i]).right; };
const large = [...document.querySelectorAll('section.v')].find(s => s.querySelector('h3').textContent.endsWith('large.png'));
const fig = large ? [...large.querySelectorAll('.fig img')].map(i => px(i).width) : [];
const text = document.documentElement.outerHTML;
document.body.insertAdjacentHTML('beforeend', '<pre id="probe">' + JSON.stringify({
  window: innerWidth, page: document.documentElement.scrollWidth, thumb_right: thumb ? thumb.right : -1,
  psnr_right: right('PSNR RGB (dB)'), max_error_right: right('max error (of 255)'),
  body: document.body.clientWidth, large: fig}) + '</pre>');
JS
"$py" -c "import sys; s=open(sys.argv[1]).read(); open(sys.argv[2],'w').write(s.replace('</body>','<script>'+open(sys.argv[3]).read()+'</script></body>'))" \
    "$t/html/build.html" "$t/html/probe.html" "$t/probe.js"
chrome --window-size=1366,900 --virtual-time-budget=5000 --dump-dom "file://$t/html/probe.html" > "$t/dom-probe.html"
echo "chromium: four DOM dumps and a screenshot in $("$py" -c "import time,sys; print(f'{time.time()-float(sys.argv[1]):.1f}')" "$start") s" >&2
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
        self.headers, self.th = [], None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and a.get("id") == "acts":
            self.in_acts = True
        if not self.in_acts:
            return
        if tag == "th":
            self.th = ""
        if tag == "tr" and self.row is None and a.get("class"):
            self.row = {"class": a["class"], "cells": [], "imgs": []}
        elif tag == "td" and self.row is not None:
            self.cell = ""
        elif tag == "img" and self.row is not None:
            self.row["imgs"].append(a)

    def handle_endtag(self, tag):
        if tag == "table":
            self.in_acts = False
        if tag == "th" and self.th is not None:
            self.headers.append(self.th.strip())
            self.th = None
        if tag == "td" and self.row is not None and self.cell is not None:
            self.row["cells"].append(self.cell.strip())
            self.cell = None
        if tag == "tr" and self.row is not None:
            self.rows.append(self.row)
            self.row = None

    def handle_data(self, d):
        if self.cell is not None:
            self.cell += d
        if self.th is not None:
            self.th += d


def rows_of(name):
    """Each row's cells by their column's header (columns no row fills are left out of the page)."""
    p = Rows()
    p.feed(open(os.path.join(t, name), encoding="utf-8").read())
    for r in p.rows:
        assert len(r["cells"]) == len(p.headers), (name, p.headers, r)
        r["cells"] = dict(zip(p.headers, r["cells"]))
    return p.rows


def check(name):
    rows = rows_of(name)
    acts = record["actions"]
    assert len(rows) == len(acts), f"{name}: {len(rows)} rows for {len(acts)} actions"
    first = rows[0]
    assert first["class"] == "failed" and first["cells"]["input"] == "src/broken.png", f"{name}: first row {first}"
    assert first["cells"]["status"] == "failed", f"{name}: first row {first}"
    assert first["cells"]["error, warnings"].startswith("step '"), f"{name}: first row {first}"
    by_input = {r["cells"]["input"]: r for r in rows}
    pictured = 0
    for a in acts:
        r = by_input.get(a["input"])
        assert r, f"{name}: no row for {a['input']}"
        cells = r["cells"]
        assert cells["job"] == a["job"] and cells["status"] == a["status"], f"{name}: {a['input']}: {cells}"
        m = a.get("metrics", {})
        if "format" in m:
            f = cells["format (why)"]
            assert f.startswith(m["format"]), f"{name}: {a['input']}: format {f!r}, want {m['format']}"
        if "psnr_rgb" in m:
            # The report's own figure, with the encode step's beside it when they differ (normal maps in BC5).
            p = cells["PSNR RGB (dB)"]
            assert f"{m['psnr_rgb']:.2f}" in p, f"{name}: {a['input']}: PSNR {p!r}, want {m['psnr_rgb']:.2f}"
        if a["status"] == "built":
            # Per channel: "R 37.51", … (dB, or ∞ for an exact channel), and the max error of each.
            ch = re.findall(r"([RGBA]) (∞|[0-9.]+)", cells["PSNR per channel (dB)"])
            assert [c for c, _ in ch] == list("RGBA"), f"{name}: {a['input']}: {cells}"
            assert all(v == "∞" or float(v) > 25 for _, v in ch), f"{name}: {a['input']}: {cells}"
            err = re.findall(r"([RGBA]) ([0-9.]+)", cells["max error (of 255)"])
            assert [c for c, _ in err] == list("RGBA"), f"{name}: {a['input']}: {cells}"
            srcs = [i["src"] for i in r["imgs"]]
            assert len(srcs) == 2 and all(s.startswith("build.html.d/") for s in srcs), srcs
            for s in srcs:
                w, h = Image.open(os.path.join(t, "html", s)).size
                assert max(w, h) == 96, (s, w, h)  # a thumbnail, 128² (or 2048²) scaled to 96²
            pictured += 1
    assert pictured == 5, f"{name}: {pictured} texture rows with pictures"
    return rows


for name in ("dom-js.html", "dom-nojs.html"):
    check(name)
    print(f"{name}: every action's row, status, format and PSNR; the failure first")

# Full size, behind each thumbnail's link: source and result at mip 0's size, and the difference a player
# sees (alpha-weighted colour, transparent where the source's alpha is 0), and alpha on its own where there is any.
dom = open(os.path.join(t, "dom-nojs.html"), encoding="utf-8").read()
for a in record["actions"]:
    if a["status"] != "built":
        continue
    stem = [r for r in rows_of("dom-nojs.html") if r["cells"]["input"] == a["input"]][0]["imgs"][0]["src"][:-len(".src.t.png")]
    side = 2048 if a["input"] == "src/large.png" else 128
    for kind in ("src", "res", "diff"):
        assert f'src="{stem}.{kind}.png"' in dom, (a["input"], kind)
        w, h = Image.open(os.path.join(t, "html", f"{stem}.{kind}.png")).size
        assert (w, h) == (side, side), (a["input"], kind, w, h)
    source = Image.open(os.path.join(t, "html", a["input"])).convert("RGBA")
    diff = Image.open(os.path.join(t, "html", f"{stem}.diff.png"))
    assert [p[3] == 0 for p in source.getdata()] == [p[3] == 0 for p in diff.getdata()], f"{a['input']}: the mask"
    assert (f'src="{stem}.alpha.png"' in dom) == (a["input"] == "src/palm.png"), f"{a['input']}: alpha picture"
assert "blue rebuilt as Z" in dom and "(normal map)" in dom, "the normal map is not marked"
assert dom.count("difference a player sees") == 5, "a difference view per texture"

# A laptop's window: the page no wider, the first thumbnail and the figures in view, no absolute path, and
# the 2048² picture at the page's width.
probe = json.loads(re.search(r'<pre id="probe">(.*?)</pre>', open(os.path.join(t, "dom-probe.html"), encoding="utf-8").read()).group(1))
print("at 1366 px:", probe)
assert probe["window"] == 1366, probe
assert probe["page"] <= 1366, f"the page is {probe['page']} px wide in a 1366 px window"
assert 0 < probe["thumb_right"] <= 1366, f"the first thumbnail ends at {probe['thumb_right']} px"
assert 0 < probe["psnr_right"] <= 1366 and 0 < probe["max_error_right"] <= 1366, probe
assert probe["large"] and all(probe["body"] * 0.9 <= w <= probe["body"] for w in probe["large"]), probe
html = open(os.path.join(t, "html", "build.html"), encoding="utf-8").read()
assert t not in html and "file:" not in html, "an absolute path in the page"
for attr in re.findall(r'(?:src|href)="([^"]*)"', html):
    assert not attr.startswith("/"), attr

# Sorted by the page's script (input column, ascending).
# (localeCompare: punctuation weighs less than letters, so rock_normal.png comes before rock.png)
inputs = [r["cells"]["input"] for r in rows_of("dom-sorted.html")]
assert inputs == sorted(inputs, key=lambda s: re.sub("[^a-z0-9]", "", s.lower())), inputs
print("sorting by the input column (JavaScript) works")
PY
echo "ok"
