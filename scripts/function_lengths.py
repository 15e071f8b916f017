#!/usr/bin/env python3
"""Lengths of the functions in C++ sources: a function is a brace block
opened after a parameter list outside any other function; lambdas and
local classes count toward the function that holds them.

    scripts/function_lengths.py [--over N] [--max M --max-over-80 K] PATH...

Prints `lines file:line name` for functions over N lines (default 80),
longest first. With --max/--max-over-80 it exits 1 when a function is longer
than M lines or more than K functions are over 80 (the house rule)."""
import argparse
import pathlib
import re
import sys

NOT_FUNCTIONS = re.compile(r"^\s*(if|for|while|switch|catch|namespace|class|struct|enum|union|do|else|try|return)\b")


def strip(text):
    """Comments and literals blanked, line breaks kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            k = text.find("(", i)
            delim = ")" + text[i + 2 : k] + '"'
            j = text.find(delim, k)
            j = n if j < 0 else j + len(delim)
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path):
    text = strip(path.read_text(errors="replace"))
    depth, fn_depth, start, head, name = 0, None, 0, "", ""
    line = 1
    for c in text:
        if c == "\n":
            line += 1
        if c == "{":
            if fn_depth is None:
                h = " ".join(head.split())
                if ")" in h and not NOT_FUNCTIONS.match(h) and not h.rstrip().endswith("="):
                    m = re.search(r"([~\w:]+(?:operator\S*)?)\s*\(", h)
                    fn_depth, start, name = depth, line, m.group(1) if m else h[:40]
            depth += 1
            head = ""
        elif c == "}":
            depth -= 1
            if fn_depth is not None and depth == fn_depth:
                yield line - start + 1, start, name
                fn_depth = None
            head = ""
        elif c == ";":
            head = ""
        else:
            head += c
            if len(head) > 2000:
                head = head[-2000:]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--over", type=int, default=80)
    ap.add_argument("--max", type=int)
    ap.add_argument("--max-over-80", type=int)
    a = ap.parse_args()
    found = []
    for root in a.paths:
        r = pathlib.Path(root)
        files = [r] if r.is_file() else sorted(p for p in r.rglob("*") if p.suffix in (".cpp", ".hpp", ".h", ".cc"))
        for p in files:
            if "tests" in p.parts or "build" in p.parts[:1]:
                continue
            for n, at, name in functions(p):
                found.append((n, f"{p}:{at}", name))
    found.sort(reverse=True)
    for n, where, name in found:
        if n > a.over:
            print(f"{n:5d} {where} {name}")
    over80 = sum(1 for f in found if f[0] > 80)
    longest = found[0][0] if found else 0
    print(f"functions: {len(found)}, over 80 lines: {over80}, over 120: {sum(1 for f in found if f[0] > 120)}, longest: {longest}")
    bad = (a.max is not None and longest > a.max) or (a.max_over_80 is not None and over80 > a.max_over_80)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
