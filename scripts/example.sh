#!/usr/bin/env bash
# The main job on the bundled example (build first with scripts/setup.sh):
# lists the plugins (including the out-of-tree SDK example, built here against
# the installed SDK), runs examples/quickstart/pipeline.yaml twice (the second
# run has nothing to do), and describes what it produced.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
af=$root/build/bin/assetforge

# The third-party example plugin, built out of tree against the installed SDK.
cmake --install build --prefix build/sdk-install > /dev/null
cmake -S examples/plugin-sdk -B build/plugin-sdk -G Ninja -DCMAKE_PREFIX_PATH="$root/build/sdk-install" > /dev/null
cmake --build build/plugin-sdk > /dev/null
export ASSETFORGE_PLUGIN_PATH=$root/build/plugin-sdk

"$af" plugins
cd examples/quickstart
"$af" build --explain
echo "--- second build (nothing changed):"
"$af" build
"$af" info build/dds/walls/dark_wood.dds
"$af" info build/xbox/walls/dark_wood.xtf
echo "--- pages of pages/world.pages:"
ls build/pages/world
python3 -m zipfile -l build/quickstart-mod.zip
