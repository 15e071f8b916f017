#!/usr/bin/env python3
"""Checks the layering of pipeline/: each folder includes only the folders
its README allows (the table below is the same rule), no folder holds more
than 40 source files, and no plugin includes anything of pipeline/ but the
SDK (assetforge/). Tests beside a folder may also use the test support.
Headers include no JSON or YAML library (they cost every file that includes
them; forward-declare instead) except where JSON is the file's format: the
report's figures record, the state store and the remote cache's wire code.

    scripts/check_layers.py [REPO]      exit 1 and one line per breach
"""
import pathlib
import re
import sys

# Folder -> folders its sources may include (besides itself and the SDK).
# Lower layers first; an arrow back up is a breach.
ALLOWED = {
    "core": set(),
    "host": {"core"},
    "texture": {"core", "host"},
    "remote": {"core"},  # the loader: core/lazy_module.hpp
    "base": {"core"},
    "steps": {"base", "core", "host", "texture"},
    "load": {"steps", "base", "core"},
    "report": {"load", "steps", "base", "core", "texture"},
    "engine": {"report", "load", "steps", "base", "core", "remote"},
    "cli": {"engine", "report", "load", "steps", "base", "core", "host", "texture", "remote"},
}
MAX_SOURCES = 40
HEAVY = re.compile(r'^\s*#\s*include\s+[<"](nlohmann/json|nlohmann/json_fwd|yaml-cpp/yaml)\.h(pp)?[>"]', re.M)
HEAVY_ALLOWED = re.compile(r"^pipeline/(report/figures_record\.hpp|engine/state_store|remote/)")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/', re.M)


def main():
    repo = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    pipeline = repo / "pipeline"
    breaches = []
    for folder, allowed in ALLOWED.items():
        d = pipeline / folder
        if not d.is_dir():
            breaches.append(f"pipeline/{folder}: missing (scripts/check_layers.py names it)")
            continue
        sources = [p for p in d.iterdir() if p.suffix in (".cpp", ".hpp")]
        if len(sources) > MAX_SOURCES:
            breaches.append(f"pipeline/{folder}: {len(sources)} source files (at most {MAX_SOURCES})")
        for p in d.rglob("*"):
            if p.suffix not in (".cpp", ".hpp"):
                continue
            in_tests = "tests" in p.relative_to(d).parts
            for m in INCLUDE.finditer(p.read_text(errors="replace")):
                top = m.group(1)
                if top in (folder, "assetforge") or top in allowed:
                    continue
                if in_tests and top in ("support", "host", "texture", "steps", "load", "report", "engine"):
                    continue  # a test may set up whatever it exercises
                line = p.read_text(errors="replace")[: m.start()].count("\n") + 1
                breaches.append(f"{p.relative_to(repo)}:{line}: {folder}/ may not include {top}/")
    for d in sorted(pipeline.iterdir()):
        if d.is_dir() and d.name not in ALLOWED and d.name != "include":
            breaches.append(f"pipeline/{d.name}: a folder with no layering rule (add it to scripts/check_layers.py)")
    for p in sorted((repo / "plugins").rglob("*")):
        if p.suffix not in (".cpp", ".hpp") or "tests" in p.parts:
            continue
        for m in INCLUDE.finditer(p.read_text(errors="replace")):
            if m.group(1) in ALLOWED:
                line = p.read_text(errors="replace")[: m.start()].count("\n") + 1
                breaches.append(f"{p.relative_to(repo)}:{line}: a plugin includes only the SDK, not {m.group(1)}/")
    for top in ("pipeline", "plugins"):
        for p in sorted((repo / top).rglob("*")):
            rel = p.relative_to(repo).as_posix()
            if p.suffix not in (".hpp", ".h") or "tests" in p.parts or HEAVY_ALLOWED.match(rel):
                continue
            m = HEAVY.search(p.read_text(errors="replace"))
            if m:
                line = p.read_text(errors="replace")[: m.start()].count("\n") + 1
                breaches.append(f"{rel}:{line}: a header includes {m.group(1)} (forward-declare; include it in the .cpp)")
    for b in breaches:
        print(b)
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
