#!/bin/sh
# Opt-in: assetforge over a whole real texture tree the project does not own.
#
#   scripts/real_tree_test.sh [DIR]
#
# DIR: any folder of DDS (and PNG) files. Without it, FlightGear's textures
# from Debian's packages flightgear-data-base (1.3 GB download) and
# flightgear-data-models (144 MB) are fetched once with `apt-get download`
# (no root needed, nothing installed) into $AF_REAL_TREE_CACHE (default
# ~/.cache/assetforge/flightgear), and only their DDS files, their PNGs under
# Textures/ and their normal-map-named PNGs are unpacked. CI does not run
# this; it runs the same checks over the FlightGear files in the plugin's
# test data (ctest -R real-tree).
#
# Checks (scripts/real_tree_check.py): decode agreement with Pillow, the
# normal-map rule by name against by texels (disagreements listed), and
# `--like` re-export keeping format, size, mip count and mip means.
# Environment: AF_EXE (default build/bin/assetforge), AF_REAL_TREE_ARGS
# (extra checker options, e.g. "--max-files 50 --json out.json").
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
exe=${AF_EXE:-$root/build/bin/assetforge}
[ -x "$exe" ] || { echo "real_tree_test: no assetforge at $exe (build first, or set AF_EXE)" >&2; exit 2; }
dir=${1:-}
if [ -z "$dir" ]; then
    cache=${AF_REAL_TREE_CACHE:-$HOME/.cache/assetforge/flightgear}
    dir=$cache/tree
    if [ ! -d "$dir" ]; then
        mkdir -p "$cache"
        for pkg in flightgear-data-base flightgear-data-models; do
            ls "$cache"/${pkg}_*.deb >/dev/null 2>&1 || (cd "$cache" && apt-get download "$pkg")
        done
        mkdir -p "$dir.part"
        for deb in "$cache"/flightgear-data-*.deb; do
            # --wildcards: DDS anywhere, PNG under Textures/ or named like a normal map.
            dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dir.part" --wildcards --no-anchored \
                '*.dds' '*/Textures/*.png' '*norm*.png' '*_n.png' '*-nm.png' '*_nm.png' '*nmap*.png' '*nrm*.png' \
                2>/dev/null || true
        done
        mv "$dir.part" "$dir"
    fi
fi
# shellcheck disable=SC2086 # AF_REAL_TREE_ARGS is a list of options
exec /usr/bin/python3 "$here/real_tree_check.py" "$dir" --exe "$exe" ${AF_REAL_TREE_ARGS:-}
